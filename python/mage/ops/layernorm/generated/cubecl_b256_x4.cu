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

struct __align__(16) float_4 {
    float i_0;
    float i_1;
    float i_2;
    float i_3;
};
struct info_st {
    float scalars_float[2];
uint32 scalars_uint32[2];uint32 static_meta[8];
};


extern "C" __global__ void __launch_bounds__(256)layernorm_kernel_x4 (
    const float_4* __restrict__ buffer_0, const float_4* __restrict__ buffer_1, const float_4* __restrict__ buffer_2, float_4* buffer_3, const __grid_constant__ info_st info
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
float *shared_memory_8 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
float l_mut_16;
float_4 l_mut_10;
float_4 l_mut_33;
uint32 l_mut_11;
const uint32 l_0 = blockIdx.y * gridDim.x;
const uint32 l_1 = l_0 + blockIdx.x;
const bool l_2 = l_1 < info.scalars_uint32[0];
const uint32 l_3 = (l_2) ? l_1 : uint32(0);
const uint32 l_4 = info.scalars_uint32[1] / uint32(4);
const uint32 l_5 = l_3 * l_4;
const float l_6 = float(info.scalars_uint32[1]);
const float l_7 = float(1.0) / l_6;
const float_4 l_9 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_10 = l_9;
l_mut_11 = threadIdx.x;
while (true) {
const bool l_12 = l_mut_11 < l_4;
const bool l_13 = !l_12;
if (l_13) {
break;}
const uint32 l_14 = l_5 + l_mut_11;
const float_4 l_15 = buffer_0[l_14];
l_mut_10 = float_4{
l_mut_10.i_0 + l_15.i_0, l_mut_10.i_1 + l_15.i_1, l_mut_10.i_2 + l_15.i_2, l_mut_10.i_3 + l_15.i_3, };
l_mut_11 = l_mut_11 + uint32(256);
}
l_mut_16 = float(0.0);
const float l_17 = l_mut_10.i_0;
l_mut_16 = l_mut_16 + l_17;
const float l_18 = l_mut_10.i_1;
l_mut_16 = l_mut_16 + l_18;
const float l_19 = l_mut_10.i_2;
l_mut_16 = l_mut_16 + l_19;
const float l_20 = l_mut_10.i_3;
l_mut_16 = l_mut_16 + l_20;
auto plane_l_21 = [&]() -> float {
    float acc = l_mut_16;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_21 = plane_l_21();
const bool l_22 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_22) {
const uint32 l_23 = threadIdx.x / warpSize;
shared_memory_8[l_23] = l_21;
}
__syncthreads();

const float l_24 = shared_memory_8[uint32(0)];
l_mut_16 = l_24;
const uint32 l_25 = blockDim.x / warpSize;

for (uint32 l_mut_26 = uint32(1); l_mut_26 < l_25; ++l_mut_26) {
const float l_27 = shared_memory_8[l_mut_26];
const float l_28 = l_mut_16 + l_27;
l_mut_16 = l_28;
}
__syncthreads();

const float l_29 = l_mut_16 * l_7;
const float_4 l_30 = float_4{
l_29,l_29,l_29,l_29,};
const float_4 l_31 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_10 = l_31;
const float_4 l_32 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_33 = l_32;
l_mut_11 = threadIdx.x;
while (true) {
const bool l_34 = l_mut_11 < l_4;
const bool l_35 = !l_34;
if (l_35) {
break;}
const uint32 l_36 = l_5 + l_mut_11;
const float_4 l_37 = buffer_0[l_36];
const float_4 l_38 = float_4{
l_37.i_0 - l_30.i_0, l_37.i_1 - l_30.i_1, l_37.i_2 - l_30.i_2, l_37.i_3 - l_30.i_3, };
l_mut_10 = float_4{
l_mut_10.i_0 + l_38.i_0, l_mut_10.i_1 + l_38.i_1, l_mut_10.i_2 + l_38.i_2, l_mut_10.i_3 + l_38.i_3, };
const float_4 l_39 = float_4{
l_38.i_0 * l_38.i_0, l_38.i_1 * l_38.i_1, l_38.i_2 * l_38.i_2, l_38.i_3 * l_38.i_3, };
l_mut_33 = float_4{
l_mut_33.i_0 + l_39.i_0, l_mut_33.i_1 + l_39.i_1, l_mut_33.i_2 + l_39.i_2, l_mut_33.i_3 + l_39.i_3, };
l_mut_11 = l_mut_11 + uint32(256);
}
l_mut_16 = float(0.0);
const float l_40 = l_mut_10.i_0;
l_mut_16 = l_mut_16 + l_40;
const float l_41 = l_mut_10.i_1;
l_mut_16 = l_mut_16 + l_41;
const float l_42 = l_mut_10.i_2;
l_mut_16 = l_mut_16 + l_42;
const float l_43 = l_mut_10.i_3;
l_mut_16 = l_mut_16 + l_43;
auto plane_l_44 = [&]() -> float {
    float acc = l_mut_16;
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
l_mut_16 = l_47;
const uint32 l_48 = blockDim.x / warpSize;

for (uint32 l_mut_49 = uint32(1); l_mut_49 < l_48; ++l_mut_49) {
const float l_50 = shared_memory_8[l_mut_49];
const float l_51 = l_mut_16 + l_50;
l_mut_16 = l_51;
}
__syncthreads();

const float l_52 = l_mut_16 * l_7;
l_mut_16 = float(0.0);
const float l_53 = l_mut_33.i_0;
l_mut_16 = l_mut_16 + l_53;
const float l_54 = l_mut_33.i_1;
l_mut_16 = l_mut_16 + l_54;
const float l_55 = l_mut_33.i_2;
l_mut_16 = l_mut_16 + l_55;
const float l_56 = l_mut_33.i_3;
l_mut_16 = l_mut_16 + l_56;
auto plane_l_57 = [&]() -> float {
    float acc = l_mut_16;
    for (uint offset = 1; offset < warpSizeChecked; offset *=2 ) {
acc += __shfl_xor_sync(-1, acc, offset);
    };
    return acc;
};
const float l_57 = plane_l_57();
const bool l_58 = uint32(idxGlobal) % warpSize == uint32(0);
if (l_58) {
const uint32 l_59 = threadIdx.x / warpSize;
shared_memory_8[l_59] = l_57;
}
__syncthreads();

const float l_60 = shared_memory_8[uint32(0)];
l_mut_16 = l_60;
const uint32 l_61 = blockDim.x / warpSize;

for (uint32 l_mut_62 = uint32(1); l_mut_62 < l_61; ++l_mut_62) {
const float l_63 = shared_memory_8[l_mut_62];
const float l_64 = l_mut_16 + l_63;
l_mut_16 = l_64;
}
__syncthreads();

const float l_65 = l_mut_16 * l_7;
const float l_66 = l_52 * l_52;
const float l_67 = l_65 - l_66;
const float l_68 = l_67 + info.scalars_float[0];
const float l_69 = sqrt(l_68);
const float l_70 = float(1.0) / l_69;
const float_4 l_71 = float_4{
l_70,l_70,l_70,l_70,};
const float_4 l_72 = float_4{
l_52,l_52,l_52,l_52,};
if (l_2) {
l_mut_11 = threadIdx.x;
while (true) {
const bool l_73 = l_mut_11 < l_4;
const bool l_74 = !l_73;
if (l_74) {
break;}
const uint32 l_75 = l_5 + l_mut_11;
const float_4 l_76 = buffer_0[l_75];
const float_4 l_77 = float_4{
l_76.i_0 - l_30.i_0, l_76.i_1 - l_30.i_1, l_76.i_2 - l_30.i_2, l_76.i_3 - l_30.i_3, };
const float_4 l_78 = float_4{
l_77.i_0 - l_72.i_0, l_77.i_1 - l_72.i_1, l_77.i_2 - l_72.i_2, l_77.i_3 - l_72.i_3, };
const float_4 l_79 = float_4{
l_78.i_0 * l_71.i_0, l_78.i_1 * l_71.i_1, l_78.i_2 * l_71.i_2, l_78.i_3 * l_71.i_3, };
const float_4 l_80 = buffer_1[l_mut_11];
const float_4 l_81 = float_4{
l_79.i_0 * l_80.i_0, l_79.i_1 * l_80.i_1, l_79.i_2 * l_80.i_2, l_79.i_3 * l_80.i_3, };
const float_4 l_82 = buffer_2[l_mut_11];
const float_4 l_83 = float_4{
l_81.i_0 + l_82.i_0, l_81.i_1 + l_82.i_1, l_81.i_2 + l_82.i_2, l_81.i_3 + l_82.i_3, };
buffer_3[l_75] = reinterpret_cast< float_4 const&>(l_83);
l_mut_11 = l_mut_11 + uint32(256);
}
}

}
