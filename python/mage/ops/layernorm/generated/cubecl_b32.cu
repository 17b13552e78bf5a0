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


extern "C" __global__ void __launch_bounds__(32)layernorm_kernel (
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
// Shared array size: 32, 128 bytes
float *shared_memory_8 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
float l_mut_15;
float l_mut_32;
float l_mut_9;
uint32 l_mut_10;
const uint32 l_0 = blockIdx.y * gridDim.x;
const uint32 l_1 = l_0 + blockIdx.x;
const bool l_2 = l_1 < info.scalars_uint32[0];
const uint32 l_3 = (l_2) ? l_1 : uint32(0);
const uint32 l_4 = info.scalars_uint32[1] / uint32(1);
const uint32 l_5 = l_3 * l_4;
const float l_6 = float(info.scalars_uint32[1]);
const float l_7 = float(1.0) / l_6;
l_mut_9 = float(0.0);
l_mut_10 = threadIdx.x;
while (true) {
const bool l_11 = l_mut_10 < l_4;
const bool l_12 = !l_11;
if (l_12) {
break;}
const uint32 l_13 = l_5 + l_mut_10;
const float l_14 = buffer_0[l_13];
l_mut_9 = l_mut_9 + l_14;
l_mut_10 = l_mut_10 + uint32(32);
}
l_mut_15 = float(0.0);
const float l_16 = l_mut_9;
l_mut_15 = l_mut_15 + l_16;
auto plane_l_17 = [&]() -> float {
    float acc = l_mut_15;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_17 = plane_l_17();
const bool l_18 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_18) {
const uint32 l_19 = threadIdx.x / warpSize;
shared_memory_8[l_19] = l_17;
}
__syncthreads();

const float l_20 = shared_memory_8[uint32(0)];
l_mut_15 = l_20;
const uint32 l_21 = blockDim.x / warpSize;

for (uint32 l_mut_22 = uint32(1); l_mut_22 < l_21; ++l_mut_22) {
const float l_23 = shared_memory_8[l_mut_22];
const float l_24 = l_mut_15 + l_23;
l_mut_15 = l_24;
}
__syncthreads();

const float l_25 = l_mut_15 * l_7;
l_mut_15 = float(0.0);
l_mut_9 = float(0.0);
l_mut_10 = threadIdx.x;
while (true) {
const bool l_26 = l_mut_10 < l_4;
const bool l_27 = !l_26;
if (l_27) {
break;}
const uint32 l_28 = l_5 + l_mut_10;
const float l_29 = buffer_0[l_28];
const float l_30 = l_29 - l_25;
l_mut_15 = l_mut_15 + l_30;
const float l_31 = l_30 * l_30;
l_mut_9 = l_mut_9 + l_31;
l_mut_10 = l_mut_10 + uint32(32);
}
l_mut_32 = float(0.0);
const float l_33 = l_mut_15;
l_mut_32 = l_mut_32 + l_33;
auto plane_l_34 = [&]() -> float {
    float acc = l_mut_32;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_34 = plane_l_34();
const bool l_35 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_35) {
const uint32 l_36 = threadIdx.x / warpSize;
shared_memory_8[l_36] = l_34;
}
__syncthreads();

const float l_37 = shared_memory_8[uint32(0)];
l_mut_32 = l_37;
const uint32 l_38 = blockDim.x / warpSize;

for (uint32 l_mut_39 = uint32(1); l_mut_39 < l_38; ++l_mut_39) {
const float l_40 = shared_memory_8[l_mut_39];
const float l_41 = l_mut_32 + l_40;
l_mut_32 = l_41;
}
__syncthreads();

const float l_42 = l_mut_32 * l_7;
l_mut_32 = float(0.0);
const float l_43 = l_mut_9;
l_mut_32 = l_mut_32 + l_43;
auto plane_l_44 = [&]() -> float {
    float acc = l_mut_32;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_44 = plane_l_44();
const bool l_45 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_45) {
const uint32 l_46 = threadIdx.x / warpSize;
shared_memory_8[l_46] = l_44;
}
__syncthreads();

const float l_47 = shared_memory_8[uint32(0)];
l_mut_32 = l_47;
const uint32 l_48 = blockDim.x / warpSize;

for (uint32 l_mut_49 = uint32(1); l_mut_49 < l_48; ++l_mut_49) {
const float l_50 = shared_memory_8[l_mut_49];
const float l_51 = l_mut_32 + l_50;
l_mut_32 = l_51;
}
__syncthreads();

const float l_52 = l_mut_32 * l_7;
const float l_53 = l_42 * l_42;
const float l_54 = l_52 - l_53;
const float l_55 = l_54 + info.scalars_float[0];
const float l_56 = sqrt(l_55);
const float l_57 = float(1.0) / l_56;
if (l_2) {
l_mut_10 = threadIdx.x;
while (true) {
const bool l_58 = l_mut_10 < l_4;
const bool l_59 = !l_58;
if (l_59) {
break;}
const uint32 l_60 = l_5 + l_mut_10;
const float l_61 = buffer_0[l_60];
const float l_62 = l_61 - l_25;
const float l_63 = l_62 - l_42;
const float l_64 = l_63 * l_57;
const float l_65 = buffer_1[l_mut_10];
const float l_66 = l_64 * l_65;
const float l_67 = buffer_2[l_mut_10];
const float l_68 = l_66 + l_67;
buffer_3[l_60] = l_68;
l_mut_10 = l_mut_10 + uint32(32);
}
}

}
