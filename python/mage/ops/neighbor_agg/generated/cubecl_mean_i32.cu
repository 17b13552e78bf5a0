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


extern "C" __global__ void __launch_bounds__(256)neighbor_agg_mean_i32_kernel (
    const int32* __restrict__ buffer_0, const int32* __restrict__ buffer_1, const float* __restrict__ buffer_2, float* buffer_3, const __grid_constant__ info_st info
) {
extern __shared__ __align__(4) uint8 dynamic_shared_mem[];
// Shared array size: 256, 1024 bytes
float *shared_memory_153 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
uint32 l_arr_23[8];

float l_arr_80[8];

uint32 l_arr_176[8];

float l_arr_233[8];

float l_mut_149;
float l_mut_19;
uint32 l_mut_16;
uint32 l_mut_20;
const uint32 l_0 = info.scalars_uint32[1] / uint32(1);
const uint32 l_1 = blockIdx.y * gridDim.x;
const uint32 l_2 = l_1 + blockIdx.x;
const uint32 l_3 = blockDim.x / info.scalars_uint32[2];
const uint32 l_4 = l_2 * l_3;
const uint32 l_5 = threadIdx.x / info.scalars_uint32[2];
const uint32 l_6 = threadIdx.x % info.scalars_uint32[2];
const uint32 l_7 = l_4 + l_5;
const bool l_8 = l_7 < info.scalars_uint32[0];
if (l_8) {
const int32 l_9 = buffer_0[l_7];
const uint32 l_10 = uint32(l_9);
const uint32 l_11 = l_7 + uint32(1);
const int32 l_12 = buffer_0[l_11];
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
l_mut_19 = float(0.0);
l_mut_20 = l_10;
while (true) {
const bool l_21 = l_mut_20 < l_13;
const bool l_22 = !l_21;
if (l_22) {
break;}
l_arr_23[uint32(0)] = uint32(0);
const uint32 l_24 = uint32(0) * uint32(1);
const uint32 l_25 = l_mut_20 + l_24;
const bool l_26 = l_25 < l_13;
if (l_26) {
const uint32 l_27 = uint32(0) * uint32(1);
const uint32 l_28 = l_mut_20 + l_27;
const int32 l_29 = buffer_1[l_28];
const uint32 l_30 = uint32(l_29);
l_arr_23[uint32(0)] = l_30;
}
l_arr_23[uint32(1)] = uint32(0);
const uint32 l_31 = uint32(1) * uint32(1);
const uint32 l_32 = l_mut_20 + l_31;
const bool l_33 = l_32 < l_13;
if (l_33) {
const uint32 l_34 = uint32(1) * uint32(1);
const uint32 l_35 = l_mut_20 + l_34;
const int32 l_36 = buffer_1[l_35];
const uint32 l_37 = uint32(l_36);
l_arr_23[uint32(1)] = l_37;
}
l_arr_23[uint32(2)] = uint32(0);
const uint32 l_38 = uint32(2) * uint32(1);
const uint32 l_39 = l_mut_20 + l_38;
const bool l_40 = l_39 < l_13;
if (l_40) {
const uint32 l_41 = uint32(2) * uint32(1);
const uint32 l_42 = l_mut_20 + l_41;
const int32 l_43 = buffer_1[l_42];
const uint32 l_44 = uint32(l_43);
l_arr_23[uint32(2)] = l_44;
}
l_arr_23[uint32(3)] = uint32(0);
const uint32 l_45 = uint32(3) * uint32(1);
const uint32 l_46 = l_mut_20 + l_45;
const bool l_47 = l_46 < l_13;
if (l_47) {
const uint32 l_48 = uint32(3) * uint32(1);
const uint32 l_49 = l_mut_20 + l_48;
const int32 l_50 = buffer_1[l_49];
const uint32 l_51 = uint32(l_50);
l_arr_23[uint32(3)] = l_51;
}
l_arr_23[uint32(4)] = uint32(0);
const uint32 l_52 = uint32(4) * uint32(1);
const uint32 l_53 = l_mut_20 + l_52;
const bool l_54 = l_53 < l_13;
if (l_54) {
const uint32 l_55 = uint32(4) * uint32(1);
const uint32 l_56 = l_mut_20 + l_55;
const int32 l_57 = buffer_1[l_56];
const uint32 l_58 = uint32(l_57);
l_arr_23[uint32(4)] = l_58;
}
l_arr_23[uint32(5)] = uint32(0);
const uint32 l_59 = uint32(5) * uint32(1);
const uint32 l_60 = l_mut_20 + l_59;
const bool l_61 = l_60 < l_13;
if (l_61) {
const uint32 l_62 = uint32(5) * uint32(1);
const uint32 l_63 = l_mut_20 + l_62;
const int32 l_64 = buffer_1[l_63];
const uint32 l_65 = uint32(l_64);
l_arr_23[uint32(5)] = l_65;
}
l_arr_23[uint32(6)] = uint32(0);
const uint32 l_66 = uint32(6) * uint32(1);
const uint32 l_67 = l_mut_20 + l_66;
const bool l_68 = l_67 < l_13;
if (l_68) {
const uint32 l_69 = uint32(6) * uint32(1);
const uint32 l_70 = l_mut_20 + l_69;
const int32 l_71 = buffer_1[l_70];
const uint32 l_72 = uint32(l_71);
l_arr_23[uint32(6)] = l_72;
}
l_arr_23[uint32(7)] = uint32(0);
const uint32 l_73 = uint32(7) * uint32(1);
const uint32 l_74 = l_mut_20 + l_73;
const bool l_75 = l_74 < l_13;
if (l_75) {
const uint32 l_76 = uint32(7) * uint32(1);
const uint32 l_77 = l_mut_20 + l_76;
const int32 l_78 = buffer_1[l_77];
const uint32 l_79 = uint32(l_78);
l_arr_23[uint32(7)] = l_79;
}
l_arr_80[uint32(0)] = float(0.0);
const uint32 l_81 = uint32(0) * uint32(1);
const uint32 l_82 = l_mut_20 + l_81;
const bool l_83 = l_82 < l_13;
if (l_83) {
const uint32 l_84 = l_arr_23[uint32(0)];
const uint32 l_85 = l_84 * l_0;
const uint32 l_86 = l_85 + l_mut_16;
const float l_87 = buffer_2[l_86];
l_arr_80[uint32(0)] = l_87;
}
l_arr_80[uint32(1)] = float(0.0);
const uint32 l_88 = uint32(1) * uint32(1);
const uint32 l_89 = l_mut_20 + l_88;
const bool l_90 = l_89 < l_13;
if (l_90) {
const uint32 l_91 = l_arr_23[uint32(1)];
const uint32 l_92 = l_91 * l_0;
const uint32 l_93 = l_92 + l_mut_16;
const float l_94 = buffer_2[l_93];
l_arr_80[uint32(1)] = l_94;
}
l_arr_80[uint32(2)] = float(0.0);
const uint32 l_95 = uint32(2) * uint32(1);
const uint32 l_96 = l_mut_20 + l_95;
const bool l_97 = l_96 < l_13;
if (l_97) {
const uint32 l_98 = l_arr_23[uint32(2)];
const uint32 l_99 = l_98 * l_0;
const uint32 l_100 = l_99 + l_mut_16;
const float l_101 = buffer_2[l_100];
l_arr_80[uint32(2)] = l_101;
}
l_arr_80[uint32(3)] = float(0.0);
const uint32 l_102 = uint32(3) * uint32(1);
const uint32 l_103 = l_mut_20 + l_102;
const bool l_104 = l_103 < l_13;
if (l_104) {
const uint32 l_105 = l_arr_23[uint32(3)];
const uint32 l_106 = l_105 * l_0;
const uint32 l_107 = l_106 + l_mut_16;
const float l_108 = buffer_2[l_107];
l_arr_80[uint32(3)] = l_108;
}
l_arr_80[uint32(4)] = float(0.0);
const uint32 l_109 = uint32(4) * uint32(1);
const uint32 l_110 = l_mut_20 + l_109;
const bool l_111 = l_110 < l_13;
if (l_111) {
const uint32 l_112 = l_arr_23[uint32(4)];
const uint32 l_113 = l_112 * l_0;
const uint32 l_114 = l_113 + l_mut_16;
const float l_115 = buffer_2[l_114];
l_arr_80[uint32(4)] = l_115;
}
l_arr_80[uint32(5)] = float(0.0);
const uint32 l_116 = uint32(5) * uint32(1);
const uint32 l_117 = l_mut_20 + l_116;
const bool l_118 = l_117 < l_13;
if (l_118) {
const uint32 l_119 = l_arr_23[uint32(5)];
const uint32 l_120 = l_119 * l_0;
const uint32 l_121 = l_120 + l_mut_16;
const float l_122 = buffer_2[l_121];
l_arr_80[uint32(5)] = l_122;
}
l_arr_80[uint32(6)] = float(0.0);
const uint32 l_123 = uint32(6) * uint32(1);
const uint32 l_124 = l_mut_20 + l_123;
const bool l_125 = l_124 < l_13;
if (l_125) {
const uint32 l_126 = l_arr_23[uint32(6)];
const uint32 l_127 = l_126 * l_0;
const uint32 l_128 = l_127 + l_mut_16;
const float l_129 = buffer_2[l_128];
l_arr_80[uint32(6)] = l_129;
}
l_arr_80[uint32(7)] = float(0.0);
const uint32 l_130 = uint32(7) * uint32(1);
const uint32 l_131 = l_mut_20 + l_130;
const bool l_132 = l_131 < l_13;
if (l_132) {
const uint32 l_133 = l_arr_23[uint32(7)];
const uint32 l_134 = l_133 * l_0;
const uint32 l_135 = l_134 + l_mut_16;
const float l_136 = buffer_2[l_135];
l_arr_80[uint32(7)] = l_136;
}
const float l_137 = l_arr_80[uint32(0)];
l_mut_19 = l_mut_19 + l_137;
const float l_138 = l_arr_80[uint32(1)];
l_mut_19 = l_mut_19 + l_138;
const float l_139 = l_arr_80[uint32(2)];
l_mut_19 = l_mut_19 + l_139;
const float l_140 = l_arr_80[uint32(3)];
l_mut_19 = l_mut_19 + l_140;
const float l_141 = l_arr_80[uint32(4)];
l_mut_19 = l_mut_19 + l_141;
const float l_142 = l_arr_80[uint32(5)];
l_mut_19 = l_mut_19 + l_142;
const float l_143 = l_arr_80[uint32(6)];
l_mut_19 = l_mut_19 + l_143;
const float l_144 = l_arr_80[uint32(7)];
l_mut_19 = l_mut_19 + l_144;
const uint32 l_145 = uint32(8) * uint32(1);
l_mut_20 = l_mut_20 + l_145;
}
const uint32 l_146 = l_7 * l_0;
const uint32 l_147 = l_146 + l_mut_16;
const uint32 l_148 = l_13 - l_10;
l_mut_149 = l_mut_19;
const bool l_150 = l_148 > uint32(0);
if (l_150) {
const float l_151 = float(l_148);
const float l_152 = l_mut_19 / l_151;
l_mut_149 = l_152;
}
buffer_3[l_147] = l_mut_149;
l_mut_16 = l_mut_16 + info.scalars_uint32[2];
}
}
}
const bool l_154 = info.scalars_uint32[3] == uint32(4294967295);
const uint32 l_155 = (l_154) ? uint32(0) : l_3;

for (uint32 l_mut_156 = uint32(0); l_mut_156 < l_155; ++l_mut_156) {
const uint32 l_157 = l_4 + l_mut_156;
const bool l_158 = l_157 < info.scalars_uint32[0];
const uint32 l_159 = (l_158) ? l_157 : uint32(0);
const int32 l_160 = buffer_0[l_159];
const uint32 l_161 = uint32(l_160);
const uint32 l_162 = l_159 + uint32(1);
const int32 l_163 = buffer_0[l_162];
const uint32 l_164 = uint32(l_163);
const uint32 l_165 = l_164 - l_161;
const bool l_166 = l_165 > info.scalars_uint32[3];
const bool l_167 = l_158 && l_166;
l_mut_20 = uint32(0);
while (true) {
const bool l_168 = l_mut_20 < l_0;
const bool l_169 = !l_168;
if (l_169) {
break;}
const uint32 l_170 = l_mut_20 + l_6;
l_mut_149 = float(0.0);
const bool l_171 = l_170 < l_0;
const bool l_172 = l_167 && l_171;
if (l_172) {
const uint32 l_173 = l_161 + l_5;
l_mut_19 = float(0.0);
l_mut_16 = l_173;
while (true) {
const bool l_174 = l_mut_16 < l_164;
const bool l_175 = !l_174;
if (l_175) {
break;}
l_arr_176[uint32(0)] = uint32(0);
const uint32 l_177 = uint32(0) * l_3;
const uint32 l_178 = l_mut_16 + l_177;
const bool l_179 = l_178 < l_164;
if (l_179) {
const uint32 l_180 = uint32(0) * l_3;
const uint32 l_181 = l_mut_16 + l_180;
const int32 l_182 = buffer_1[l_181];
const uint32 l_183 = uint32(l_182);
l_arr_176[uint32(0)] = l_183;
}
l_arr_176[uint32(1)] = uint32(0);
const uint32 l_184 = uint32(1) * l_3;
const uint32 l_185 = l_mut_16 + l_184;
const bool l_186 = l_185 < l_164;
if (l_186) {
const uint32 l_187 = uint32(1) * l_3;
const uint32 l_188 = l_mut_16 + l_187;
const int32 l_189 = buffer_1[l_188];
const uint32 l_190 = uint32(l_189);
l_arr_176[uint32(1)] = l_190;
}
l_arr_176[uint32(2)] = uint32(0);
const uint32 l_191 = uint32(2) * l_3;
const uint32 l_192 = l_mut_16 + l_191;
const bool l_193 = l_192 < l_164;
if (l_193) {
const uint32 l_194 = uint32(2) * l_3;
const uint32 l_195 = l_mut_16 + l_194;
const int32 l_196 = buffer_1[l_195];
const uint32 l_197 = uint32(l_196);
l_arr_176[uint32(2)] = l_197;
}
l_arr_176[uint32(3)] = uint32(0);
const uint32 l_198 = uint32(3) * l_3;
const uint32 l_199 = l_mut_16 + l_198;
const bool l_200 = l_199 < l_164;
if (l_200) {
const uint32 l_201 = uint32(3) * l_3;
const uint32 l_202 = l_mut_16 + l_201;
const int32 l_203 = buffer_1[l_202];
const uint32 l_204 = uint32(l_203);
l_arr_176[uint32(3)] = l_204;
}
l_arr_176[uint32(4)] = uint32(0);
const uint32 l_205 = uint32(4) * l_3;
const uint32 l_206 = l_mut_16 + l_205;
const bool l_207 = l_206 < l_164;
if (l_207) {
const uint32 l_208 = uint32(4) * l_3;
const uint32 l_209 = l_mut_16 + l_208;
const int32 l_210 = buffer_1[l_209];
const uint32 l_211 = uint32(l_210);
l_arr_176[uint32(4)] = l_211;
}
l_arr_176[uint32(5)] = uint32(0);
const uint32 l_212 = uint32(5) * l_3;
const uint32 l_213 = l_mut_16 + l_212;
const bool l_214 = l_213 < l_164;
if (l_214) {
const uint32 l_215 = uint32(5) * l_3;
const uint32 l_216 = l_mut_16 + l_215;
const int32 l_217 = buffer_1[l_216];
const uint32 l_218 = uint32(l_217);
l_arr_176[uint32(5)] = l_218;
}
l_arr_176[uint32(6)] = uint32(0);
const uint32 l_219 = uint32(6) * l_3;
const uint32 l_220 = l_mut_16 + l_219;
const bool l_221 = l_220 < l_164;
if (l_221) {
const uint32 l_222 = uint32(6) * l_3;
const uint32 l_223 = l_mut_16 + l_222;
const int32 l_224 = buffer_1[l_223];
const uint32 l_225 = uint32(l_224);
l_arr_176[uint32(6)] = l_225;
}
l_arr_176[uint32(7)] = uint32(0);
const uint32 l_226 = uint32(7) * l_3;
const uint32 l_227 = l_mut_16 + l_226;
const bool l_228 = l_227 < l_164;
if (l_228) {
const uint32 l_229 = uint32(7) * l_3;
const uint32 l_230 = l_mut_16 + l_229;
const int32 l_231 = buffer_1[l_230];
const uint32 l_232 = uint32(l_231);
l_arr_176[uint32(7)] = l_232;
}
l_arr_233[uint32(0)] = float(0.0);
const uint32 l_234 = uint32(0) * l_3;
const uint32 l_235 = l_mut_16 + l_234;
const bool l_236 = l_235 < l_164;
if (l_236) {
const uint32 l_237 = l_arr_176[uint32(0)];
const uint32 l_238 = l_237 * l_0;
const uint32 l_239 = l_238 + l_170;
const float l_240 = buffer_2[l_239];
l_arr_233[uint32(0)] = l_240;
}
l_arr_233[uint32(1)] = float(0.0);
const uint32 l_241 = uint32(1) * l_3;
const uint32 l_242 = l_mut_16 + l_241;
const bool l_243 = l_242 < l_164;
if (l_243) {
const uint32 l_244 = l_arr_176[uint32(1)];
const uint32 l_245 = l_244 * l_0;
const uint32 l_246 = l_245 + l_170;
const float l_247 = buffer_2[l_246];
l_arr_233[uint32(1)] = l_247;
}
l_arr_233[uint32(2)] = float(0.0);
const uint32 l_248 = uint32(2) * l_3;
const uint32 l_249 = l_mut_16 + l_248;
const bool l_250 = l_249 < l_164;
if (l_250) {
const uint32 l_251 = l_arr_176[uint32(2)];
const uint32 l_252 = l_251 * l_0;
const uint32 l_253 = l_252 + l_170;
const float l_254 = buffer_2[l_253];
l_arr_233[uint32(2)] = l_254;
}
l_arr_233[uint32(3)] = float(0.0);
const uint32 l_255 = uint32(3) * l_3;
const uint32 l_256 = l_mut_16 + l_255;
const bool l_257 = l_256 < l_164;
if (l_257) {
const uint32 l_258 = l_arr_176[uint32(3)];
const uint32 l_259 = l_258 * l_0;
const uint32 l_260 = l_259 + l_170;
const float l_261 = buffer_2[l_260];
l_arr_233[uint32(3)] = l_261;
}
l_arr_233[uint32(4)] = float(0.0);
const uint32 l_262 = uint32(4) * l_3;
const uint32 l_263 = l_mut_16 + l_262;
const bool l_264 = l_263 < l_164;
if (l_264) {
const uint32 l_265 = l_arr_176[uint32(4)];
const uint32 l_266 = l_265 * l_0;
const uint32 l_267 = l_266 + l_170;
const float l_268 = buffer_2[l_267];
l_arr_233[uint32(4)] = l_268;
}
l_arr_233[uint32(5)] = float(0.0);
const uint32 l_269 = uint32(5) * l_3;
const uint32 l_270 = l_mut_16 + l_269;
const bool l_271 = l_270 < l_164;
if (l_271) {
const uint32 l_272 = l_arr_176[uint32(5)];
const uint32 l_273 = l_272 * l_0;
const uint32 l_274 = l_273 + l_170;
const float l_275 = buffer_2[l_274];
l_arr_233[uint32(5)] = l_275;
}
l_arr_233[uint32(6)] = float(0.0);
const uint32 l_276 = uint32(6) * l_3;
const uint32 l_277 = l_mut_16 + l_276;
const bool l_278 = l_277 < l_164;
if (l_278) {
const uint32 l_279 = l_arr_176[uint32(6)];
const uint32 l_280 = l_279 * l_0;
const uint32 l_281 = l_280 + l_170;
const float l_282 = buffer_2[l_281];
l_arr_233[uint32(6)] = l_282;
}
l_arr_233[uint32(7)] = float(0.0);
const uint32 l_283 = uint32(7) * l_3;
const uint32 l_284 = l_mut_16 + l_283;
const bool l_285 = l_284 < l_164;
if (l_285) {
const uint32 l_286 = l_arr_176[uint32(7)];
const uint32 l_287 = l_286 * l_0;
const uint32 l_288 = l_287 + l_170;
const float l_289 = buffer_2[l_288];
l_arr_233[uint32(7)] = l_289;
}
const float l_290 = l_arr_233[uint32(0)];
l_mut_19 = l_mut_19 + l_290;
const float l_291 = l_arr_233[uint32(1)];
l_mut_19 = l_mut_19 + l_291;
const float l_292 = l_arr_233[uint32(2)];
l_mut_19 = l_mut_19 + l_292;
const float l_293 = l_arr_233[uint32(3)];
l_mut_19 = l_mut_19 + l_293;
const float l_294 = l_arr_233[uint32(4)];
l_mut_19 = l_mut_19 + l_294;
const float l_295 = l_arr_233[uint32(5)];
l_mut_19 = l_mut_19 + l_295;
const float l_296 = l_arr_233[uint32(6)];
l_mut_19 = l_mut_19 + l_296;
const float l_297 = l_arr_233[uint32(7)];
l_mut_19 = l_mut_19 + l_297;
const uint32 l_298 = uint32(8) * l_3;
l_mut_16 = l_mut_16 + l_298;
}
l_mut_149 = l_mut_19;
}
shared_memory_153[threadIdx.x] = l_mut_149;
__syncthreads();

const bool l_299 = l_5 == uint32(0);
const bool l_300 = l_167 && l_299;
const bool l_301 = l_170 < l_0;
const bool l_302 = l_300 && l_301;
if (l_302) {
l_mut_149 = float(0.0);

for (uint32 l_mut_303 = uint32(0); l_mut_303 < l_3; ++l_mut_303) {
const uint32 l_304 = l_mut_303 * info.scalars_uint32[2];
const uint32 l_305 = l_304 + l_6;
const float l_306 = shared_memory_153[l_305];
l_mut_149 = l_mut_149 + l_306;
}
const uint32 l_307 = l_157 * l_0;
const uint32 l_308 = l_307 + l_170;
const uint32 l_309 = l_164 - l_161;
l_mut_19 = l_mut_149;
const bool l_310 = l_309 > uint32(0);
if (l_310) {
const float l_311 = float(l_309);
const float l_312 = l_mut_149 / l_311;
l_mut_19 = l_312;
}
buffer_3[l_308] = l_mut_19;
}
__syncthreads();

l_mut_20 = l_mut_20 + info.scalars_uint32[2];
}
}

}
