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
float l_mut_15;
float l_mut_28;
const uint32 l_0 = blockIdx.y * gridDim.x;
const uint32 l_1 = l_0 + blockIdx.x;
const uint32 l_2 = l_1 * blockDim.x;
const uint32 l_3 = l_2 + threadIdx.x;
const bool l_4 = l_3 < info.scalars_uint32[0];
if (l_4) {
const uint32 l_5 = l_3 % info.scalars_uint32[1];
const float l_6 = buffer_0[l_3];
const float l_7 = buffer_1[l_5];
const float l_8 = l_6 + l_7;
const float l_9 = float(0.5) * l_8;
const float l_10 = l_8 * float(0.7071067690849304);
const float l_11 = abs(l_10);
const float l_12 = l_10 * l_10;
const bool l_13 = l_11 > float(0.927734375);
if (l_13) {
const float l_14 = fma(float(-1.728534698486328e-5), l_11, float(0.0003831971262115985));
l_mut_15 = l_14;
const float l_16 = fma(float(-0.003883964382112026), l_11, float(0.02425462193787098));
const float l_17 = fma(l_mut_15, l_12, l_16);
l_mut_15 = l_17;
const float l_18 = fma(l_mut_15, l_11, float(-0.10677787661552429));
l_mut_15 = l_18;
const float l_19 = fma(l_mut_15, l_11, float(-0.6348466873168945));
l_mut_15 = l_19;
const float l_20 = fma(l_mut_15, l_11, float(-0.12871751189231873));
l_mut_15 = l_20;
const float l_21 = -l_11;
const float l_22 = fma(l_mut_15, l_11, l_21);
l_mut_15 = l_22;
const float l_23 = exp(l_mut_15);
const bool l_24 = l_10 < float(0.0);
const float l_25 = float(2.0) - l_23;
const float l_26 = (l_24) ? l_23 : l_25;
l_mut_15 = l_26;
} else {
const float l_27 = fma(float(-0.0005967617034912109), l_12, float(0.004991194233298302));
l_mut_28 = l_27;
const float l_29 = fma(l_mut_28, l_12, float(-0.026768134906888008));
l_mut_28 = l_29;
const float l_30 = fma(l_mut_28, l_12, float(0.11281992495059967));
l_mut_28 = l_30;
const float l_31 = fma(l_mut_28, l_12, float(-0.3761253356933594));
l_mut_28 = l_31;
const float l_32 = fma(l_mut_28, l_12, float(0.12837916612625122));
l_mut_28 = l_32;
const float l_33 = fma(l_mut_28, l_10, l_10);
const float l_34 = float(1.0) + l_33;
l_mut_15 = l_34;
}
const float l_35 = l_9 * l_mut_15;
buffer_2[l_3] = l_35;
}

}
