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
uint3 absoluteIdx = make_uint3(
    blockIdx.x * blockDim.x + threadIdx.x,
    blockIdx.y * blockDim.y + threadIdx.y,
    blockIdx.z * blockDim.z + threadIdx.z
);
uint32 idxGlobal = (
                absoluteIdx.z * gridDim.x * blockDim.x * gridDim.y * blockDim.y)
                + (absoluteIdx.y * gridDim.x * blockDim.x)
                + absoluteIdx.x;
uint32 warpSizeChecked = min(warpSize, blockDim.x * blockDim.y * blockDim.z);
extern __shared__ __align__(4) uint8 dynamic_shared_mem[];
// Shared array size: 64, 256 bytes
float *shared_memory_7 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
float l_mut_8;
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
auto plane_l_14 = [&]() -> float {
    float acc = l_mut_8;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_14 = plane_l_14();
const bool l_15 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_15) {
const uint32 l_16 = threadIdx.x / warpSize;
shared_memory_7[l_16] = l_14;
}
__syncthreads();

l_mut_8 = float(0.0);
const uint32 l_17 = blockDim.x / warpSize;

for (uint32 l_mut_18 = uint32(0); l_mut_18 < l_17; ++l_mut_18) {
const float l_19 = shared_memory_7[l_mut_18];
l_mut_8 = l_mut_8 + l_19;
}
__syncthreads();

const float l_20 = l_mut_8 * l_6;
l_mut_8 = float(0.0);
l_mut_9 = threadIdx.x;
while (true) {
const bool l_21 = l_mut_9 < info.scalars_uint32[1];
const bool l_22 = !l_21;
if (l_22) {
break;}
const uint32 l_23 = l_4 + l_mut_9;
const float l_24 = buffer_0[l_23];
const float l_25 = l_24 - l_20;
const float l_26 = l_25 * l_25;
l_mut_8 = l_mut_8 + l_26;
l_mut_9 = l_mut_9 + uint32(64);
}
auto plane_l_27 = [&]() -> float {
    float acc = l_mut_8;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_27 = plane_l_27();
const bool l_28 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_28) {
const uint32 l_29 = threadIdx.x / warpSize;
shared_memory_7[l_29] = l_27;
}
__syncthreads();

l_mut_8 = float(0.0);
const uint32 l_30 = blockDim.x / warpSize;

for (uint32 l_mut_31 = uint32(0); l_mut_31 < l_30; ++l_mut_31) {
const float l_32 = shared_memory_7[l_mut_31];
l_mut_8 = l_mut_8 + l_32;
}
__syncthreads();

const float l_33 = l_mut_8 * l_6;
const float l_34 = l_33 + info.scalars_float[0];
const float l_35 = sqrt(l_34);
const float l_36 = float(1.0) / l_35;
if (l_2) {
l_mut_9 = threadIdx.x;
while (true) {
const bool l_37 = l_mut_9 < info.scalars_uint32[1];
const bool l_38 = !l_37;
if (l_38) {
break;}
const uint32 l_39 = l_4 + l_mut_9;
const float l_40 = buffer_0[l_39];
const float l_41 = l_40 - l_20;
const float l_42 = l_41 * l_36;
const float l_43 = buffer_1[l_mut_9];
const float l_44 = l_42 * l_43;
const float l_45 = buffer_2[l_mut_9];
const float l_46 = l_44 + l_45;
buffer_3[l_39] = l_46;
l_mut_9 = l_mut_9 + uint32(64);
}
}

}
