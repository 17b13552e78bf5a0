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
extern __shared__ __align__(16) uint8 dynamic_shared_mem[];
// Shared array size: 256, 4096 bytes
float_4 *shared_memory_163 = reinterpret_cast<float_4*>(&dynamic_shared_mem[0]);
uint32 l_arr_24[8];

float_4 l_arr_81[8];

uint32 l_arr_188[8];

float_4 l_arr_245[8];

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
const bool l_159 = l_157 > uint32(0);
if (l_159) {
const float l_160 = float(l_157);
const float_4 l_161 = float_4{
l_160,l_160,l_160,l_160,};
const float_4 l_162 = float_4{
l_mut_20.i_0 / l_161.i_0, l_mut_20.i_1 / l_161.i_1, l_mut_20.i_2 / l_161.i_2, l_mut_20.i_3 / l_161.i_3, };
l_mut_158 = l_162;
}
buffer_3[l_156] = l_mut_158;
l_mut_16 = l_mut_16 + info.scalars_uint32[2];
}
}
}
const bool l_164 = info.scalars_uint32[3] == uint32(4294967295);
const uint32 l_165 = (l_164) ? uint32(0) : l_3;

for (uint32 l_mut_166 = uint32(0); l_mut_166 < l_165; ++l_mut_166) {
const uint32 l_167 = l_4 + l_mut_166;
const bool l_168 = l_167 < info.scalars_uint32[0];
const uint32 l_169 = (l_168) ? l_167 : uint32(0);
const int64 l_170 = buffer_0[l_169];
const uint32 l_171 = uint32(l_170);
const uint32 l_172 = l_169 + uint32(1);
const int64 l_173 = buffer_0[l_172];
const uint32 l_174 = uint32(l_173);
const uint32 l_175 = l_174 - l_171;
const bool l_176 = l_175 > info.scalars_uint32[3];
const bool l_177 = l_168 && l_176;
l_mut_21 = uint32(0);
while (true) {
const bool l_178 = l_mut_21 < l_0;
const bool l_179 = !l_178;
if (l_179) {
break;}
const uint32 l_180 = l_mut_21 + l_6;
const float_4 l_181 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_158 = l_181;
const bool l_182 = l_180 < l_0;
const bool l_183 = l_177 && l_182;
if (l_183) {
const uint32 l_184 = l_171 + l_5;
const float_4 l_185 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_20 = l_185;
l_mut_16 = l_184;
while (true) {
const bool l_186 = l_mut_16 < l_174;
const bool l_187 = !l_186;
if (l_187) {
break;}
l_arr_188[uint32(0)] = uint32(0);
const uint32 l_189 = uint32(0) * l_3;
const uint32 l_190 = l_mut_16 + l_189;
const bool l_191 = l_190 < l_174;
if (l_191) {
const uint32 l_192 = uint32(0) * l_3;
const uint32 l_193 = l_mut_16 + l_192;
const int64 l_194 = buffer_1[l_193];
const uint32 l_195 = uint32(l_194);
l_arr_188[uint32(0)] = l_195;
}
l_arr_188[uint32(1)] = uint32(0);
const uint32 l_196 = uint32(1) * l_3;
const uint32 l_197 = l_mut_16 + l_196;
const bool l_198 = l_197 < l_174;
if (l_198) {
const uint32 l_199 = uint32(1) * l_3;
const uint32 l_200 = l_mut_16 + l_199;
const int64 l_201 = buffer_1[l_200];
const uint32 l_202 = uint32(l_201);
l_arr_188[uint32(1)] = l_202;
}
l_arr_188[uint32(2)] = uint32(0);
const uint32 l_203 = uint32(2) * l_3;
const uint32 l_204 = l_mut_16 + l_203;
const bool l_205 = l_204 < l_174;
if (l_205) {
const uint32 l_206 = uint32(2) * l_3;
const uint32 l_207 = l_mut_16 + l_206;
const int64 l_208 = buffer_1[l_207];
const uint32 l_209 = uint32(l_208);
l_arr_188[uint32(2)] = l_209;
}
l_arr_188[uint32(3)] = uint32(0);
const uint32 l_210 = uint32(3) * l_3;
const uint32 l_211 = l_mut_16 + l_210;
const bool l_212 = l_211 < l_174;
if (l_212) {
const uint32 l_213 = uint32(3) * l_3;
const uint32 l_214 = l_mut_16 + l_213;
const int64 l_215 = buffer_1[l_214];
const uint32 l_216 = uint32(l_215);
l_arr_188[uint32(3)] = l_216;
}
l_arr_188[uint32(4)] = uint32(0);
const uint32 l_217 = uint32(4) * l_3;
const uint32 l_218 = l_mut_16 + l_217;
const bool l_219 = l_218 < l_174;
if (l_219) {
const uint32 l_220 = uint32(4) * l_3;
const uint32 l_221 = l_mut_16 + l_220;
const int64 l_222 = buffer_1[l_221];
const uint32 l_223 = uint32(l_222);
l_arr_188[uint32(4)] = l_223;
}
l_arr_188[uint32(5)] = uint32(0);
const uint32 l_224 = uint32(5) * l_3;
const uint32 l_225 = l_mut_16 + l_224;
const bool l_226 = l_225 < l_174;
if (l_226) {
const uint32 l_227 = uint32(5) * l_3;
const uint32 l_228 = l_mut_16 + l_227;
const int64 l_229 = buffer_1[l_228];
const uint32 l_230 = uint32(l_229);
l_arr_188[uint32(5)] = l_230;
}
l_arr_188[uint32(6)] = uint32(0);
const uint32 l_231 = uint32(6) * l_3;
const uint32 l_232 = l_mut_16 + l_231;
const bool l_233 = l_232 < l_174;
if (l_233) {
const uint32 l_234 = uint32(6) * l_3;
const uint32 l_235 = l_mut_16 + l_234;
const int64 l_236 = buffer_1[l_235];
const uint32 l_237 = uint32(l_236);
l_arr_188[uint32(6)] = l_237;
}
l_arr_188[uint32(7)] = uint32(0);
const uint32 l_238 = uint32(7) * l_3;
const uint32 l_239 = l_mut_16 + l_238;
const bool l_240 = l_239 < l_174;
if (l_240) {
const uint32 l_241 = uint32(7) * l_3;
const uint32 l_242 = l_mut_16 + l_241;
const int64 l_243 = buffer_1[l_242];
const uint32 l_244 = uint32(l_243);
l_arr_188[uint32(7)] = l_244;
}
const float_4 l_246 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(0)] = reinterpret_cast< float_4 const&>(l_246);
const uint32 l_247 = uint32(0) * l_3;
const uint32 l_248 = l_mut_16 + l_247;
const bool l_249 = l_248 < l_174;
if (l_249) {
const uint32 l_250 = l_arr_188[uint32(0)];
const uint32 l_251 = l_250 * l_0;
const uint32 l_252 = l_251 + l_180;
const float_4 l_253 = buffer_2[l_252];
l_arr_245[uint32(0)] = reinterpret_cast< float_4 const&>(l_253);
}
const float_4 l_254 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(1)] = reinterpret_cast< float_4 const&>(l_254);
const uint32 l_255 = uint32(1) * l_3;
const uint32 l_256 = l_mut_16 + l_255;
const bool l_257 = l_256 < l_174;
if (l_257) {
const uint32 l_258 = l_arr_188[uint32(1)];
const uint32 l_259 = l_258 * l_0;
const uint32 l_260 = l_259 + l_180;
const float_4 l_261 = buffer_2[l_260];
l_arr_245[uint32(1)] = reinterpret_cast< float_4 const&>(l_261);
}
const float_4 l_262 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(2)] = reinterpret_cast< float_4 const&>(l_262);
const uint32 l_263 = uint32(2) * l_3;
const uint32 l_264 = l_mut_16 + l_263;
const bool l_265 = l_264 < l_174;
if (l_265) {
const uint32 l_266 = l_arr_188[uint32(2)];
const uint32 l_267 = l_266 * l_0;
const uint32 l_268 = l_267 + l_180;
const float_4 l_269 = buffer_2[l_268];
l_arr_245[uint32(2)] = reinterpret_cast< float_4 const&>(l_269);
}
const float_4 l_270 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(3)] = reinterpret_cast< float_4 const&>(l_270);
const uint32 l_271 = uint32(3) * l_3;
const uint32 l_272 = l_mut_16 + l_271;
const bool l_273 = l_272 < l_174;
if (l_273) {
const uint32 l_274 = l_arr_188[uint32(3)];
const uint32 l_275 = l_274 * l_0;
const uint32 l_276 = l_275 + l_180;
const float_4 l_277 = buffer_2[l_276];
l_arr_245[uint32(3)] = reinterpret_cast< float_4 const&>(l_277);
}
const float_4 l_278 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(4)] = reinterpret_cast< float_4 const&>(l_278);
const uint32 l_279 = uint32(4) * l_3;
const uint32 l_280 = l_mut_16 + l_279;
const bool l_281 = l_280 < l_174;
if (l_281) {
const uint32 l_282 = l_arr_188[uint32(4)];
const uint32 l_283 = l_282 * l_0;
const uint32 l_284 = l_283 + l_180;
const float_4 l_285 = buffer_2[l_284];
l_arr_245[uint32(4)] = reinterpret_cast< float_4 const&>(l_285);
}
const float_4 l_286 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(5)] = reinterpret_cast< float_4 const&>(l_286);
const uint32 l_287 = uint32(5) * l_3;
const uint32 l_288 = l_mut_16 + l_287;
const bool l_289 = l_288 < l_174;
if (l_289) {
const uint32 l_290 = l_arr_188[uint32(5)];
const uint32 l_291 = l_290 * l_0;
const uint32 l_292 = l_291 + l_180;
const float_4 l_293 = buffer_2[l_292];
l_arr_245[uint32(5)] = reinterpret_cast< float_4 const&>(l_293);
}
const float_4 l_294 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(6)] = reinterpret_cast< float_4 const&>(l_294);
const uint32 l_295 = uint32(6) * l_3;
const uint32 l_296 = l_mut_16 + l_295;
const bool l_297 = l_296 < l_174;
if (l_297) {
const uint32 l_298 = l_arr_188[uint32(6)];
const uint32 l_299 = l_298 * l_0;
const uint32 l_300 = l_299 + l_180;
const float_4 l_301 = buffer_2[l_300];
l_arr_245[uint32(6)] = reinterpret_cast< float_4 const&>(l_301);
}
const float_4 l_302 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_arr_245[uint32(7)] = reinterpret_cast< float_4 const&>(l_302);
const uint32 l_303 = uint32(7) * l_3;
const uint32 l_304 = l_mut_16 + l_303;
const bool l_305 = l_304 < l_174;
if (l_305) {
const uint32 l_306 = l_arr_188[uint32(7)];
const uint32 l_307 = l_306 * l_0;
const uint32 l_308 = l_307 + l_180;
const float_4 l_309 = buffer_2[l_308];
l_arr_245[uint32(7)] = reinterpret_cast< float_4 const&>(l_309);
}
const float_4 l_310 = l_arr_245[uint32(0)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_310.i_0, l_mut_20.i_1 + l_310.i_1, l_mut_20.i_2 + l_310.i_2, l_mut_20.i_3 + l_310.i_3, };
const float_4 l_311 = l_arr_245[uint32(1)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_311.i_0, l_mut_20.i_1 + l_311.i_1, l_mut_20.i_2 + l_311.i_2, l_mut_20.i_3 + l_311.i_3, };
const float_4 l_312 = l_arr_245[uint32(2)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_312.i_0, l_mut_20.i_1 + l_312.i_1, l_mut_20.i_2 + l_312.i_2, l_mut_20.i_3 + l_312.i_3, };
const float_4 l_313 = l_arr_245[uint32(3)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_313.i_0, l_mut_20.i_1 + l_313.i_1, l_mut_20.i_2 + l_313.i_2, l_mut_20.i_3 + l_313.i_3, };
const float_4 l_314 = l_arr_245[uint32(4)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_314.i_0, l_mut_20.i_1 + l_314.i_1, l_mut_20.i_2 + l_314.i_2, l_mut_20.i_3 + l_314.i_3, };
const float_4 l_315 = l_arr_245[uint32(5)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_315.i_0, l_mut_20.i_1 + l_315.i_1, l_mut_20.i_2 + l_315.i_2, l_mut_20.i_3 + l_315.i_3, };
const float_4 l_316 = l_arr_245[uint32(6)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_316.i_0, l_mut_20.i_1 + l_316.i_1, l_mut_20.i_2 + l_316.i_2, l_mut_20.i_3 + l_316.i_3, };
const float_4 l_317 = l_arr_245[uint32(7)];
l_mut_20 = float_4{
l_mut_20.i_0 + l_317.i_0, l_mut_20.i_1 + l_317.i_1, l_mut_20.i_2 + l_317.i_2, l_mut_20.i_3 + l_317.i_3, };
const uint32 l_318 = uint32(8) * l_3;
l_mut_16 = l_mut_16 + l_318;
}
l_mut_158 = l_mut_20;
}
shared_memory_163[threadIdx.x] = l_mut_158;
__syncthreads();

const bool l_319 = l_5 == uint32(0);
const bool l_320 = l_177 && l_319;
const bool l_321 = l_180 < l_0;
const bool l_322 = l_320 && l_321;
if (l_322) {
const float_4 l_323 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_158 = l_323;

for (uint32 l_mut_324 = uint32(0); l_mut_324 < l_3; ++l_mut_324) {
const uint32 l_325 = l_mut_324 * info.scalars_uint32[2];
const uint32 l_326 = l_325 + l_6;
const float_4 l_327 = shared_memory_163[l_326];
l_mut_158 = float_4{
l_mut_158.i_0 + l_327.i_0, l_mut_158.i_1 + l_327.i_1, l_mut_158.i_2 + l_327.i_2, l_mut_158.i_3 + l_327.i_3, };
}
const uint32 l_328 = l_167 * l_0;
const uint32 l_329 = l_328 + l_180;
const uint32 l_330 = l_174 - l_171;
l_mut_20 = l_mut_158;
const bool l_331 = l_330 > uint32(0);
if (l_331) {
const float l_332 = float(l_330);
const float_4 l_333 = float_4{
l_332,l_332,l_332,l_332,};
const float_4 l_334 = float_4{
l_mut_158.i_0 / l_333.i_0, l_mut_158.i_1 / l_333.i_1, l_mut_158.i_2 / l_333.i_2, l_mut_158.i_3 / l_333.i_3, };
l_mut_20 = l_334;
}
buffer_3[l_329] = l_mut_20;
}
__syncthreads();

l_mut_21 = l_mut_21 + info.scalars_uint32[2];
}
}

}
