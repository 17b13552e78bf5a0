// Generated from cubecl/src/kernels.rs by CubeCL 0.10.0 for sm_90: do not edit.
// Regenerate with `cargo run --release --bin generate-cuda` in cubecl/ (cargo test checks it).
// CubeCL's `#include <cuda_runtime.h>` is left out: NVRTC provides everything the kernel uses,
// and the header would need a CUDA toolkit's include directory on the machine that compiles it.
typedef unsigned int uint;
typedef unsigned char uint8;
typedef unsigned short uint16;
typedef unsigned int uint32;
typedef unsigned long long int uint64;
typedef signed char int8;
typedef signed short int16;
typedef signed int int32;
typedef signed long long int int64;

struct info_st {
    uint32 scalars_uint32[2];uint32 static_meta[6];
};


extern "C" __global__ void __launch_bounds__(256)bias_gelu_kernel (
    const float* __restrict__ buffer_0, const float* __restrict__ buffer_1, float* buffer_2, const __grid_constant__ info_st info
) {
float l_mut_12;
float l_mut_13;
uint32 l_mut_5;
const uint32 l_0 = info.scalars_uint32[1] / uint32(1);
const uint32 l_1 = blockIdx.x * blockDim.x;
const uint32 l_2 = l_1 + threadIdx.x;
const bool l_3 = l_2 < l_0;
if (l_3) {
const float l_4 = buffer_1[l_2];
l_mut_5 = blockIdx.y;
while (true) {
const bool l_6 = l_mut_5 < info.scalars_uint32[0];
const bool l_7 = !l_6;
if (l_7) {
break;}
const uint32 l_8 = l_mut_5 * l_0;
const uint32 l_9 = l_8 + l_2;
const float l_10 = buffer_0[l_9];
const float l_11 = l_10 + l_4;
l_mut_12 = float(0.0);
l_mut_13 = l_mut_12;
const float l_14 = l_11;
const float l_15 = float(0.5) * l_14;
const float l_16 = l_14 * float(0.7071067690849304);
const float l_17 = abs(l_16);
const float l_18 = l_16 * l_16;
const float l_19 = fma(float(-1.728534698486328e-5), l_17, float(0.0003831971262115985));
l_mut_12 = l_19;
const float l_20 = fma(float(-0.003883964382112026), l_17, float(0.02425462193787098));
const float l_21 = fma(l_mut_12, l_18, l_20);
l_mut_12 = l_21;
const float l_22 = fma(l_mut_12, l_17, float(-0.10677787661552429));
l_mut_12 = l_22;
const float l_23 = fma(l_mut_12, l_17, float(-0.6348466873168945));
l_mut_12 = l_23;
const float l_24 = fma(l_mut_12, l_17, float(-0.12871751189231873));
l_mut_12 = l_24;
const float l_25 = -l_17;
const float l_26 = fma(l_mut_12, l_17, l_25);
l_mut_12 = l_26;
const float l_27 = exp(l_mut_12);
const bool l_28 = l_16 < float(0.0);
const float l_29 = float(2.0) - l_27;
const float l_30 = (l_28) ? l_27 : l_29;
const float l_31 = fma(float(-0.0005967617034912109), l_18, float(0.004991194233298302));
l_mut_12 = l_31;
const float l_32 = fma(l_mut_12, l_18, float(-0.026768134906888008));
l_mut_12 = l_32;
const float l_33 = fma(l_mut_12, l_18, float(0.11281992495059967));
l_mut_12 = l_33;
const float l_34 = fma(l_mut_12, l_18, float(-0.3761253356933594));
l_mut_12 = l_34;
const float l_35 = fma(l_mut_12, l_18, float(0.12837916612625122));
l_mut_12 = l_35;
const float l_36 = fma(l_mut_12, l_16, l_16);
const float l_37 = float(1.0) + l_36;
const bool l_38 = l_17 > float(0.927734375);
const float l_39 = (l_38) ? l_30 : l_37;
const float l_40 = l_15 * l_39;
l_mut_13 = l_40;
buffer_2[l_9] = l_mut_13;
l_mut_5 = l_mut_5 + gridDim.y;
}
}

}
