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
float l_mut_17;
float l_mut_30;
uint32 l_mut_4;
const uint32 l_0 = blockIdx.x * blockDim.x;
const uint32 l_1 = l_0 + threadIdx.x;
const bool l_2 = l_1 < info.scalars_uint32[1];
if (l_2) {
const float l_3 = buffer_1[l_1];
l_mut_4 = blockIdx.y;
while (true) {
const bool l_5 = l_mut_4 < info.scalars_uint32[0];
const bool l_6 = !l_5;
if (l_6) {
break;}
const uint32 l_7 = l_mut_4 * info.scalars_uint32[1];
const uint32 l_8 = l_7 + l_1;
const float l_9 = buffer_0[l_8];
const float l_10 = l_9 + l_3;
const float l_11 = float(0.5) * l_10;
const float l_12 = l_10 * float(0.7071067690849304);
const float l_13 = abs(l_12);
const float l_14 = l_12 * l_12;
const bool l_15 = l_13 > float(0.927734375);
if (l_15) {
const float l_16 = fma(float(-1.728534698486328e-5), l_13, float(0.0003831971262115985));
l_mut_17 = l_16;
const float l_18 = fma(float(-0.003883964382112026), l_13, float(0.02425462193787098));
const float l_19 = fma(l_mut_17, l_14, l_18);
l_mut_17 = l_19;
const float l_20 = fma(l_mut_17, l_13, float(-0.10677787661552429));
l_mut_17 = l_20;
const float l_21 = fma(l_mut_17, l_13, float(-0.6348466873168945));
l_mut_17 = l_21;
const float l_22 = fma(l_mut_17, l_13, float(-0.12871751189231873));
l_mut_17 = l_22;
const float l_23 = -l_13;
const float l_24 = fma(l_mut_17, l_13, l_23);
l_mut_17 = l_24;
const float l_25 = exp(l_mut_17);
const bool l_26 = l_12 < float(0.0);
const float l_27 = float(2.0) - l_25;
const float l_28 = (l_26) ? l_25 : l_27;
l_mut_17 = l_28;
} else {
const float l_29 = fma(float(-0.0005967617034912109), l_14, float(0.004991194233298302));
l_mut_30 = l_29;
const float l_31 = fma(l_mut_30, l_14, float(-0.026768134906888008));
l_mut_30 = l_31;
const float l_32 = fma(l_mut_30, l_14, float(0.11281992495059967));
l_mut_30 = l_32;
const float l_33 = fma(l_mut_30, l_14, float(-0.3761253356933594));
l_mut_30 = l_33;
const float l_34 = fma(l_mut_30, l_14, float(0.12837916612625122));
l_mut_30 = l_34;
const float l_35 = fma(l_mut_30, l_12, l_12);
const float l_36 = float(1.0) + l_35;
l_mut_17 = l_36;
}
const float l_37 = l_11 * l_mut_17;
buffer_2[l_8] = l_37;
l_mut_4 = l_mut_4 + gridDim.y;
}
}

}
