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
    float scalars_float[2];
uint32 scalars_uint32[2];uint32 static_meta[8];
};


extern "C" __global__ void __launch_bounds__(64)layernorm_kernel (
    const float* __restrict__ buffer_0, const float* __restrict__ buffer_1, const float* __restrict__ buffer_2, float* buffer_3, const __grid_constant__ info_st info
) {
extern __shared__ __align__(4) uint8 dynamic_shared_mem[];
// Shared array size: 64, 256 bytes
float *shared_memory_7 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
float l_mut_8;
uint32 l_mut_15;
uint32 l_mut_9;
const uint32 l_0 = blockIdx.y * gridDim.x;
const uint32 l_1 = l_0 + blockIdx.x;
const bool l_2 = l_1 < info.scalars_uint32[0];
const uint32 l_3 = (l_2) ? l_1 : uint32(0);
const uint32 l_4 = l_3 * info.scalars_uint32[1];
const float l_5 = float(info.scalars_uint32[1]);
const float l_6 = float(1.0) / l_5;
l_mut_8 = float(0.0);
l_mut_9 = threadIdx.x;
while (true) {
const bool l_10 = l_mut_9 < info.scalars_uint32[1];
const bool l_11 = !l_10;
if (l_11) {
break;}
const uint32 l_12 = l_4 + l_mut_9;
const float l_13 = buffer_0[l_12];
l_mut_8 = l_mut_8 + l_13;
l_mut_9 = l_mut_9 + uint32(64);
}
shared_memory_7[threadIdx.x] = l_mut_8;
__syncthreads();

const uint32 l_14 = blockDim.x / uint32(2);
l_mut_15 = l_14;
while (true) {
const bool l_16 = l_mut_15 > uint32(0);
const bool l_17 = !l_16;
if (l_17) {
break;}
const bool l_18 = threadIdx.x < l_mut_15;
if (l_18) {
const uint32 l_19 = threadIdx.x + l_mut_15;
const float l_20 = shared_memory_7[l_19];
const float l_21 = shared_memory_7[threadIdx.x];
const float l_22 = l_21 + l_20;
shared_memory_7[threadIdx.x] = l_22;
}
__syncthreads();

l_mut_15 = l_mut_15 / uint32(2);
}
const float l_23 = shared_memory_7[uint32(0)];
const float l_24 = l_23 * l_6;
__syncthreads();

l_mut_8 = float(0.0);
l_mut_9 = threadIdx.x;
while (true) {
const bool l_25 = l_mut_9 < info.scalars_uint32[1];
const bool l_26 = !l_25;
if (l_26) {
break;}
const uint32 l_27 = l_4 + l_mut_9;
const float l_28 = buffer_0[l_27];
const float l_29 = l_28 - l_24;
const float l_30 = l_29 * l_29;
l_mut_8 = l_mut_8 + l_30;
l_mut_9 = l_mut_9 + uint32(64);
}
shared_memory_7[threadIdx.x] = l_mut_8;
__syncthreads();

const uint32 l_31 = blockDim.x / uint32(2);
l_mut_15 = l_31;
while (true) {
const bool l_32 = l_mut_15 > uint32(0);
const bool l_33 = !l_32;
if (l_33) {
break;}
const bool l_34 = threadIdx.x < l_mut_15;
if (l_34) {
const uint32 l_35 = threadIdx.x + l_mut_15;
const float l_36 = shared_memory_7[l_35];
const float l_37 = shared_memory_7[threadIdx.x];
const float l_38 = l_37 + l_36;
shared_memory_7[threadIdx.x] = l_38;
}
__syncthreads();

l_mut_15 = l_mut_15 / uint32(2);
}
const float l_39 = shared_memory_7[uint32(0)];
const float l_40 = l_39 * l_6;
const float l_41 = l_40 + info.scalars_float[0];
const float l_42 = sqrt(l_41);
const float l_43 = float(1.0) / l_42;
if (l_2) {
l_mut_9 = threadIdx.x;
while (true) {
const bool l_44 = l_mut_9 < info.scalars_uint32[1];
const bool l_45 = !l_44;
if (l_45) {
break;}
const uint32 l_46 = l_4 + l_mut_9;
const float l_47 = buffer_0[l_46];
const float l_48 = l_47 - l_24;
const float l_49 = l_48 * l_43;
const float l_50 = buffer_1[l_mut_9];
const float l_51 = l_49 * l_50;
const float l_52 = buffer_2[l_mut_9];
const float l_53 = l_51 + l_52;
buffer_3[l_46] = l_53;
l_mut_9 = l_mut_9 + uint32(64);
}
}

}
