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

struct __align__(16) float_4 {
    float i_0;
    float i_1;
    float i_2;
    float i_3;
};
struct info_st {
    uint32 scalars_uint32[4];uint32 static_meta[8];
};


extern "C" __global__ void __launch_bounds__(256)neighbor_agg_mean_i64_kernel_x4 (
    const int64* __restrict__ buffer_0, const int64* __restrict__ buffer_1, const float_4* __restrict__ buffer_2, float_4* buffer_3, const __grid_constant__ info_st info
) {
uint32 l_arr_22[8];

float_4 l_arr_63[8];

float_4 l_mut_18;
uint32 l_mut_14;
uint32 l_mut_19;
const uint32 l_0 = info.scalars_uint32[1] / uint32(4);
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
const float_4 l_17 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_18 = l_17;
l_mut_19 = l_9;
while (true) {
const bool l_20 = l_mut_19 < l_12;
const bool l_21 = !l_20;
if (l_21) {
break;}
l_arr_22[uint32(0)] = uint32(0);
const uint32 l_23 = l_mut_19 + uint32(0);
const bool l_24 = l_23 < l_12;
if (l_24) {
const uint32 l_25 = l_mut_19 + uint32(0);
const int64 l_26 = buffer_1[l_25];
const uint32 l_27 = uint32(l_26);
l_arr_22[uint32(0)] = l_27;
}
l_arr_22[uint32(1)] = uint32(0);
const uint32 l_28 = l_mut_19 + uint32(1);
const bool l_29 = l_28 < l_12;
if (l_29) {
const uint32 l_30 = l_mut_19 + uint32(1);
const int64 l_31 = buffer_1[l_30];
const uint32 l_32 = uint32(l_31);
l_arr_22[uint32(1)] = l_32;
}
l_arr_22[uint32(2)] = uint32(0);
const uint32 l_33 = l_mut_19 + uint32(2);
const bool l_34 = l_33 < l_12;
if (l_34) {
const uint32 l_35 = l_mut_19 + uint32(2);
const int64 l_36 = buffer_1[l_35];
const uint32 l_37 = uint32(l_36);
l_arr_22[uint32(2)] = l_37;
}
l_arr_22[uint32(3)] = uint32(0);
const uint32 l_38 = l_mut_19 + uint32(3);
const bool l_39 = l_38 < l_12;
if (l_39) {
const uint32 l_40 = l_mut_19 + uint32(3);
const int64 l_41 = buffer_1[l_40];
const uint32 l_42 = uint32(l_41);
l_arr_22[uint32(3)] = l_42;
}
l_arr_22[uint32(4)] = uint32(0);
const uint32 l_43 = l_mut_19 + uint32(4);
const bool l_44 = l_43 < l_12;
if (l_44) {
const uint32 l_45 = l_mut_19 + uint32(4);
const int64 l_46 = buffer_1[l_45];
const uint32 l_47 = uint32(l_46);
l_arr_22[uint32(4)] = l_47;
}
l_arr_22[uint32(5)] = uint32(0);
const uint32 l_48 = l_mut_19 + uint32(5);
const bool l_49 = l_48 < l_12;
if (l_49) {
const uint32 l_50 = l_mut_19 + uint32(5);
const int64 l_51 = buffer_1[l_50];
const uint32 l_52 = uint32(l_51);
l_arr_22[uint32(5)] = l_52;
}
l_arr_22[uint32(6)] = uint32(0);
const uint32 l_53 = l_mut_19 + uint32(6);
const bool l_54 = l_53 < l_12;
if (l_54) {
const uint32 l_55 = l_mut_19 + uint32(6);
const int64 l_56 = buffer_1[l_55];
const uint32 l_57 = uint32(l_56);
l_arr_22[uint32(6)] = l_57;
}
l_arr_22[uint32(7)] = uint32(0);
const uint32 l_58 = l_mut_19 + uint32(7);
const bool l_59 = l_58 < l_12;
if (l_59) {
const uint32 l_60 = l_mut_19 + uint32(7);
const int64 l_61 = buffer_1[l_60];
const uint32 l_62 = uint32(l_61);
l_arr_22[uint32(7)] = l_62;
}
const float_4 l_64 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(0)] = reinterpret_cast< float_4 const&>(l_64);
const uint32 l_65 = l_mut_19 + uint32(0);
const bool l_66 = l_65 < l_12;
if (l_66) {
const uint32 l_67 = l_arr_22[uint32(0)];
const uint32 l_68 = l_67 * l_0;
const uint32 l_69 = l_68 + l_mut_14;
const float_4 l_70 = buffer_2[l_69];
l_arr_63[uint32(0)] = reinterpret_cast< float_4 const&>(l_70);
}
const float_4 l_71 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(1)] = reinterpret_cast< float_4 const&>(l_71);
const uint32 l_72 = l_mut_19 + uint32(1);
const bool l_73 = l_72 < l_12;
if (l_73) {
const uint32 l_74 = l_arr_22[uint32(1)];
const uint32 l_75 = l_74 * l_0;
const uint32 l_76 = l_75 + l_mut_14;
const float_4 l_77 = buffer_2[l_76];
l_arr_63[uint32(1)] = reinterpret_cast< float_4 const&>(l_77);
}
const float_4 l_78 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(2)] = reinterpret_cast< float_4 const&>(l_78);
const uint32 l_79 = l_mut_19 + uint32(2);
const bool l_80 = l_79 < l_12;
if (l_80) {
const uint32 l_81 = l_arr_22[uint32(2)];
const uint32 l_82 = l_81 * l_0;
const uint32 l_83 = l_82 + l_mut_14;
const float_4 l_84 = buffer_2[l_83];
l_arr_63[uint32(2)] = reinterpret_cast< float_4 const&>(l_84);
}
const float_4 l_85 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(3)] = reinterpret_cast< float_4 const&>(l_85);
const uint32 l_86 = l_mut_19 + uint32(3);
const bool l_87 = l_86 < l_12;
if (l_87) {
const uint32 l_88 = l_arr_22[uint32(3)];
const uint32 l_89 = l_88 * l_0;
const uint32 l_90 = l_89 + l_mut_14;
const float_4 l_91 = buffer_2[l_90];
l_arr_63[uint32(3)] = reinterpret_cast< float_4 const&>(l_91);
}
const float_4 l_92 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(4)] = reinterpret_cast< float_4 const&>(l_92);
const uint32 l_93 = l_mut_19 + uint32(4);
const bool l_94 = l_93 < l_12;
if (l_94) {
const uint32 l_95 = l_arr_22[uint32(4)];
const uint32 l_96 = l_95 * l_0;
const uint32 l_97 = l_96 + l_mut_14;
const float_4 l_98 = buffer_2[l_97];
l_arr_63[uint32(4)] = reinterpret_cast< float_4 const&>(l_98);
}
const float_4 l_99 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(5)] = reinterpret_cast< float_4 const&>(l_99);
const uint32 l_100 = l_mut_19 + uint32(5);
const bool l_101 = l_100 < l_12;
if (l_101) {
const uint32 l_102 = l_arr_22[uint32(5)];
const uint32 l_103 = l_102 * l_0;
const uint32 l_104 = l_103 + l_mut_14;
const float_4 l_105 = buffer_2[l_104];
l_arr_63[uint32(5)] = reinterpret_cast< float_4 const&>(l_105);
}
const float_4 l_106 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(6)] = reinterpret_cast< float_4 const&>(l_106);
const uint32 l_107 = l_mut_19 + uint32(6);
const bool l_108 = l_107 < l_12;
if (l_108) {
const uint32 l_109 = l_arr_22[uint32(6)];
const uint32 l_110 = l_109 * l_0;
const uint32 l_111 = l_110 + l_mut_14;
const float_4 l_112 = buffer_2[l_111];
l_arr_63[uint32(6)] = reinterpret_cast< float_4 const&>(l_112);
}
const float_4 l_113 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_63[uint32(7)] = reinterpret_cast< float_4 const&>(l_113);
const uint32 l_114 = l_mut_19 + uint32(7);
const bool l_115 = l_114 < l_12;
if (l_115) {
const uint32 l_116 = l_arr_22[uint32(7)];
const uint32 l_117 = l_116 * l_0;
const uint32 l_118 = l_117 + l_mut_14;
const float_4 l_119 = buffer_2[l_118];
l_arr_63[uint32(7)] = reinterpret_cast< float_4 const&>(l_119);
}
const float_4 l_120 = l_arr_63[uint32(0)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_120.i_0, l_mut_18.i_1 + l_120.i_1, l_mut_18.i_2 + l_120.i_2, l_mut_18.i_3 + l_120.i_3, };
const float_4 l_121 = l_arr_63[uint32(1)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_121.i_0, l_mut_18.i_1 + l_121.i_1, l_mut_18.i_2 + l_121.i_2, l_mut_18.i_3 + l_121.i_3, };
const float_4 l_122 = l_arr_63[uint32(2)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_122.i_0, l_mut_18.i_1 + l_122.i_1, l_mut_18.i_2 + l_122.i_2, l_mut_18.i_3 + l_122.i_3, };
const float_4 l_123 = l_arr_63[uint32(3)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_123.i_0, l_mut_18.i_1 + l_123.i_1, l_mut_18.i_2 + l_123.i_2, l_mut_18.i_3 + l_123.i_3, };
const float_4 l_124 = l_arr_63[uint32(4)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_124.i_0, l_mut_18.i_1 + l_124.i_1, l_mut_18.i_2 + l_124.i_2, l_mut_18.i_3 + l_124.i_3, };
const float_4 l_125 = l_arr_63[uint32(5)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_125.i_0, l_mut_18.i_1 + l_125.i_1, l_mut_18.i_2 + l_125.i_2, l_mut_18.i_3 + l_125.i_3, };
const float_4 l_126 = l_arr_63[uint32(6)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_126.i_0, l_mut_18.i_1 + l_126.i_1, l_mut_18.i_2 + l_126.i_2, l_mut_18.i_3 + l_126.i_3, };
const float_4 l_127 = l_arr_63[uint32(7)];
l_mut_18 = float_4{
l_mut_18.i_0 + l_127.i_0, l_mut_18.i_1 + l_127.i_1, l_mut_18.i_2 + l_127.i_2, l_mut_18.i_3 + l_127.i_3, };
l_mut_19 = l_mut_19 + uint32(8);
}
const bool l_128 = l_12 > l_9;
if (l_128) {
const uint32 l_129 = l_12 - l_9;
const float l_130 = float(l_129);
const float_4 l_131 = float_4{
l_130,l_130,l_130,l_130,};
const float_4 l_132 = float_4{
l_mut_18.i_0 / l_131.i_0, l_mut_18.i_1 / l_131.i_1, l_mut_18.i_2 / l_131.i_2, l_mut_18.i_3 / l_131.i_3, };
l_mut_18 = l_132;
}
const uint32 l_133 = l_6 * l_0;
const uint32 l_134 = l_133 + l_mut_14;
buffer_3[l_134] = l_mut_18;
l_mut_14 = l_mut_14 + info.scalars_uint32[2];
}
}

}
