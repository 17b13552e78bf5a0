// Generated from cubecl/src/softmax.rs by CubeCL 0.10.0 for sm_90: do not edit.
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
    uint32 scalars_uint32[2];uint32 static_meta[4];
};


extern "C" __global__ void __launch_bounds__(256)softmax_kernel (
    const float* __restrict__ buffer_0, float* buffer_1, const __grid_constant__ info_st info
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
// Shared array size: 256, 1024 bytes
float *shared_memory_5 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
float l_mut_24;
float l_mut_6;
float l_mut_7;
uint32 l_mut_8;
const uint32 l_0 = blockIdx.y * gridDim.x;
const uint32 l_1 = l_0 + blockIdx.x;
const bool l_2 = l_1 < info.scalars_uint32[0];
const uint32 l_3 = (l_2) ? l_1 : uint32(0);
const uint32 l_4 = l_3 * info.scalars_uint32[1];
l_mut_6 = float(-3.4028234663852886e38);
l_mut_7 = float(0.0);
l_mut_8 = threadIdx.x;
while (true) {
const bool l_9 = l_mut_8 < info.scalars_uint32[1];
const bool l_10 = !l_9;
if (l_10) {
break;}
const uint32 l_11 = l_4 + l_mut_8;
const float l_12 = buffer_0[l_11];
const float l_13 = max(l_mut_6, l_12);
const float l_14 = l_mut_6 - l_13;
const float l_15 = exp(l_14);
const float l_16 = l_mut_7 * l_15;
const float l_17 = l_12 - l_13;
const float l_18 = exp(l_17);
const float l_19 = l_16 + l_18;
l_mut_7 = l_19;
l_mut_6 = l_13;
l_mut_8 = l_mut_8 + uint32(256);
}
auto plane_l_20 = [&]() -> float {
    float acc = l_mut_6;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
        acc = max(acc, __shfl_xor_sync(-1, acc, offset));
    };
    return acc;
};
const float l_20 = plane_l_20();
const bool l_21 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_21) {
const uint32 l_22 = threadIdx.x / warpSize;
shared_memory_5[l_22] = l_20;
}
__syncthreads();

const float l_23 = shared_memory_5[uint32(0)];
l_mut_24 = l_23;
const uint32 l_25 = blockDim.x / warpSize;

for (uint32 l_mut_26 = uint32(1); l_mut_26 < l_25; ++l_mut_26) {
const float l_27 = shared_memory_5[l_mut_26];
const float l_28 = max(l_mut_24, l_27);
l_mut_24 = l_28;
}
__syncthreads();

const float l_29 = l_mut_6 - l_mut_24;
const float l_30 = exp(l_29);
const float l_31 = l_mut_7 * l_30;
auto plane_l_32 = [&]() -> float {
    float acc = l_31;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_32 = plane_l_32();
const bool l_33 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_33) {
const uint32 l_34 = threadIdx.x / warpSize;
shared_memory_5[l_34] = l_32;
}
__syncthreads();

const float l_35 = shared_memory_5[uint32(0)];
l_mut_7 = l_35;
const uint32 l_36 = blockDim.x / warpSize;

for (uint32 l_mut_37 = uint32(1); l_mut_37 < l_36; ++l_mut_37) {
const float l_38 = shared_memory_5[l_mut_37];
const float l_39 = l_mut_7 + l_38;
l_mut_7 = l_39;
}
__syncthreads();

const float l_40 = float(1.0) / l_mut_7;
if (l_2) {
l_mut_8 = threadIdx.x;
while (true) {
const bool l_41 = l_mut_8 < info.scalars_uint32[1];
const bool l_42 = !l_41;
if (l_42) {
break;}
const uint32 l_43 = l_4 + l_mut_8;
const float l_44 = buffer_0[l_43];
const float l_45 = l_44 - l_mut_24;
const float l_46 = exp(l_45);
const float l_47 = l_46 * l_40;
buffer_1[l_43] = l_47;
l_mut_8 = l_mut_8 + uint32(256);
}
}

}
