// Generated from cubecl/src/neighbor_agg.rs by CubeCL 0.10.0 for sm_90: do not edit.
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
    uint32 scalars_uint32[4];uint32 static_meta[8];
};


extern "C" __global__ void __launch_bounds__(256)neighbor_agg_mean_i64_kernel (
    const int64* __restrict__ buffer_0, const int64* __restrict__ buffer_1, const float* __restrict__ buffer_2, float* buffer_3, const __grid_constant__ info_st info
) {
uint32 l_arr_21[8];

float l_arr_62[8];

float l_mut_17;
uint32 l_mut_14;
uint32 l_mut_18;
const uint32 l_0 = info.scalars_uint32[1] / uint32(1);
const uint32 l_1 = blockIdx.y * gridDim.x;
const uint32 l_2 = l_1 + blockIdx.x;
const uint32 l_3 = blockDim.x / info.scalars_uint32[2];
const uint32 l_4 = l_2 * l_3;
const uint32 l_5 = threadIdx.x / info.scalars_uint32[2];
const uint32 l_6 = l_4 + l_5;
const bool l_7 = l_6 < info.scalars_uint32[0];
if (l_7) {
const int64 l_8 = buffer_0[l_6];
const uint32 l_9 = uint32(l_8);
const uint32 l_10 = l_6 + uint32(1);
const int64 l_11 = buffer_0[l_10];
const uint32 l_12 = uint32(l_11);
const uint32 l_13 = threadIdx.x % info.scalars_uint32[2];
l_mut_14 = l_13;
while (true) {
const bool l_15 = l_mut_14 < l_0;
const bool l_16 = !l_15;
if (l_16) {
break;}
l_mut_17 = float(0.0);
l_mut_18 = l_9;
while (true) {
const bool l_19 = l_mut_18 < l_12;
const bool l_20 = !l_19;
if (l_20) {
break;}
l_arr_21[uint32(0)] = uint32(0);
const uint32 l_22 = l_mut_18 + uint32(0);
const bool l_23 = l_22 < l_12;
if (l_23) {
const uint32 l_24 = l_mut_18 + uint32(0);
const int64 l_25 = buffer_1[l_24];
const uint32 l_26 = uint32(l_25);
l_arr_21[uint32(0)] = l_26;
}
l_arr_21[uint32(1)] = uint32(0);
const uint32 l_27 = l_mut_18 + uint32(1);
const bool l_28 = l_27 < l_12;
if (l_28) {
const uint32 l_29 = l_mut_18 + uint32(1);
const int64 l_30 = buffer_1[l_29];
const uint32 l_31 = uint32(l_30);
l_arr_21[uint32(1)] = l_31;
}
l_arr_21[uint32(2)] = uint32(0);
const uint32 l_32 = l_mut_18 + uint32(2);
const bool l_33 = l_32 < l_12;
if (l_33) {
const uint32 l_34 = l_mut_18 + uint32(2);
const int64 l_35 = buffer_1[l_34];
const uint32 l_36 = uint32(l_35);
l_arr_21[uint32(2)] = l_36;
}
l_arr_21[uint32(3)] = uint32(0);
const uint32 l_37 = l_mut_18 + uint32(3);
const bool l_38 = l_37 < l_12;
if (l_38) {
const uint32 l_39 = l_mut_18 + uint32(3);
const int64 l_40 = buffer_1[l_39];
const uint32 l_41 = uint32(l_40);
l_arr_21[uint32(3)] = l_41;
}
l_arr_21[uint32(4)] = uint32(0);
const uint32 l_42 = l_mut_18 + uint32(4);
const bool l_43 = l_42 < l_12;
if (l_43) {
const uint32 l_44 = l_mut_18 + uint32(4);
const int64 l_45 = buffer_1[l_44];
const uint32 l_46 = uint32(l_45);
l_arr_21[uint32(4)] = l_46;
}
l_arr_21[uint32(5)] = uint32(0);
const uint32 l_47 = l_mut_18 + uint32(5);
const bool l_48 = l_47 < l_12;
if (l_48) {
const uint32 l_49 = l_mut_18 + uint32(5);
const int64 l_50 = buffer_1[l_49];
const uint32 l_51 = uint32(l_50);
l_arr_21[uint32(5)] = l_51;
}
l_arr_21[uint32(6)] = uint32(0);
const uint32 l_52 = l_mut_18 + uint32(6);
const bool l_53 = l_52 < l_12;
if (l_53) {
const uint32 l_54 = l_mut_18 + uint32(6);
const int64 l_55 = buffer_1[l_54];
const uint32 l_56 = uint32(l_55);
l_arr_21[uint32(6)] = l_56;
}
l_arr_21[uint32(7)] = uint32(0);
const uint32 l_57 = l_mut_18 + uint32(7);
const bool l_58 = l_57 < l_12;
if (l_58) {
const uint32 l_59 = l_mut_18 + uint32(7);
const int64 l_60 = buffer_1[l_59];
const uint32 l_61 = uint32(l_60);
l_arr_21[uint32(7)] = l_61;
}
l_arr_62[uint32(0)] = float(0.0);
const uint32 l_63 = l_mut_18 + uint32(0);
const bool l_64 = l_63 < l_12;
if (l_64) {
const uint32 l_65 = l_arr_21[uint32(0)];
const uint32 l_66 = l_65 * l_0;
const uint32 l_67 = l_66 + l_mut_14;
const float l_68 = buffer_2[l_67];
l_arr_62[uint32(0)] = l_68;
}
l_arr_62[uint32(1)] = float(0.0);
const uint32 l_69 = l_mut_18 + uint32(1);
const bool l_70 = l_69 < l_12;
if (l_70) {
const uint32 l_71 = l_arr_21[uint32(1)];
const uint32 l_72 = l_71 * l_0;
const uint32 l_73 = l_72 + l_mut_14;
const float l_74 = buffer_2[l_73];
l_arr_62[uint32(1)] = l_74;
}
l_arr_62[uint32(2)] = float(0.0);
const uint32 l_75 = l_mut_18 + uint32(2);
const bool l_76 = l_75 < l_12;
if (l_76) {
const uint32 l_77 = l_arr_21[uint32(2)];
const uint32 l_78 = l_77 * l_0;
const uint32 l_79 = l_78 + l_mut_14;
const float l_80 = buffer_2[l_79];
l_arr_62[uint32(2)] = l_80;
}
l_arr_62[uint32(3)] = float(0.0);
const uint32 l_81 = l_mut_18 + uint32(3);
const bool l_82 = l_81 < l_12;
if (l_82) {
const uint32 l_83 = l_arr_21[uint32(3)];
const uint32 l_84 = l_83 * l_0;
const uint32 l_85 = l_84 + l_mut_14;
const float l_86 = buffer_2[l_85];
l_arr_62[uint32(3)] = l_86;
}
l_arr_62[uint32(4)] = float(0.0);
const uint32 l_87 = l_mut_18 + uint32(4);
const bool l_88 = l_87 < l_12;
if (l_88) {
const uint32 l_89 = l_arr_21[uint32(4)];
const uint32 l_90 = l_89 * l_0;
const uint32 l_91 = l_90 + l_mut_14;
const float l_92 = buffer_2[l_91];
l_arr_62[uint32(4)] = l_92;
}
l_arr_62[uint32(5)] = float(0.0);
const uint32 l_93 = l_mut_18 + uint32(5);
const bool l_94 = l_93 < l_12;
if (l_94) {
const uint32 l_95 = l_arr_21[uint32(5)];
const uint32 l_96 = l_95 * l_0;
const uint32 l_97 = l_96 + l_mut_14;
const float l_98 = buffer_2[l_97];
l_arr_62[uint32(5)] = l_98;
}
l_arr_62[uint32(6)] = float(0.0);
const uint32 l_99 = l_mut_18 + uint32(6);
const bool l_100 = l_99 < l_12;
if (l_100) {
const uint32 l_101 = l_arr_21[uint32(6)];
const uint32 l_102 = l_101 * l_0;
const uint32 l_103 = l_102 + l_mut_14;
const float l_104 = buffer_2[l_103];
l_arr_62[uint32(6)] = l_104;
}
l_arr_62[uint32(7)] = float(0.0);
const uint32 l_105 = l_mut_18 + uint32(7);
const bool l_106 = l_105 < l_12;
if (l_106) {
const uint32 l_107 = l_arr_21[uint32(7)];
const uint32 l_108 = l_107 * l_0;
const uint32 l_109 = l_108 + l_mut_14;
const float l_110 = buffer_2[l_109];
l_arr_62[uint32(7)] = l_110;
}
const float l_111 = l_arr_62[uint32(0)];
l_mut_17 = l_mut_17 + l_111;
const float l_112 = l_arr_62[uint32(1)];
l_mut_17 = l_mut_17 + l_112;
const float l_113 = l_arr_62[uint32(2)];
l_mut_17 = l_mut_17 + l_113;
const float l_114 = l_arr_62[uint32(3)];
l_mut_17 = l_mut_17 + l_114;
const float l_115 = l_arr_62[uint32(4)];
l_mut_17 = l_mut_17 + l_115;
const float l_116 = l_arr_62[uint32(5)];
l_mut_17 = l_mut_17 + l_116;
const float l_117 = l_arr_62[uint32(6)];
l_mut_17 = l_mut_17 + l_117;
const float l_118 = l_arr_62[uint32(7)];
l_mut_17 = l_mut_17 + l_118;
l_mut_18 = l_mut_18 + uint32(8);
}
const bool l_119 = l_12 > l_9;
if (l_119) {
const uint32 l_120 = l_12 - l_9;
const float l_121 = float(l_120);
const float l_122 = l_mut_17 / l_121;
l_mut_17 = l_122;
}
const uint32 l_123 = l_6 * l_0;
const uint32 l_124 = l_123 + l_mut_14;
buffer_3[l_124] = l_mut_17;
l_mut_14 = l_mut_14 + info.scalars_uint32[2];
}
}

}
