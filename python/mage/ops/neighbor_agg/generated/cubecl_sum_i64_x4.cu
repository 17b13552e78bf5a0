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


extern "C" __global__ void __launch_bounds__(256)neighbor_agg_sum_i64_kernel_x4 (
    const int64* __restrict__ buffer_0, const int64* __restrict__ buffer_1, const float_4* __restrict__ buffer_2, float_4* buffer_3, const __grid_constant__ info_st info
) {
extern __shared__ __align__(16) uint8 dynamic_shared_mem[];
// Shared array size: 256, 4096 bytes
float_4 *shared_memory_159 = reinterpret_cast<float_4*>(&dynamic_shared_mem[0]);
uint32 l_arr_24[8];

float_4 l_arr_81[8];

uint32 l_arr_184[8];

float_4 l_arr_241[8];

float_4 l_mut_158;
float_4 l_mut_20;
uint32 l_mut_16;
uint32 l_mut_21;
const uint32 l_0 = info.scalars_uint32[1] / uint32(4);
const uint32 l_1 = blockIdx.y * gridDim.x;
const uint32 l_2 = l_1 + blockIdx.x;
const uint32 l_3 = blockDim.x / info.scalars_uint32[2];
const uint32 l_4 = l_2 * l_3;
const uint32 l_5 = threadIdx.x / info.scalars_uint32[2];
const uint32 l_6 = threadIdx.x % info.scalars_uint32[2];
const uint32 l_7 = l_4 + l_5;
const bool l_8 = l_7 < info.scalars_uint32[0];
if (l_8) {
const int64 l_9 = buffer_0[l_7];
const uint32 l_10 = uint32(l_9);
const uint32 l_11 = l_7 + uint32(1);
const int64 l_12 = buffer_0[l_11];
const uint32 l_13 = uint32(l_12);
const uint32 l_14 = l_13 - l_10;
const bool l_15 = l_14 <= info.scalars_uint32[3];
if (l_15) {
l_mut_16 = l_6;
while (true) {
const bool l_17 = l_mut_16 < l_0;
const bool l_18 = !l_17;
if (l_18) {
break;}
const float_4 l_19 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_20 = l_19;
l_mut_21 = l_10;
while (true) {
const bool l_22 = l_mut_21 < l_13;
const bool l_23 = !l_22;
if (l_23) {
break;}
l_arr_24[uint32(0)] = uint32(0);
const uint32 l_25 = uint32(0) * uint32(1);
const uint32 l_26 = l_mut_21 + l_25;
const bool l_27 = l_26 < l_13;
if (l_27) {
const uint32 l_28 = uint32(0) * uint32(1);
const uint32 l_29 = l_mut_21 + l_28;
const int64 l_30 = buffer_1[l_29];
const uint32 l_31 = uint32(l_30);
l_arr_24[uint32(0)] = l_31;
}
l_arr_24[uint32(1)] = uint32(0);
const uint32 l_32 = uint32(1) * uint32(1);
const uint32 l_33 = l_mut_21 + l_32;
const bool l_34 = l_33 < l_13;
if (l_34) {
const uint32 l_35 = uint32(1) * uint32(1);
const uint32 l_36 = l_mut_21 + l_35;
const int64 l_37 = buffer_1[l_36];
const uint32 l_38 = uint32(l_37);
l_arr_24[uint32(1)] = l_38;
}
l_arr_24[uint32(2)] = uint32(0);
const uint32 l_39 = uint32(2) * uint32(1);
const uint32 l_40 = l_mut_21 + l_39;
const bool l_41 = l_40 < l_13;
if (l_41) {
const uint32 l_42 = uint32(2) * uint32(1);
const uint32 l_43 = l_mut_21 + l_42;
const int64 l_44 = buffer_1[l_43];
const uint32 l_45 = uint32(l_44);
l_arr_24[uint32(2)] = l_45;
}
l_arr_24[uint32(3)] = uint32(0);
const uint32 l_46 = uint32(3) * uint32(1);
const uint32 l_47 = l_mut_21 + l_46;
const bool l_48 = l_47 < l_13;
if (l_48) {
const uint32 l_49 = uint32(3) * uint32(1);
const uint32 l_50 = l_mut_21 + l_49;
const int64 l_51 = buffer_1[l_50];
const uint32 l_52 = uint32(l_51);
l_arr_24[uint32(3)] = l_52;
}
l_arr_24[uint32(4)] = uint32(0);
const uint32 l_53 = uint32(4) * uint32(1);
const uint32 l_54 = l_mut_21 + l_53;
const bool l_55 = l_54 < l_13;
if (l_55) {
const uint32 l_56 = uint32(4) * uint32(1);
const uint32 l_57 = l_mut_21 + l_56;
const int64 l_58 = buffer_1[l_57];
const uint32 l_59 = uint32(l_58);
l_arr_24[uint32(4)] = l_59;
}
l_arr_24[uint32(5)] = uint32(0);
const uint32 l_60 = uint32(5) * uint32(1);
const uint32 l_61 = l_mut_21 + l_60;
const bool l_62 = l_61 < l_13;
if (l_62) {
const uint32 l_63 = uint32(5) * uint32(1);
const uint32 l_64 = l_mut_21 + l_63;
const int64 l_65 = buffer_1[l_64];
const uint32 l_66 = uint32(l_65);
l_arr_24[uint32(5)] = l_66;
}
l_arr_24[uint32(6)] = uint32(0);
const uint32 l_67 = uint32(6) * uint32(1);
const uint32 l_68 = l_mut_21 + l_67;
const bool l_69 = l_68 < l_13;
if (l_69) {
const uint32 l_70 = uint32(6) * uint32(1);
const uint32 l_71 = l_mut_21 + l_70;
const int64 l_72 = buffer_1[l_71];
const uint32 l_73 = uint32(l_72);
l_arr_24[uint32(6)] = l_73;
}
l_arr_24[uint32(7)] = uint32(0);
const uint32 l_74 = uint32(7) * uint32(1);
const uint32 l_75 = l_mut_21 + l_74;
const bool l_76 = l_75 < l_13;
if (l_76) {
const uint32 l_77 = uint32(7) * uint32(1);
const uint32 l_78 = l_mut_21 + l_77;
const int64 l_79 = buffer_1[l_78];
const uint32 l_80 = uint32(l_79);
l_arr_24[uint32(7)] = l_80;
}
const float_4 l_82 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(0)] = reinterpret_cast< float_4 const&>(l_82);
const uint32 l_83 = uint32(0) * uint32(1);
const uint32 l_84 = l_mut_21 + l_83;
const bool l_85 = l_84 < l_13;
if (l_85) {
const uint32 l_86 = l_arr_24[uint32(0)];
const uint32 l_87 = l_86 * l_0;
const uint32 l_88 = l_87 + l_mut_16;
const float_4 l_89 = buffer_2[l_88];
l_arr_81[uint32(0)] = reinterpret_cast< float_4 const&>(l_89);
}
const float_4 l_90 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(1)] = reinterpret_cast< float_4 const&>(l_90);
const uint32 l_91 = uint32(1) * uint32(1);
const uint32 l_92 = l_mut_21 + l_91;
const bool l_93 = l_92 < l_13;
if (l_93) {
const uint32 l_94 = l_arr_24[uint32(1)];
const uint32 l_95 = l_94 * l_0;
const uint32 l_96 = l_95 + l_mut_16;
const float_4 l_97 = buffer_2[l_96];
l_arr_81[uint32(1)] = reinterpret_cast< float_4 const&>(l_97);
}
const float_4 l_98 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(2)] = reinterpret_cast< float_4 const&>(l_98);
const uint32 l_99 = uint32(2) * uint32(1);
const uint32 l_100 = l_mut_21 + l_99;
const bool l_101 = l_100 < l_13;
if (l_101) {
const uint32 l_102 = l_arr_24[uint32(2)];
const uint32 l_103 = l_102 * l_0;
const uint32 l_104 = l_103 + l_mut_16;
const float_4 l_105 = buffer_2[l_104];
l_arr_81[uint32(2)] = reinterpret_cast< float_4 const&>(l_105);
}
const float_4 l_106 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(3)] = reinterpret_cast< float_4 const&>(l_106);
const uint32 l_107 = uint32(3) * uint32(1);
const uint32 l_108 = l_mut_21 + l_107;
const bool l_109 = l_108 < l_13;
if (l_109) {
const uint32 l_110 = l_arr_24[uint32(3)];
const uint32 l_111 = l_110 * l_0;
const uint32 l_112 = l_111 + l_mut_16;
const float_4 l_113 = buffer_2[l_112];
l_arr_81[uint32(3)] = reinterpret_cast< float_4 const&>(l_113);
}
const float_4 l_114 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(4)] = reinterpret_cast< float_4 const&>(l_114);
const uint32 l_115 = uint32(4) * uint32(1);
const uint32 l_116 = l_mut_21 + l_115;
const bool l_117 = l_116 < l_13;
if (l_117) {
const uint32 l_118 = l_arr_24[uint32(4)];
const uint32 l_119 = l_118 * l_0;
const uint32 l_120 = l_119 + l_mut_16;
const float_4 l_121 = buffer_2[l_120];
l_arr_81[uint32(4)] = reinterpret_cast< float_4 const&>(l_121);
}
const float_4 l_122 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(5)] = reinterpret_cast< float_4 const&>(l_122);
const uint32 l_123 = uint32(5) * uint32(1);
const uint32 l_124 = l_mut_21 + l_123;
const bool l_125 = l_124 < l_13;
if (l_125) {
const uint32 l_126 = l_arr_24[uint32(5)];
const uint32 l_127 = l_126 * l_0;
const uint32 l_128 = l_127 + l_mut_16;
const float_4 l_129 = buffer_2[l_128];
l_arr_81[uint32(5)] = reinterpret_cast< float_4 const&>(l_129);
}
const float_4 l_130 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(6)] = reinterpret_cast< float_4 const&>(l_130);
const uint32 l_131 = uint32(6) * uint32(1);
const uint32 l_132 = l_mut_21 + l_131;
const bool l_133 = l_132 < l_13;
if (l_133) {
const uint32 l_134 = l_arr_24[uint32(6)];
const uint32 l_135 = l_134 * l_0;
const uint32 l_136 = l_135 + l_mut_16;
const float_4 l_137 = buffer_2[l_136];
l_arr_81[uint32(6)] = reinterpret_cast< float_4 const&>(l_137);
}
const float_4 l_138 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_81[uint32(7)] = reinterpret_cast< float_4 const&>(l_138);
const uint32 l_139 = uint32(7) * uint32(1);
const uint32 l_140 = l_mut_21 + l_139;
const bool l_141 = l_140 < l_13;
if (l_141) {
const uint32 l_142 = l_arr_24[uint32(7)];
const uint32 l_143 = l_142 * l_0;
const uint32 l_144 = l_143 + l_mut_16;
const float_4 l_145 = buffer_2[l_144];
l_arr_81[uint32(7)] = reinterpret_cast< float_4 const&>(l_145);
}
const float_4 l_146 = l_arr_81[uint32(0)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_146.i_0, l_mut_20.i_1 + l_146.i_1, l_mut_20.i_2 + l_146.i_2, l_mut_20.i_3 + l_146.i_3, };
const float_4 l_147 = l_arr_81[uint32(1)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_147.i_0, l_mut_20.i_1 + l_147.i_1, l_mut_20.i_2 + l_147.i_2, l_mut_20.i_3 + l_147.i_3, };
const float_4 l_148 = l_arr_81[uint32(2)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_148.i_0, l_mut_20.i_1 + l_148.i_1, l_mut_20.i_2 + l_148.i_2, l_mut_20.i_3 + l_148.i_3, };
const float_4 l_149 = l_arr_81[uint32(3)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_149.i_0, l_mut_20.i_1 + l_149.i_1, l_mut_20.i_2 + l_149.i_2, l_mut_20.i_3 + l_149.i_3, };
const float_4 l_150 = l_arr_81[uint32(4)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_150.i_0, l_mut_20.i_1 + l_150.i_1, l_mut_20.i_2 + l_150.i_2, l_mut_20.i_3 + l_150.i_3, };
const float_4 l_151 = l_arr_81[uint32(5)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_151.i_0, l_mut_20.i_1 + l_151.i_1, l_mut_20.i_2 + l_151.i_2, l_mut_20.i_3 + l_151.i_3, };
const float_4 l_152 = l_arr_81[uint32(6)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_152.i_0, l_mut_20.i_1 + l_152.i_1, l_mut_20.i_2 + l_152.i_2, l_mut_20.i_3 + l_152.i_3, };
const float_4 l_153 = l_arr_81[uint32(7)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_153.i_0, l_mut_20.i_1 + l_153.i_1, l_mut_20.i_2 + l_153.i_2, l_mut_20.i_3 + l_153.i_3, };
const uint32 l_154 = uint32(8) * uint32(1);
l_mut_21 = l_mut_21 + l_154;
}
const uint32 l_155 = l_7 * l_0;
const uint32 l_156 = l_155 + l_mut_16;
const uint32 l_157 = l_13 - l_10;
l_mut_158 = l_mut_20;
buffer_3[l_156] = l_mut_158;
l_mut_16 = l_mut_16 + info.scalars_uint32[2];
}
}
}
const bool l_160 = info.scalars_uint32[3] == uint32(4294967295);
const uint32 l_161 = (l_160) ? uint32(0) : l_3;

for (uint32 l_mut_162 = uint32(0); l_mut_162 < l_161; ++l_mut_162) {
const uint32 l_163 = l_4 + l_mut_162;
const bool l_164 = l_163 < info.scalars_uint32[0];
const uint32 l_165 = (l_164) ? l_163 : uint32(0);
const int64 l_166 = buffer_0[l_165];
const uint32 l_167 = uint32(l_166);
const uint32 l_168 = l_165 + uint32(1);
const int64 l_169 = buffer_0[l_168];
const uint32 l_170 = uint32(l_169);
const uint32 l_171 = l_170 - l_167;
const bool l_172 = l_171 > info.scalars_uint32[3];
const bool l_173 = l_164 && l_172;
l_mut_21 = uint32(0);
while (true) {
const bool l_174 = l_mut_21 < l_0;
const bool l_175 = !l_174;
if (l_175) {
break;}
const uint32 l_176 = l_mut_21 + l_6;
const float_4 l_177 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_158 = l_177;
const bool l_178 = l_176 < l_0;
const bool l_179 = l_173 && l_178;
if (l_179) {
const uint32 l_180 = l_167 + l_5;
const float_4 l_181 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_20 = l_181;
l_mut_16 = l_180;
while (true) {
const bool l_182 = l_mut_16 < l_170;
const bool l_183 = !l_182;
if (l_183) {
break;}
l_arr_184[uint32(0)] = uint32(0);
const uint32 l_185 = uint32(0) * l_3;
const uint32 l_186 = l_mut_16 + l_185;
const bool l_187 = l_186 < l_170;
if (l_187) {
const uint32 l_188 = uint32(0) * l_3;
const uint32 l_189 = l_mut_16 + l_188;
const int64 l_190 = buffer_1[l_189];
const uint32 l_191 = uint32(l_190);
l_arr_184[uint32(0)] = l_191;
}
l_arr_184[uint32(1)] = uint32(0);
const uint32 l_192 = uint32(1) * l_3;
const uint32 l_193 = l_mut_16 + l_192;
const bool l_194 = l_193 < l_170;
if (l_194) {
const uint32 l_195 = uint32(1) * l_3;
const uint32 l_196 = l_mut_16 + l_195;
const int64 l_197 = buffer_1[l_196];
const uint32 l_198 = uint32(l_197);
l_arr_184[uint32(1)] = l_198;
}
l_arr_184[uint32(2)] = uint32(0);
const uint32 l_199 = uint32(2) * l_3;
const uint32 l_200 = l_mut_16 + l_199;
const bool l_201 = l_200 < l_170;
if (l_201) {
const uint32 l_202 = uint32(2) * l_3;
const uint32 l_203 = l_mut_16 + l_202;
const int64 l_204 = buffer_1[l_203];
const uint32 l_205 = uint32(l_204);
l_arr_184[uint32(2)] = l_205;
}
l_arr_184[uint32(3)] = uint32(0);
const uint32 l_206 = uint32(3) * l_3;
const uint32 l_207 = l_mut_16 + l_206;
const bool l_208 = l_207 < l_170;
if (l_208) {
const uint32 l_209 = uint32(3) * l_3;
const uint32 l_210 = l_mut_16 + l_209;
const int64 l_211 = buffer_1[l_210];
const uint32 l_212 = uint32(l_211);
l_arr_184[uint32(3)] = l_212;
}
l_arr_184[uint32(4)] = uint32(0);
const uint32 l_213 = uint32(4) * l_3;
const uint32 l_214 = l_mut_16 + l_213;
const bool l_215 = l_214 < l_170;
if (l_215) {
const uint32 l_216 = uint32(4) * l_3;
const uint32 l_217 = l_mut_16 + l_216;
const int64 l_218 = buffer_1[l_217];
const uint32 l_219 = uint32(l_218);
l_arr_184[uint32(4)] = l_219;
}
l_arr_184[uint32(5)] = uint32(0);
const uint32 l_220 = uint32(5) * l_3;
const uint32 l_221 = l_mut_16 + l_220;
const bool l_222 = l_221 < l_170;
if (l_222) {
const uint32 l_223 = uint32(5) * l_3;
const uint32 l_224 = l_mut_16 + l_223;
const int64 l_225 = buffer_1[l_224];
const uint32 l_226 = uint32(l_225);
l_arr_184[uint32(5)] = l_226;
}
l_arr_184[uint32(6)] = uint32(0);
const uint32 l_227 = uint32(6) * l_3;
const uint32 l_228 = l_mut_16 + l_227;
const bool l_229 = l_228 < l_170;
if (l_229) {
const uint32 l_230 = uint32(6) * l_3;
const uint32 l_231 = l_mut_16 + l_230;
const int64 l_232 = buffer_1[l_231];
const uint32 l_233 = uint32(l_232);
l_arr_184[uint32(6)] = l_233;
}
l_arr_184[uint32(7)] = uint32(0);
const uint32 l_234 = uint32(7) * l_3;
const uint32 l_235 = l_mut_16 + l_234;
const bool l_236 = l_235 < l_170;
if (l_236) {
const uint32 l_237 = uint32(7) * l_3;
const uint32 l_238 = l_mut_16 + l_237;
const int64 l_239 = buffer_1[l_238];
const uint32 l_240 = uint32(l_239);
l_arr_184[uint32(7)] = l_240;
}
const float_4 l_242 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(0)] = reinterpret_cast< float_4 const&>(l_242);
const uint32 l_243 = uint32(0) * l_3;
const uint32 l_244 = l_mut_16 + l_243;
const bool l_245 = l_244 < l_170;
if (l_245) {
const uint32 l_246 = l_arr_184[uint32(0)];
const uint32 l_247 = l_246 * l_0;
const uint32 l_248 = l_247 + l_176;
const float_4 l_249 = buffer_2[l_248];
l_arr_241[uint32(0)] = reinterpret_cast< float_4 const&>(l_249);
}
const float_4 l_250 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(1)] = reinterpret_cast< float_4 const&>(l_250);
const uint32 l_251 = uint32(1) * l_3;
const uint32 l_252 = l_mut_16 + l_251;
const bool l_253 = l_252 < l_170;
if (l_253) {
const uint32 l_254 = l_arr_184[uint32(1)];
const uint32 l_255 = l_254 * l_0;
const uint32 l_256 = l_255 + l_176;
const float_4 l_257 = buffer_2[l_256];
l_arr_241[uint32(1)] = reinterpret_cast< float_4 const&>(l_257);
}
const float_4 l_258 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(2)] = reinterpret_cast< float_4 const&>(l_258);
const uint32 l_259 = uint32(2) * l_3;
const uint32 l_260 = l_mut_16 + l_259;
const bool l_261 = l_260 < l_170;
if (l_261) {
const uint32 l_262 = l_arr_184[uint32(2)];
const uint32 l_263 = l_262 * l_0;
const uint32 l_264 = l_263 + l_176;
const float_4 l_265 = buffer_2[l_264];
l_arr_241[uint32(2)] = reinterpret_cast< float_4 const&>(l_265);
}
const float_4 l_266 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(3)] = reinterpret_cast< float_4 const&>(l_266);
const uint32 l_267 = uint32(3) * l_3;
const uint32 l_268 = l_mut_16 + l_267;
const bool l_269 = l_268 < l_170;
if (l_269) {
const uint32 l_270 = l_arr_184[uint32(3)];
const uint32 l_271 = l_270 * l_0;
const uint32 l_272 = l_271 + l_176;
const float_4 l_273 = buffer_2[l_272];
l_arr_241[uint32(3)] = reinterpret_cast< float_4 const&>(l_273);
}
const float_4 l_274 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(4)] = reinterpret_cast< float_4 const&>(l_274);
const uint32 l_275 = uint32(4) * l_3;
const uint32 l_276 = l_mut_16 + l_275;
const bool l_277 = l_276 < l_170;
if (l_277) {
const uint32 l_278 = l_arr_184[uint32(4)];
const uint32 l_279 = l_278 * l_0;
const uint32 l_280 = l_279 + l_176;
const float_4 l_281 = buffer_2[l_280];
l_arr_241[uint32(4)] = reinterpret_cast< float_4 const&>(l_281);
}
const float_4 l_282 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(5)] = reinterpret_cast< float_4 const&>(l_282);
const uint32 l_283 = uint32(5) * l_3;
const uint32 l_284 = l_mut_16 + l_283;
const bool l_285 = l_284 < l_170;
if (l_285) {
const uint32 l_286 = l_arr_184[uint32(5)];
const uint32 l_287 = l_286 * l_0;
const uint32 l_288 = l_287 + l_176;
const float_4 l_289 = buffer_2[l_288];
l_arr_241[uint32(5)] = reinterpret_cast< float_4 const&>(l_289);
}
const float_4 l_290 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(6)] = reinterpret_cast< float_4 const&>(l_290);
const uint32 l_291 = uint32(6) * l_3;
const uint32 l_292 = l_mut_16 + l_291;
const bool l_293 = l_292 < l_170;
if (l_293) {
const uint32 l_294 = l_arr_184[uint32(6)];
const uint32 l_295 = l_294 * l_0;
const uint32 l_296 = l_295 + l_176;
const float_4 l_297 = buffer_2[l_296];
l_arr_241[uint32(6)] = reinterpret_cast< float_4 const&>(l_297);
}
const float_4 l_298 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_241[uint32(7)] = reinterpret_cast< float_4 const&>(l_298);
const uint32 l_299 = uint32(7) * l_3;
const uint32 l_300 = l_mut_16 + l_299;
const bool l_301 = l_300 < l_170;
if (l_301) {
const uint32 l_302 = l_arr_184[uint32(7)];
const uint32 l_303 = l_302 * l_0;
const uint32 l_304 = l_303 + l_176;
const float_4 l_305 = buffer_2[l_304];
l_arr_241[uint32(7)] = reinterpret_cast< float_4 const&>(l_305);
}
const float_4 l_306 = l_arr_241[uint32(0)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_306.i_0, l_mut_20.i_1 + l_306.i_1, l_mut_20.i_2 + l_306.i_2, l_mut_20.i_3 + l_306.i_3, };
const float_4 l_307 = l_arr_241[uint32(1)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_307.i_0, l_mut_20.i_1 + l_307.i_1, l_mut_20.i_2 + l_307.i_2, l_mut_20.i_3 + l_307.i_3, };
const float_4 l_308 = l_arr_241[uint32(2)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_308.i_0, l_mut_20.i_1 + l_308.i_1, l_mut_20.i_2 + l_308.i_2, l_mut_20.i_3 + l_308.i_3, };
const float_4 l_309 = l_arr_241[uint32(3)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_309.i_0, l_mut_20.i_1 + l_309.i_1, l_mut_20.i_2 + l_309.i_2, l_mut_20.i_3 + l_309.i_3, };
const float_4 l_310 = l_arr_241[uint32(4)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_310.i_0, l_mut_20.i_1 + l_310.i_1, l_mut_20.i_2 + l_310.i_2, l_mut_20.i_3 + l_310.i_3, };
const float_4 l_311 = l_arr_241[uint32(5)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_311.i_0, l_mut_20.i_1 + l_311.i_1, l_mut_20.i_2 + l_311.i_2, l_mut_20.i_3 + l_311.i_3, };
const float_4 l_312 = l_arr_241[uint32(6)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_312.i_0, l_mut_20.i_1 + l_312.i_1, l_mut_20.i_2 + l_312.i_2, l_mut_20.i_3 + l_312.i_3, };
const float_4 l_313 = l_arr_241[uint32(7)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_313.i_0, l_mut_20.i_1 + l_313.i_1, l_mut_20.i_2 + l_313.i_2, l_mut_20.i_3 + l_313.i_3, };
const uint32 l_314 = uint32(8) * l_3;
l_mut_16 = l_mut_16 + l_314;
}
l_mut_158 = l_mut_20;
}
shared_memory_159[threadIdx.x] = l_mut_158;
__syncthreads();

const bool l_315 = l_5 == uint32(0);
const bool l_316 = l_173 && l_315;
const bool l_317 = l_176 < l_0;
const bool l_318 = l_316 && l_317;
if (l_318) {
const float_4 l_319 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_158 = l_319;

for (uint32 l_mut_320 = uint32(0); l_mut_320 < l_3; ++l_mut_320) {
const uint32 l_321 = l_mut_320 * info.scalars_uint32[2];
const uint32 l_322 = l_321 + l_6;
const float_4 l_323 = shared_memory_159[l_322];
l_mut_158 = float_4{
l_mut_158.i_0 + l_323.i_0, l_mut_158.i_1 + l_323.i_1, l_mut_158.i_2 + l_323.i_2, l_mut_158.i_3 + l_323.i_3, };
}
const uint32 l_324 = l_163 * l_0;
const uint32 l_325 = l_324 + l_176;
const uint32 l_326 = l_170 - l_167;
l_mut_20 = l_mut_158;
buffer_3[l_325] = l_mut_20;
}
__syncthreads();

l_mut_21 = l_mut_21 + info.scalars_uint32[2];
}
}

}
