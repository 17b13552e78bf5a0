// Generated from cubecl/src/matmul_tf32.rs by CubeCL 0.10.0 for sm_90: do not edit.
// Regenerate with `cargo run --release --bin generate-cuda` in cubecl/ (cargo test checks it).
// CubeCL's `#include <cuda_runtime.h>` is left out: NVRTC provides everything the kernel uses,
// and the header would need a CUDA toolkit's include directory on the machine that compiles it.
namespace nvcuda { namespace wmma {
__device__ __forceinline__ float __float_to_tf32(float in) {
unsigned out;
asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(out) : "f"(in));
return __uint_as_float(out);
}
} }
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
    uint32 scalars_uint32[4];uint32 static_meta[6];
};


extern "C" __global__ void __launch_bounds__(256)matmul_tf32_kernel (
    const float* __restrict__ buffer_0, const float* __restrict__ buffer_1, float* buffer_2, const __grid_constant__ info_st info
) {
uint3 absoluteIdx = make_uint3(
    blockIdx.x * blockDim.x + threadIdx.x,
    blockIdx.y * blockDim.y + threadIdx.y,
    blockIdx.z * blockDim.z + threadIdx.z
);
uint32 threadIdxGlobal = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * (blockDim.x * blockDim.y);
uint32 idxGlobal = (
                absoluteIdx.z * gridDim.x * blockDim.x * gridDim.y * blockDim.y)
                + (absoluteIdx.y * gridDim.x * blockDim.x)
                + absoluteIdx.x;
extern __shared__ __align__(4) uint8 dynamic_shared_mem[];
// Shared array size: 8832, 35328 bytes
float *shared_memory_0 = reinterpret_cast<float*>(&dynamic_shared_mem[0]);
float l_arr_16[16];

float l_arr_17[16];

float frag_acc_8[8];
float frag_acc_9[8];
float frag_acc_10[8];
float frag_acc_11[8];
float frag_acc_12[8];
float frag_acc_13[8];
float frag_acc_14[8];
float frag_acc_15[8];
float l_mut_32;
const uint32 l_1 = threadIdx.x / uint32(32);
const uint32 l_2 = l_1 / uint32(4);
const uint32 l_3 = l_2 * uint32(64);
const uint32 l_4 = l_1 % uint32(4);
const uint32 l_5 = l_4 * uint32(32);
const uint32 l_6 = blockIdx.y * uint32(128);
const uint32 l_7 = blockIdx.x * uint32(128);
// fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_8[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_9[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_10[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_11[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_12[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_13[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_14[i] = float(0.0);
}
 // fill
for (uint i = 0; i < uint(8); ++i) {
  frag_acc_15[i] = float(0.0);
}
 const uint32 l_18 = info.scalars_uint32[2] + uint32(32);
const uint32 l_19 = l_18 - uint32(1);
const uint32 l_20 = l_19 / uint32(32);
const bool l_21 = l_20 > uint32(0);
if (l_21) {
const uint32 l_22 = threadIdx.x + uint32(0);
const uint32 l_23 = l_22 / uint32(32);
const uint32 l_24 = l_6 + l_23;
const uint32 l_25 = l_22 % uint32(32);
const uint32 l_26 = uint32(0) + l_25;
const uint32 l_27 = l_24 * info.scalars_uint32[2];
const uint32 l_28 = l_27 + l_26;
const bool l_29 = l_24 < info.scalars_uint32[0];
const bool l_30 = l_26 < info.scalars_uint32[2];
const bool l_31 = l_29 && l_30;
l_mut_32 = float(0.0);
if (l_31) {
const float l_33 = buffer_0[l_28];
l_mut_32 = l_33;
}
l_arr_16[uint32(0)] = l_mut_32;
const uint32 l_34 = l_22 / uint32(128);
const uint32 l_35 = uint32(0) + l_34;
const uint32 l_36 = l_22 % uint32(128);
const uint32 l_37 = l_7 + l_36;
const uint32 l_38 = l_35 * info.scalars_uint32[1];
const uint32 l_39 = l_38 + l_37;
const bool l_40 = l_35 < info.scalars_uint32[2];
const bool l_41 = l_37 < info.scalars_uint32[1];
const bool l_42 = l_40 && l_41;
l_mut_32 = float(0.0);
if (l_42) {
const float l_43 = buffer_1[l_39];
l_mut_32 = l_43;
}
l_arr_17[uint32(0)] = l_mut_32;
const uint32 l_44 = threadIdx.x + uint32(256);
const uint32 l_45 = l_44 / uint32(32);
const uint32 l_46 = l_6 + l_45;
const uint32 l_47 = l_44 % uint32(32);
const uint32 l_48 = uint32(0) + l_47;
const uint32 l_49 = l_46 * info.scalars_uint32[2];
const uint32 l_50 = l_49 + l_48;
const bool l_51 = l_46 < info.scalars_uint32[0];
const bool l_52 = l_48 < info.scalars_uint32[2];
const bool l_53 = l_51 && l_52;
l_mut_32 = float(0.0);
if (l_53) {
const float l_54 = buffer_0[l_50];
l_mut_32 = l_54;
}
l_arr_16[uint32(1)] = l_mut_32;
const uint32 l_55 = l_44 / uint32(128);
const uint32 l_56 = uint32(0) + l_55;
const uint32 l_57 = l_44 % uint32(128);
const uint32 l_58 = l_7 + l_57;
const uint32 l_59 = l_56 * info.scalars_uint32[1];
const uint32 l_60 = l_59 + l_58;
const bool l_61 = l_56 < info.scalars_uint32[2];
const bool l_62 = l_58 < info.scalars_uint32[1];
const bool l_63 = l_61 && l_62;
l_mut_32 = float(0.0);
if (l_63) {
const float l_64 = buffer_1[l_60];
l_mut_32 = l_64;
}
l_arr_17[uint32(1)] = l_mut_32;
const uint32 l_65 = threadIdx.x + uint32(512);
const uint32 l_66 = l_65 / uint32(32);
const uint32 l_67 = l_6 + l_66;
const uint32 l_68 = l_65 % uint32(32);
const uint32 l_69 = uint32(0) + l_68;
const uint32 l_70 = l_67 * info.scalars_uint32[2];
const uint32 l_71 = l_70 + l_69;
const bool l_72 = l_67 < info.scalars_uint32[0];
const bool l_73 = l_69 < info.scalars_uint32[2];
const bool l_74 = l_72 && l_73;
l_mut_32 = float(0.0);
if (l_74) {
const float l_75 = buffer_0[l_71];
l_mut_32 = l_75;
}
l_arr_16[uint32(2)] = l_mut_32;
const uint32 l_76 = l_65 / uint32(128);
const uint32 l_77 = uint32(0) + l_76;
const uint32 l_78 = l_65 % uint32(128);
const uint32 l_79 = l_7 + l_78;
const uint32 l_80 = l_77 * info.scalars_uint32[1];
const uint32 l_81 = l_80 + l_79;
const bool l_82 = l_77 < info.scalars_uint32[2];
const bool l_83 = l_79 < info.scalars_uint32[1];
const bool l_84 = l_82 && l_83;
l_mut_32 = float(0.0);
if (l_84) {
const float l_85 = buffer_1[l_81];
l_mut_32 = l_85;
}
l_arr_17[uint32(2)] = l_mut_32;
const uint32 l_86 = threadIdx.x + uint32(768);
const uint32 l_87 = l_86 / uint32(32);
const uint32 l_88 = l_6 + l_87;
const uint32 l_89 = l_86 % uint32(32);
const uint32 l_90 = uint32(0) + l_89;
const uint32 l_91 = l_88 * info.scalars_uint32[2];
const uint32 l_92 = l_91 + l_90;
const bool l_93 = l_88 < info.scalars_uint32[0];
const bool l_94 = l_90 < info.scalars_uint32[2];
const bool l_95 = l_93 && l_94;
l_mut_32 = float(0.0);
if (l_95) {
const float l_96 = buffer_0[l_92];
l_mut_32 = l_96;
}
l_arr_16[uint32(3)] = l_mut_32;
const uint32 l_97 = l_86 / uint32(128);
const uint32 l_98 = uint32(0) + l_97;
const uint32 l_99 = l_86 % uint32(128);
const uint32 l_100 = l_7 + l_99;
const uint32 l_101 = l_98 * info.scalars_uint32[1];
const uint32 l_102 = l_101 + l_100;
const bool l_103 = l_98 < info.scalars_uint32[2];
const bool l_104 = l_100 < info.scalars_uint32[1];
const bool l_105 = l_103 && l_104;
l_mut_32 = float(0.0);
if (l_105) {
const float l_106 = buffer_1[l_102];
l_mut_32 = l_106;
}
l_arr_17[uint32(3)] = l_mut_32;
const uint32 l_107 = threadIdx.x + uint32(1024);
const uint32 l_108 = l_107 / uint32(32);
const uint32 l_109 = l_6 + l_108;
const uint32 l_110 = l_107 % uint32(32);
const uint32 l_111 = uint32(0) + l_110;
const uint32 l_112 = l_109 * info.scalars_uint32[2];
const uint32 l_113 = l_112 + l_111;
const bool l_114 = l_109 < info.scalars_uint32[0];
const bool l_115 = l_111 < info.scalars_uint32[2];
const bool l_116 = l_114 && l_115;
l_mut_32 = float(0.0);
if (l_116) {
const float l_117 = buffer_0[l_113];
l_mut_32 = l_117;
}
l_arr_16[uint32(4)] = l_mut_32;
const uint32 l_118 = l_107 / uint32(128);
const uint32 l_119 = uint32(0) + l_118;
const uint32 l_120 = l_107 % uint32(128);
const uint32 l_121 = l_7 + l_120;
const uint32 l_122 = l_119 * info.scalars_uint32[1];
const uint32 l_123 = l_122 + l_121;
const bool l_124 = l_119 < info.scalars_uint32[2];
const bool l_125 = l_121 < info.scalars_uint32[1];
const bool l_126 = l_124 && l_125;
l_mut_32 = float(0.0);
if (l_126) {
const float l_127 = buffer_1[l_123];
l_mut_32 = l_127;
}
l_arr_17[uint32(4)] = l_mut_32;
const uint32 l_128 = threadIdx.x + uint32(1280);
const uint32 l_129 = l_128 / uint32(32);
const uint32 l_130 = l_6 + l_129;
const uint32 l_131 = l_128 % uint32(32);
const uint32 l_132 = uint32(0) + l_131;
const uint32 l_133 = l_130 * info.scalars_uint32[2];
const uint32 l_134 = l_133 + l_132;
const bool l_135 = l_130 < info.scalars_uint32[0];
const bool l_136 = l_132 < info.scalars_uint32[2];
const bool l_137 = l_135 && l_136;
l_mut_32 = float(0.0);
if (l_137) {
const float l_138 = buffer_0[l_134];
l_mut_32 = l_138;
}
l_arr_16[uint32(5)] = l_mut_32;
const uint32 l_139 = l_128 / uint32(128);
const uint32 l_140 = uint32(0) + l_139;
const uint32 l_141 = l_128 % uint32(128);
const uint32 l_142 = l_7 + l_141;
const uint32 l_143 = l_140 * info.scalars_uint32[1];
const uint32 l_144 = l_143 + l_142;
const bool l_145 = l_140 < info.scalars_uint32[2];
const bool l_146 = l_142 < info.scalars_uint32[1];
const bool l_147 = l_145 && l_146;
l_mut_32 = float(0.0);
if (l_147) {
const float l_148 = buffer_1[l_144];
l_mut_32 = l_148;
}
l_arr_17[uint32(5)] = l_mut_32;
const uint32 l_149 = threadIdx.x + uint32(1536);
const uint32 l_150 = l_149 / uint32(32);
const uint32 l_151 = l_6 + l_150;
const uint32 l_152 = l_149 % uint32(32);
const uint32 l_153 = uint32(0) + l_152;
const uint32 l_154 = l_151 * info.scalars_uint32[2];
const uint32 l_155 = l_154 + l_153;
const bool l_156 = l_151 < info.scalars_uint32[0];
const bool l_157 = l_153 < info.scalars_uint32[2];
const bool l_158 = l_156 && l_157;
l_mut_32 = float(0.0);
if (l_158) {
const float l_159 = buffer_0[l_155];
l_mut_32 = l_159;
}
l_arr_16[uint32(6)] = l_mut_32;
const uint32 l_160 = l_149 / uint32(128);
const uint32 l_161 = uint32(0) + l_160;
const uint32 l_162 = l_149 % uint32(128);
const uint32 l_163 = l_7 + l_162;
const uint32 l_164 = l_161 * info.scalars_uint32[1];
const uint32 l_165 = l_164 + l_163;
const bool l_166 = l_161 < info.scalars_uint32[2];
const bool l_167 = l_163 < info.scalars_uint32[1];
const bool l_168 = l_166 && l_167;
l_mut_32 = float(0.0);
if (l_168) {
const float l_169 = buffer_1[l_165];
l_mut_32 = l_169;
}
l_arr_17[uint32(6)] = l_mut_32;
const uint32 l_170 = threadIdx.x + uint32(1792);
const uint32 l_171 = l_170 / uint32(32);
const uint32 l_172 = l_6 + l_171;
const uint32 l_173 = l_170 % uint32(32);
const uint32 l_174 = uint32(0) + l_173;
const uint32 l_175 = l_172 * info.scalars_uint32[2];
const uint32 l_176 = l_175 + l_174;
const bool l_177 = l_172 < info.scalars_uint32[0];
const bool l_178 = l_174 < info.scalars_uint32[2];
const bool l_179 = l_177 && l_178;
l_mut_32 = float(0.0);
if (l_179) {
const float l_180 = buffer_0[l_176];
l_mut_32 = l_180;
}
l_arr_16[uint32(7)] = l_mut_32;
const uint32 l_181 = l_170 / uint32(128);
const uint32 l_182 = uint32(0) + l_181;
const uint32 l_183 = l_170 % uint32(128);
const uint32 l_184 = l_7 + l_183;
const uint32 l_185 = l_182 * info.scalars_uint32[1];
const uint32 l_186 = l_185 + l_184;
const bool l_187 = l_182 < info.scalars_uint32[2];
const bool l_188 = l_184 < info.scalars_uint32[1];
const bool l_189 = l_187 && l_188;
l_mut_32 = float(0.0);
if (l_189) {
const float l_190 = buffer_1[l_186];
l_mut_32 = l_190;
}
l_arr_17[uint32(7)] = l_mut_32;
const uint32 l_191 = threadIdx.x + uint32(2048);
const uint32 l_192 = l_191 / uint32(32);
const uint32 l_193 = l_6 + l_192;
const uint32 l_194 = l_191 % uint32(32);
const uint32 l_195 = uint32(0) + l_194;
const uint32 l_196 = l_193 * info.scalars_uint32[2];
const uint32 l_197 = l_196 + l_195;
const bool l_198 = l_193 < info.scalars_uint32[0];
const bool l_199 = l_195 < info.scalars_uint32[2];
const bool l_200 = l_198 && l_199;
l_mut_32 = float(0.0);
if (l_200) {
const float l_201 = buffer_0[l_197];
l_mut_32 = l_201;
}
l_arr_16[uint32(8)] = l_mut_32;
const uint32 l_202 = l_191 / uint32(128);
const uint32 l_203 = uint32(0) + l_202;
const uint32 l_204 = l_191 % uint32(128);
const uint32 l_205 = l_7 + l_204;
const uint32 l_206 = l_203 * info.scalars_uint32[1];
const uint32 l_207 = l_206 + l_205;
const bool l_208 = l_203 < info.scalars_uint32[2];
const bool l_209 = l_205 < info.scalars_uint32[1];
const bool l_210 = l_208 && l_209;
l_mut_32 = float(0.0);
if (l_210) {
const float l_211 = buffer_1[l_207];
l_mut_32 = l_211;
}
l_arr_17[uint32(8)] = l_mut_32;
const uint32 l_212 = threadIdx.x + uint32(2304);
const uint32 l_213 = l_212 / uint32(32);
const uint32 l_214 = l_6 + l_213;
const uint32 l_215 = l_212 % uint32(32);
const uint32 l_216 = uint32(0) + l_215;
const uint32 l_217 = l_214 * info.scalars_uint32[2];
const uint32 l_218 = l_217 + l_216;
const bool l_219 = l_214 < info.scalars_uint32[0];
const bool l_220 = l_216 < info.scalars_uint32[2];
const bool l_221 = l_219 && l_220;
l_mut_32 = float(0.0);
if (l_221) {
const float l_222 = buffer_0[l_218];
l_mut_32 = l_222;
}
l_arr_16[uint32(9)] = l_mut_32;
const uint32 l_223 = l_212 / uint32(128);
const uint32 l_224 = uint32(0) + l_223;
const uint32 l_225 = l_212 % uint32(128);
const uint32 l_226 = l_7 + l_225;
const uint32 l_227 = l_224 * info.scalars_uint32[1];
const uint32 l_228 = l_227 + l_226;
const bool l_229 = l_224 < info.scalars_uint32[2];
const bool l_230 = l_226 < info.scalars_uint32[1];
const bool l_231 = l_229 && l_230;
l_mut_32 = float(0.0);
if (l_231) {
const float l_232 = buffer_1[l_228];
l_mut_32 = l_232;
}
l_arr_17[uint32(9)] = l_mut_32;
const uint32 l_233 = threadIdx.x + uint32(2560);
const uint32 l_234 = l_233 / uint32(32);
const uint32 l_235 = l_6 + l_234;
const uint32 l_236 = l_233 % uint32(32);
const uint32 l_237 = uint32(0) + l_236;
const uint32 l_238 = l_235 * info.scalars_uint32[2];
const uint32 l_239 = l_238 + l_237;
const bool l_240 = l_235 < info.scalars_uint32[0];
const bool l_241 = l_237 < info.scalars_uint32[2];
const bool l_242 = l_240 && l_241;
l_mut_32 = float(0.0);
if (l_242) {
const float l_243 = buffer_0[l_239];
l_mut_32 = l_243;
}
l_arr_16[uint32(10)] = l_mut_32;
const uint32 l_244 = l_233 / uint32(128);
const uint32 l_245 = uint32(0) + l_244;
const uint32 l_246 = l_233 % uint32(128);
const uint32 l_247 = l_7 + l_246;
const uint32 l_248 = l_245 * info.scalars_uint32[1];
const uint32 l_249 = l_248 + l_247;
const bool l_250 = l_245 < info.scalars_uint32[2];
const bool l_251 = l_247 < info.scalars_uint32[1];
const bool l_252 = l_250 && l_251;
l_mut_32 = float(0.0);
if (l_252) {
const float l_253 = buffer_1[l_249];
l_mut_32 = l_253;
}
l_arr_17[uint32(10)] = l_mut_32;
const uint32 l_254 = threadIdx.x + uint32(2816);
const uint32 l_255 = l_254 / uint32(32);
const uint32 l_256 = l_6 + l_255;
const uint32 l_257 = l_254 % uint32(32);
const uint32 l_258 = uint32(0) + l_257;
const uint32 l_259 = l_256 * info.scalars_uint32[2];
const uint32 l_260 = l_259 + l_258;
const bool l_261 = l_256 < info.scalars_uint32[0];
const bool l_262 = l_258 < info.scalars_uint32[2];
const bool l_263 = l_261 && l_262;
l_mut_32 = float(0.0);
if (l_263) {
const float l_264 = buffer_0[l_260];
l_mut_32 = l_264;
}
l_arr_16[uint32(11)] = l_mut_32;
const uint32 l_265 = l_254 / uint32(128);
const uint32 l_266 = uint32(0) + l_265;
const uint32 l_267 = l_254 % uint32(128);
const uint32 l_268 = l_7 + l_267;
const uint32 l_269 = l_266 * info.scalars_uint32[1];
const uint32 l_270 = l_269 + l_268;
const bool l_271 = l_266 < info.scalars_uint32[2];
const bool l_272 = l_268 < info.scalars_uint32[1];
const bool l_273 = l_271 && l_272;
l_mut_32 = float(0.0);
if (l_273) {
const float l_274 = buffer_1[l_270];
l_mut_32 = l_274;
}
l_arr_17[uint32(11)] = l_mut_32;
const uint32 l_275 = threadIdx.x + uint32(3072);
const uint32 l_276 = l_275 / uint32(32);
const uint32 l_277 = l_6 + l_276;
const uint32 l_278 = l_275 % uint32(32);
const uint32 l_279 = uint32(0) + l_278;
const uint32 l_280 = l_277 * info.scalars_uint32[2];
const uint32 l_281 = l_280 + l_279;
const bool l_282 = l_277 < info.scalars_uint32[0];
const bool l_283 = l_279 < info.scalars_uint32[2];
const bool l_284 = l_282 && l_283;
l_mut_32 = float(0.0);
if (l_284) {
const float l_285 = buffer_0[l_281];
l_mut_32 = l_285;
}
l_arr_16[uint32(12)] = l_mut_32;
const uint32 l_286 = l_275 / uint32(128);
const uint32 l_287 = uint32(0) + l_286;
const uint32 l_288 = l_275 % uint32(128);
const uint32 l_289 = l_7 + l_288;
const uint32 l_290 = l_287 * info.scalars_uint32[1];
const uint32 l_291 = l_290 + l_289;
const bool l_292 = l_287 < info.scalars_uint32[2];
const bool l_293 = l_289 < info.scalars_uint32[1];
const bool l_294 = l_292 && l_293;
l_mut_32 = float(0.0);
if (l_294) {
const float l_295 = buffer_1[l_291];
l_mut_32 = l_295;
}
l_arr_17[uint32(12)] = l_mut_32;
const uint32 l_296 = threadIdx.x + uint32(3328);
const uint32 l_297 = l_296 / uint32(32);
const uint32 l_298 = l_6 + l_297;
const uint32 l_299 = l_296 % uint32(32);
const uint32 l_300 = uint32(0) + l_299;
const uint32 l_301 = l_298 * info.scalars_uint32[2];
const uint32 l_302 = l_301 + l_300;
const bool l_303 = l_298 < info.scalars_uint32[0];
const bool l_304 = l_300 < info.scalars_uint32[2];
const bool l_305 = l_303 && l_304;
l_mut_32 = float(0.0);
if (l_305) {
const float l_306 = buffer_0[l_302];
l_mut_32 = l_306;
}
l_arr_16[uint32(13)] = l_mut_32;
const uint32 l_307 = l_296 / uint32(128);
const uint32 l_308 = uint32(0) + l_307;
const uint32 l_309 = l_296 % uint32(128);
const uint32 l_310 = l_7 + l_309;
const uint32 l_311 = l_308 * info.scalars_uint32[1];
const uint32 l_312 = l_311 + l_310;
const bool l_313 = l_308 < info.scalars_uint32[2];
const bool l_314 = l_310 < info.scalars_uint32[1];
const bool l_315 = l_313 && l_314;
l_mut_32 = float(0.0);
if (l_315) {
const float l_316 = buffer_1[l_312];
l_mut_32 = l_316;
}
l_arr_17[uint32(13)] = l_mut_32;
const uint32 l_317 = threadIdx.x + uint32(3584);
const uint32 l_318 = l_317 / uint32(32);
const uint32 l_319 = l_6 + l_318;
const uint32 l_320 = l_317 % uint32(32);
const uint32 l_321 = uint32(0) + l_320;
const uint32 l_322 = l_319 * info.scalars_uint32[2];
const uint32 l_323 = l_322 + l_321;
const bool l_324 = l_319 < info.scalars_uint32[0];
const bool l_325 = l_321 < info.scalars_uint32[2];
const bool l_326 = l_324 && l_325;
l_mut_32 = float(0.0);
if (l_326) {
const float l_327 = buffer_0[l_323];
l_mut_32 = l_327;
}
l_arr_16[uint32(14)] = l_mut_32;
const uint32 l_328 = l_317 / uint32(128);
const uint32 l_329 = uint32(0) + l_328;
const uint32 l_330 = l_317 % uint32(128);
const uint32 l_331 = l_7 + l_330;
const uint32 l_332 = l_329 * info.scalars_uint32[1];
const uint32 l_333 = l_332 + l_331;
const bool l_334 = l_329 < info.scalars_uint32[2];
const bool l_335 = l_331 < info.scalars_uint32[1];
const bool l_336 = l_334 && l_335;
l_mut_32 = float(0.0);
if (l_336) {
const float l_337 = buffer_1[l_333];
l_mut_32 = l_337;
}
l_arr_17[uint32(14)] = l_mut_32;
const uint32 l_338 = threadIdx.x + uint32(3840);
const uint32 l_339 = l_338 / uint32(32);
const uint32 l_340 = l_6 + l_339;
const uint32 l_341 = l_338 % uint32(32);
const uint32 l_342 = uint32(0) + l_341;
const uint32 l_343 = l_340 * info.scalars_uint32[2];
const uint32 l_344 = l_343 + l_342;
const bool l_345 = l_340 < info.scalars_uint32[0];
const bool l_346 = l_342 < info.scalars_uint32[2];
const bool l_347 = l_345 && l_346;
l_mut_32 = float(0.0);
if (l_347) {
const float l_348 = buffer_0[l_344];
l_mut_32 = l_348;
}
l_arr_16[uint32(15)] = l_mut_32;
const uint32 l_349 = l_338 / uint32(128);
const uint32 l_350 = uint32(0) + l_349;
const uint32 l_351 = l_338 % uint32(128);
const uint32 l_352 = l_7 + l_351;
const uint32 l_353 = l_350 * info.scalars_uint32[1];
const uint32 l_354 = l_353 + l_352;
const bool l_355 = l_350 < info.scalars_uint32[2];
const bool l_356 = l_352 < info.scalars_uint32[1];
const bool l_357 = l_355 && l_356;
l_mut_32 = float(0.0);
if (l_357) {
const float l_358 = buffer_1[l_354];
l_mut_32 = l_358;
}
l_arr_17[uint32(15)] = l_mut_32;
}

for (uint32 l_mut_359 = uint32(0); l_mut_359 < l_20; ++l_mut_359) {
unsigned int frag_b_928[4];
unsigned int frag_b_933[4];
unsigned int frag_a_939[4];
unsigned int frag_a_945[4];
unsigned int frag_a_951[4];
unsigned int frag_a_957[4];
unsigned int frag_b_962[4];
unsigned int frag_b_967[4];
unsigned int frag_a_973[4];
unsigned int frag_a_979[4];
unsigned int frag_a_985[4];
unsigned int frag_a_991[4];
unsigned int frag_b_996[4];
unsigned int frag_b_1001[4];
unsigned int frag_a_1007[4];
unsigned int frag_a_1013[4];
unsigned int frag_a_1019[4];
unsigned int frag_a_1025[4];
unsigned int frag_b_1030[4];
unsigned int frag_b_1035[4];
unsigned int frag_a_1041[4];
unsigned int frag_a_1047[4];
unsigned int frag_a_1053[4];
unsigned int frag_a_1059[4];
const uint32 l_360 = threadIdx.x + uint32(0);
const uint32 l_361 = l_360 / uint32(32);
const uint32 l_362 = l_361 * uint32(36);
const uint32 l_363 = l_360 % uint32(32);
const uint32 l_364 = l_362 + l_363;
const float l_365 = l_arr_16[uint32(0)];
const float l_366 = nvcuda::wmma::__float_to_tf32(l_365);
shared_memory_0[l_364] = l_366;
const uint32 l_367 = l_360 / uint32(128);
const uint32 l_368 = l_367 * uint32(132);
const uint32 l_369 = uint32(4608) + l_368;
const uint32 l_370 = l_360 % uint32(128);
const uint32 l_371 = l_369 + l_370;
const float l_372 = l_arr_17[uint32(0)];
const float l_373 = nvcuda::wmma::__float_to_tf32(l_372);
shared_memory_0[l_371] = l_373;
const uint32 l_374 = threadIdx.x + uint32(256);
const uint32 l_375 = l_374 / uint32(32);
const uint32 l_376 = l_375 * uint32(36);
const uint32 l_377 = l_374 % uint32(32);
const uint32 l_378 = l_376 + l_377;
const float l_379 = l_arr_16[uint32(1)];
const float l_380 = nvcuda::wmma::__float_to_tf32(l_379);
shared_memory_0[l_378] = l_380;
const uint32 l_381 = l_374 / uint32(128);
const uint32 l_382 = l_381 * uint32(132);
const uint32 l_383 = uint32(4608) + l_382;
const uint32 l_384 = l_374 % uint32(128);
const uint32 l_385 = l_383 + l_384;
const float l_386 = l_arr_17[uint32(1)];
const float l_387 = nvcuda::wmma::__float_to_tf32(l_386);
shared_memory_0[l_385] = l_387;
const uint32 l_388 = threadIdx.x + uint32(512);
const uint32 l_389 = l_388 / uint32(32);
const uint32 l_390 = l_389 * uint32(36);
const uint32 l_391 = l_388 % uint32(32);
const uint32 l_392 = l_390 + l_391;
const float l_393 = l_arr_16[uint32(2)];
const float l_394 = nvcuda::wmma::__float_to_tf32(l_393);
shared_memory_0[l_392] = l_394;
const uint32 l_395 = l_388 / uint32(128);
const uint32 l_396 = l_395 * uint32(132);
const uint32 l_397 = uint32(4608) + l_396;
const uint32 l_398 = l_388 % uint32(128);
const uint32 l_399 = l_397 + l_398;
const float l_400 = l_arr_17[uint32(2)];
const float l_401 = nvcuda::wmma::__float_to_tf32(l_400);
shared_memory_0[l_399] = l_401;
const uint32 l_402 = threadIdx.x + uint32(768);
const uint32 l_403 = l_402 / uint32(32);
const uint32 l_404 = l_403 * uint32(36);
const uint32 l_405 = l_402 % uint32(32);
const uint32 l_406 = l_404 + l_405;
const float l_407 = l_arr_16[uint32(3)];
const float l_408 = nvcuda::wmma::__float_to_tf32(l_407);
shared_memory_0[l_406] = l_408;
const uint32 l_409 = l_402 / uint32(128);
const uint32 l_410 = l_409 * uint32(132);
const uint32 l_411 = uint32(4608) + l_410;
const uint32 l_412 = l_402 % uint32(128);
const uint32 l_413 = l_411 + l_412;
const float l_414 = l_arr_17[uint32(3)];
const float l_415 = nvcuda::wmma::__float_to_tf32(l_414);
shared_memory_0[l_413] = l_415;
const uint32 l_416 = threadIdx.x + uint32(1024);
const uint32 l_417 = l_416 / uint32(32);
const uint32 l_418 = l_417 * uint32(36);
const uint32 l_419 = l_416 % uint32(32);
const uint32 l_420 = l_418 + l_419;
const float l_421 = l_arr_16[uint32(4)];
const float l_422 = nvcuda::wmma::__float_to_tf32(l_421);
shared_memory_0[l_420] = l_422;
const uint32 l_423 = l_416 / uint32(128);
const uint32 l_424 = l_423 * uint32(132);
const uint32 l_425 = uint32(4608) + l_424;
const uint32 l_426 = l_416 % uint32(128);
const uint32 l_427 = l_425 + l_426;
const float l_428 = l_arr_17[uint32(4)];
const float l_429 = nvcuda::wmma::__float_to_tf32(l_428);
shared_memory_0[l_427] = l_429;
const uint32 l_430 = threadIdx.x + uint32(1280);
const uint32 l_431 = l_430 / uint32(32);
const uint32 l_432 = l_431 * uint32(36);
const uint32 l_433 = l_430 % uint32(32);
const uint32 l_434 = l_432 + l_433;
const float l_435 = l_arr_16[uint32(5)];
const float l_436 = nvcuda::wmma::__float_to_tf32(l_435);
shared_memory_0[l_434] = l_436;
const uint32 l_437 = l_430 / uint32(128);
const uint32 l_438 = l_437 * uint32(132);
const uint32 l_439 = uint32(4608) + l_438;
const uint32 l_440 = l_430 % uint32(128);
const uint32 l_441 = l_439 + l_440;
const float l_442 = l_arr_17[uint32(5)];
const float l_443 = nvcuda::wmma::__float_to_tf32(l_442);
shared_memory_0[l_441] = l_443;
const uint32 l_444 = threadIdx.x + uint32(1536);
const uint32 l_445 = l_444 / uint32(32);
const uint32 l_446 = l_445 * uint32(36);
const uint32 l_447 = l_444 % uint32(32);
const uint32 l_448 = l_446 + l_447;
const float l_449 = l_arr_16[uint32(6)];
const float l_450 = nvcuda::wmma::__float_to_tf32(l_449);
shared_memory_0[l_448] = l_450;
const uint32 l_451 = l_444 / uint32(128);
const uint32 l_452 = l_451 * uint32(132);
const uint32 l_453 = uint32(4608) + l_452;
const uint32 l_454 = l_444 % uint32(128);
const uint32 l_455 = l_453 + l_454;
const float l_456 = l_arr_17[uint32(6)];
const float l_457 = nvcuda::wmma::__float_to_tf32(l_456);
shared_memory_0[l_455] = l_457;
const uint32 l_458 = threadIdx.x + uint32(1792);
const uint32 l_459 = l_458 / uint32(32);
const uint32 l_460 = l_459 * uint32(36);
const uint32 l_461 = l_458 % uint32(32);
const uint32 l_462 = l_460 + l_461;
const float l_463 = l_arr_16[uint32(7)];
const float l_464 = nvcuda::wmma::__float_to_tf32(l_463);
shared_memory_0[l_462] = l_464;
const uint32 l_465 = l_458 / uint32(128);
const uint32 l_466 = l_465 * uint32(132);
const uint32 l_467 = uint32(4608) + l_466;
const uint32 l_468 = l_458 % uint32(128);
const uint32 l_469 = l_467 + l_468;
const float l_470 = l_arr_17[uint32(7)];
const float l_471 = nvcuda::wmma::__float_to_tf32(l_470);
shared_memory_0[l_469] = l_471;
const uint32 l_472 = threadIdx.x + uint32(2048);
const uint32 l_473 = l_472 / uint32(32);
const uint32 l_474 = l_473 * uint32(36);
const uint32 l_475 = l_472 % uint32(32);
const uint32 l_476 = l_474 + l_475;
const float l_477 = l_arr_16[uint32(8)];
const float l_478 = nvcuda::wmma::__float_to_tf32(l_477);
shared_memory_0[l_476] = l_478;
const uint32 l_479 = l_472 / uint32(128);
const uint32 l_480 = l_479 * uint32(132);
const uint32 l_481 = uint32(4608) + l_480;
const uint32 l_482 = l_472 % uint32(128);
const uint32 l_483 = l_481 + l_482;
const float l_484 = l_arr_17[uint32(8)];
const float l_485 = nvcuda::wmma::__float_to_tf32(l_484);
shared_memory_0[l_483] = l_485;
const uint32 l_486 = threadIdx.x + uint32(2304);
const uint32 l_487 = l_486 / uint32(32);
const uint32 l_488 = l_487 * uint32(36);
const uint32 l_489 = l_486 % uint32(32);
const uint32 l_490 = l_488 + l_489;
const float l_491 = l_arr_16[uint32(9)];
const float l_492 = nvcuda::wmma::__float_to_tf32(l_491);
shared_memory_0[l_490] = l_492;
const uint32 l_493 = l_486 / uint32(128);
const uint32 l_494 = l_493 * uint32(132);
const uint32 l_495 = uint32(4608) + l_494;
const uint32 l_496 = l_486 % uint32(128);
const uint32 l_497 = l_495 + l_496;
const float l_498 = l_arr_17[uint32(9)];
const float l_499 = nvcuda::wmma::__float_to_tf32(l_498);
shared_memory_0[l_497] = l_499;
const uint32 l_500 = threadIdx.x + uint32(2560);
const uint32 l_501 = l_500 / uint32(32);
const uint32 l_502 = l_501 * uint32(36);
const uint32 l_503 = l_500 % uint32(32);
const uint32 l_504 = l_502 + l_503;
const float l_505 = l_arr_16[uint32(10)];
const float l_506 = nvcuda::wmma::__float_to_tf32(l_505);
shared_memory_0[l_504] = l_506;
const uint32 l_507 = l_500 / uint32(128);
const uint32 l_508 = l_507 * uint32(132);
const uint32 l_509 = uint32(4608) + l_508;
const uint32 l_510 = l_500 % uint32(128);
const uint32 l_511 = l_509 + l_510;
const float l_512 = l_arr_17[uint32(10)];
const float l_513 = nvcuda::wmma::__float_to_tf32(l_512);
shared_memory_0[l_511] = l_513;
const uint32 l_514 = threadIdx.x + uint32(2816);
const uint32 l_515 = l_514 / uint32(32);
const uint32 l_516 = l_515 * uint32(36);
const uint32 l_517 = l_514 % uint32(32);
const uint32 l_518 = l_516 + l_517;
const float l_519 = l_arr_16[uint32(11)];
const float l_520 = nvcuda::wmma::__float_to_tf32(l_519);
shared_memory_0[l_518] = l_520;
const uint32 l_521 = l_514 / uint32(128);
const uint32 l_522 = l_521 * uint32(132);
const uint32 l_523 = uint32(4608) + l_522;
const uint32 l_524 = l_514 % uint32(128);
const uint32 l_525 = l_523 + l_524;
const float l_526 = l_arr_17[uint32(11)];
const float l_527 = nvcuda::wmma::__float_to_tf32(l_526);
shared_memory_0[l_525] = l_527;
const uint32 l_528 = threadIdx.x + uint32(3072);
const uint32 l_529 = l_528 / uint32(32);
const uint32 l_530 = l_529 * uint32(36);
const uint32 l_531 = l_528 % uint32(32);
const uint32 l_532 = l_530 + l_531;
const float l_533 = l_arr_16[uint32(12)];
const float l_534 = nvcuda::wmma::__float_to_tf32(l_533);
shared_memory_0[l_532] = l_534;
const uint32 l_535 = l_528 / uint32(128);
const uint32 l_536 = l_535 * uint32(132);
const uint32 l_537 = uint32(4608) + l_536;
const uint32 l_538 = l_528 % uint32(128);
const uint32 l_539 = l_537 + l_538;
const float l_540 = l_arr_17[uint32(12)];
const float l_541 = nvcuda::wmma::__float_to_tf32(l_540);
shared_memory_0[l_539] = l_541;
const uint32 l_542 = threadIdx.x + uint32(3328);
const uint32 l_543 = l_542 / uint32(32);
const uint32 l_544 = l_543 * uint32(36);
const uint32 l_545 = l_542 % uint32(32);
const uint32 l_546 = l_544 + l_545;
const float l_547 = l_arr_16[uint32(13)];
const float l_548 = nvcuda::wmma::__float_to_tf32(l_547);
shared_memory_0[l_546] = l_548;
const uint32 l_549 = l_542 / uint32(128);
const uint32 l_550 = l_549 * uint32(132);
const uint32 l_551 = uint32(4608) + l_550;
const uint32 l_552 = l_542 % uint32(128);
const uint32 l_553 = l_551 + l_552;
const float l_554 = l_arr_17[uint32(13)];
const float l_555 = nvcuda::wmma::__float_to_tf32(l_554);
shared_memory_0[l_553] = l_555;
const uint32 l_556 = threadIdx.x + uint32(3584);
const uint32 l_557 = l_556 / uint32(32);
const uint32 l_558 = l_557 * uint32(36);
const uint32 l_559 = l_556 % uint32(32);
const uint32 l_560 = l_558 + l_559;
const float l_561 = l_arr_16[uint32(14)];
const float l_562 = nvcuda::wmma::__float_to_tf32(l_561);
shared_memory_0[l_560] = l_562;
const uint32 l_563 = l_556 / uint32(128);
const uint32 l_564 = l_563 * uint32(132);
const uint32 l_565 = uint32(4608) + l_564;
const uint32 l_566 = l_556 % uint32(128);
const uint32 l_567 = l_565 + l_566;
const float l_568 = l_arr_17[uint32(14)];
const float l_569 = nvcuda::wmma::__float_to_tf32(l_568);
shared_memory_0[l_567] = l_569;
const uint32 l_570 = threadIdx.x + uint32(3840);
const uint32 l_571 = l_570 / uint32(32);
const uint32 l_572 = l_571 * uint32(36);
const uint32 l_573 = l_570 % uint32(32);
const uint32 l_574 = l_572 + l_573;
const float l_575 = l_arr_16[uint32(15)];
const float l_576 = nvcuda::wmma::__float_to_tf32(l_575);
shared_memory_0[l_574] = l_576;
const uint32 l_577 = l_570 / uint32(128);
const uint32 l_578 = l_577 * uint32(132);
const uint32 l_579 = uint32(4608) + l_578;
const uint32 l_580 = l_570 % uint32(128);
const uint32 l_581 = l_579 + l_580;
const float l_582 = l_arr_17[uint32(15)];
const float l_583 = nvcuda::wmma::__float_to_tf32(l_582);
shared_memory_0[l_581] = l_583;
__syncthreads();

const uint32 l_584 = l_mut_359 + uint32(1);
const bool l_585 = l_584 < l_20;
if (l_585) {
const uint32 l_586 = l_mut_359 + uint32(1);
const uint32 l_587 = l_586 * uint32(32);
const uint32 l_588 = threadIdx.x + uint32(0);
const uint32 l_589 = l_588 / uint32(32);
const uint32 l_590 = l_6 + l_589;
const uint32 l_591 = l_588 % uint32(32);
const uint32 l_592 = l_587 + l_591;
const uint32 l_593 = l_590 * info.scalars_uint32[2];
const uint32 l_594 = l_593 + l_592;
const bool l_595 = l_590 < info.scalars_uint32[0];
const bool l_596 = l_592 < info.scalars_uint32[2];
const bool l_597 = l_595 && l_596;
l_mut_32 = float(0.0);
if (l_597) {
const float l_598 = buffer_0[l_594];
l_mut_32 = l_598;
}
l_arr_16[uint32(0)] = l_mut_32;
const uint32 l_599 = l_588 / uint32(128);
const uint32 l_600 = l_587 + l_599;
const uint32 l_601 = l_588 % uint32(128);
const uint32 l_602 = l_7 + l_601;
const uint32 l_603 = l_600 * info.scalars_uint32[1];
const uint32 l_604 = l_603 + l_602;
const bool l_605 = l_600 < info.scalars_uint32[2];
const bool l_606 = l_602 < info.scalars_uint32[1];
const bool l_607 = l_605 && l_606;
l_mut_32 = float(0.0);
if (l_607) {
const float l_608 = buffer_1[l_604];
l_mut_32 = l_608;
}
l_arr_17[uint32(0)] = l_mut_32;
const uint32 l_609 = threadIdx.x + uint32(256);
const uint32 l_610 = l_609 / uint32(32);
const uint32 l_611 = l_6 + l_610;
const uint32 l_612 = l_609 % uint32(32);
const uint32 l_613 = l_587 + l_612;
const uint32 l_614 = l_611 * info.scalars_uint32[2];
const uint32 l_615 = l_614 + l_613;
const bool l_616 = l_611 < info.scalars_uint32[0];
const bool l_617 = l_613 < info.scalars_uint32[2];
const bool l_618 = l_616 && l_617;
l_mut_32 = float(0.0);
if (l_618) {
const float l_619 = buffer_0[l_615];
l_mut_32 = l_619;
}
l_arr_16[uint32(1)] = l_mut_32;
const uint32 l_620 = l_609 / uint32(128);
const uint32 l_621 = l_587 + l_620;
const uint32 l_622 = l_609 % uint32(128);
const uint32 l_623 = l_7 + l_622;
const uint32 l_624 = l_621 * info.scalars_uint32[1];
const uint32 l_625 = l_624 + l_623;
const bool l_626 = l_621 < info.scalars_uint32[2];
const bool l_627 = l_623 < info.scalars_uint32[1];
const bool l_628 = l_626 && l_627;
l_mut_32 = float(0.0);
if (l_628) {
const float l_629 = buffer_1[l_625];
l_mut_32 = l_629;
}
l_arr_17[uint32(1)] = l_mut_32;
const uint32 l_630 = threadIdx.x + uint32(512);
const uint32 l_631 = l_630 / uint32(32);
const uint32 l_632 = l_6 + l_631;
const uint32 l_633 = l_630 % uint32(32);
const uint32 l_634 = l_587 + l_633;
const uint32 l_635 = l_632 * info.scalars_uint32[2];
const uint32 l_636 = l_635 + l_634;
const bool l_637 = l_632 < info.scalars_uint32[0];
const bool l_638 = l_634 < info.scalars_uint32[2];
const bool l_639 = l_637 && l_638;
l_mut_32 = float(0.0);
if (l_639) {
const float l_640 = buffer_0[l_636];
l_mut_32 = l_640;
}
l_arr_16[uint32(2)] = l_mut_32;
const uint32 l_641 = l_630 / uint32(128);
const uint32 l_642 = l_587 + l_641;
const uint32 l_643 = l_630 % uint32(128);
const uint32 l_644 = l_7 + l_643;
const uint32 l_645 = l_642 * info.scalars_uint32[1];
const uint32 l_646 = l_645 + l_644;
const bool l_647 = l_642 < info.scalars_uint32[2];
const bool l_648 = l_644 < info.scalars_uint32[1];
const bool l_649 = l_647 && l_648;
l_mut_32 = float(0.0);
if (l_649) {
const float l_650 = buffer_1[l_646];
l_mut_32 = l_650;
}
l_arr_17[uint32(2)] = l_mut_32;
const uint32 l_651 = threadIdx.x + uint32(768);
const uint32 l_652 = l_651 / uint32(32);
const uint32 l_653 = l_6 + l_652;
const uint32 l_654 = l_651 % uint32(32);
const uint32 l_655 = l_587 + l_654;
const uint32 l_656 = l_653 * info.scalars_uint32[2];
const uint32 l_657 = l_656 + l_655;
const bool l_658 = l_653 < info.scalars_uint32[0];
const bool l_659 = l_655 < info.scalars_uint32[2];
const bool l_660 = l_658 && l_659;
l_mut_32 = float(0.0);
if (l_660) {
const float l_661 = buffer_0[l_657];
l_mut_32 = l_661;
}
l_arr_16[uint32(3)] = l_mut_32;
const uint32 l_662 = l_651 / uint32(128);
const uint32 l_663 = l_587 + l_662;
const uint32 l_664 = l_651 % uint32(128);
const uint32 l_665 = l_7 + l_664;
const uint32 l_666 = l_663 * info.scalars_uint32[1];
const uint32 l_667 = l_666 + l_665;
const bool l_668 = l_663 < info.scalars_uint32[2];
const bool l_669 = l_665 < info.scalars_uint32[1];
const bool l_670 = l_668 && l_669;
l_mut_32 = float(0.0);
if (l_670) {
const float l_671 = buffer_1[l_667];
l_mut_32 = l_671;
}
l_arr_17[uint32(3)] = l_mut_32;
const uint32 l_672 = threadIdx.x + uint32(1024);
const uint32 l_673 = l_672 / uint32(32);
const uint32 l_674 = l_6 + l_673;
const uint32 l_675 = l_672 % uint32(32);
const uint32 l_676 = l_587 + l_675;
const uint32 l_677 = l_674 * info.scalars_uint32[2];
const uint32 l_678 = l_677 + l_676;
const bool l_679 = l_674 < info.scalars_uint32[0];
const bool l_680 = l_676 < info.scalars_uint32[2];
const bool l_681 = l_679 && l_680;
l_mut_32 = float(0.0);
if (l_681) {
const float l_682 = buffer_0[l_678];
l_mut_32 = l_682;
}
l_arr_16[uint32(4)] = l_mut_32;
const uint32 l_683 = l_672 / uint32(128);
const uint32 l_684 = l_587 + l_683;
const uint32 l_685 = l_672 % uint32(128);
const uint32 l_686 = l_7 + l_685;
const uint32 l_687 = l_684 * info.scalars_uint32[1];
const uint32 l_688 = l_687 + l_686;
const bool l_689 = l_684 < info.scalars_uint32[2];
const bool l_690 = l_686 < info.scalars_uint32[1];
const bool l_691 = l_689 && l_690;
l_mut_32 = float(0.0);
if (l_691) {
const float l_692 = buffer_1[l_688];
l_mut_32 = l_692;
}
l_arr_17[uint32(4)] = l_mut_32;
const uint32 l_693 = threadIdx.x + uint32(1280);
const uint32 l_694 = l_693 / uint32(32);
const uint32 l_695 = l_6 + l_694;
const uint32 l_696 = l_693 % uint32(32);
const uint32 l_697 = l_587 + l_696;
const uint32 l_698 = l_695 * info.scalars_uint32[2];
const uint32 l_699 = l_698 + l_697;
const bool l_700 = l_695 < info.scalars_uint32[0];
const bool l_701 = l_697 < info.scalars_uint32[2];
const bool l_702 = l_700 && l_701;
l_mut_32 = float(0.0);
if (l_702) {
const float l_703 = buffer_0[l_699];
l_mut_32 = l_703;
}
l_arr_16[uint32(5)] = l_mut_32;
const uint32 l_704 = l_693 / uint32(128);
const uint32 l_705 = l_587 + l_704;
const uint32 l_706 = l_693 % uint32(128);
const uint32 l_707 = l_7 + l_706;
const uint32 l_708 = l_705 * info.scalars_uint32[1];
const uint32 l_709 = l_708 + l_707;
const bool l_710 = l_705 < info.scalars_uint32[2];
const bool l_711 = l_707 < info.scalars_uint32[1];
const bool l_712 = l_710 && l_711;
l_mut_32 = float(0.0);
if (l_712) {
const float l_713 = buffer_1[l_709];
l_mut_32 = l_713;
}
l_arr_17[uint32(5)] = l_mut_32;
const uint32 l_714 = threadIdx.x + uint32(1536);
const uint32 l_715 = l_714 / uint32(32);
const uint32 l_716 = l_6 + l_715;
const uint32 l_717 = l_714 % uint32(32);
const uint32 l_718 = l_587 + l_717;
const uint32 l_719 = l_716 * info.scalars_uint32[2];
const uint32 l_720 = l_719 + l_718;
const bool l_721 = l_716 < info.scalars_uint32[0];
const bool l_722 = l_718 < info.scalars_uint32[2];
const bool l_723 = l_721 && l_722;
l_mut_32 = float(0.0);
if (l_723) {
const float l_724 = buffer_0[l_720];
l_mut_32 = l_724;
}
l_arr_16[uint32(6)] = l_mut_32;
const uint32 l_725 = l_714 / uint32(128);
const uint32 l_726 = l_587 + l_725;
const uint32 l_727 = l_714 % uint32(128);
const uint32 l_728 = l_7 + l_727;
const uint32 l_729 = l_726 * info.scalars_uint32[1];
const uint32 l_730 = l_729 + l_728;
const bool l_731 = l_726 < info.scalars_uint32[2];
const bool l_732 = l_728 < info.scalars_uint32[1];
const bool l_733 = l_731 && l_732;
l_mut_32 = float(0.0);
if (l_733) {
const float l_734 = buffer_1[l_730];
l_mut_32 = l_734;
}
l_arr_17[uint32(6)] = l_mut_32;
const uint32 l_735 = threadIdx.x + uint32(1792);
const uint32 l_736 = l_735 / uint32(32);
const uint32 l_737 = l_6 + l_736;
const uint32 l_738 = l_735 % uint32(32);
const uint32 l_739 = l_587 + l_738;
const uint32 l_740 = l_737 * info.scalars_uint32[2];
const uint32 l_741 = l_740 + l_739;
const bool l_742 = l_737 < info.scalars_uint32[0];
const bool l_743 = l_739 < info.scalars_uint32[2];
const bool l_744 = l_742 && l_743;
l_mut_32 = float(0.0);
if (l_744) {
const float l_745 = buffer_0[l_741];
l_mut_32 = l_745;
}
l_arr_16[uint32(7)] = l_mut_32;
const uint32 l_746 = l_735 / uint32(128);
const uint32 l_747 = l_587 + l_746;
const uint32 l_748 = l_735 % uint32(128);
const uint32 l_749 = l_7 + l_748;
const uint32 l_750 = l_747 * info.scalars_uint32[1];
const uint32 l_751 = l_750 + l_749;
const bool l_752 = l_747 < info.scalars_uint32[2];
const bool l_753 = l_749 < info.scalars_uint32[1];
const bool l_754 = l_752 && l_753;
l_mut_32 = float(0.0);
if (l_754) {
const float l_755 = buffer_1[l_751];
l_mut_32 = l_755;
}
l_arr_17[uint32(7)] = l_mut_32;
const uint32 l_756 = threadIdx.x + uint32(2048);
const uint32 l_757 = l_756 / uint32(32);
const uint32 l_758 = l_6 + l_757;
const uint32 l_759 = l_756 % uint32(32);
const uint32 l_760 = l_587 + l_759;
const uint32 l_761 = l_758 * info.scalars_uint32[2];
const uint32 l_762 = l_761 + l_760;
const bool l_763 = l_758 < info.scalars_uint32[0];
const bool l_764 = l_760 < info.scalars_uint32[2];
const bool l_765 = l_763 && l_764;
l_mut_32 = float(0.0);
if (l_765) {
const float l_766 = buffer_0[l_762];
l_mut_32 = l_766;
}
l_arr_16[uint32(8)] = l_mut_32;
const uint32 l_767 = l_756 / uint32(128);
const uint32 l_768 = l_587 + l_767;
const uint32 l_769 = l_756 % uint32(128);
const uint32 l_770 = l_7 + l_769;
const uint32 l_771 = l_768 * info.scalars_uint32[1];
const uint32 l_772 = l_771 + l_770;
const bool l_773 = l_768 < info.scalars_uint32[2];
const bool l_774 = l_770 < info.scalars_uint32[1];
const bool l_775 = l_773 && l_774;
l_mut_32 = float(0.0);
if (l_775) {
const float l_776 = buffer_1[l_772];
l_mut_32 = l_776;
}
l_arr_17[uint32(8)] = l_mut_32;
const uint32 l_777 = threadIdx.x + uint32(2304);
const uint32 l_778 = l_777 / uint32(32);
const uint32 l_779 = l_6 + l_778;
const uint32 l_780 = l_777 % uint32(32);
const uint32 l_781 = l_587 + l_780;
const uint32 l_782 = l_779 * info.scalars_uint32[2];
const uint32 l_783 = l_782 + l_781;
const bool l_784 = l_779 < info.scalars_uint32[0];
const bool l_785 = l_781 < info.scalars_uint32[2];
const bool l_786 = l_784 && l_785;
l_mut_32 = float(0.0);
if (l_786) {
const float l_787 = buffer_0[l_783];
l_mut_32 = l_787;
}
l_arr_16[uint32(9)] = l_mut_32;
const uint32 l_788 = l_777 / uint32(128);
const uint32 l_789 = l_587 + l_788;
const uint32 l_790 = l_777 % uint32(128);
const uint32 l_791 = l_7 + l_790;
const uint32 l_792 = l_789 * info.scalars_uint32[1];
const uint32 l_793 = l_792 + l_791;
const bool l_794 = l_789 < info.scalars_uint32[2];
const bool l_795 = l_791 < info.scalars_uint32[1];
const bool l_796 = l_794 && l_795;
l_mut_32 = float(0.0);
if (l_796) {
const float l_797 = buffer_1[l_793];
l_mut_32 = l_797;
}
l_arr_17[uint32(9)] = l_mut_32;
const uint32 l_798 = threadIdx.x + uint32(2560);
const uint32 l_799 = l_798 / uint32(32);
const uint32 l_800 = l_6 + l_799;
const uint32 l_801 = l_798 % uint32(32);
const uint32 l_802 = l_587 + l_801;
const uint32 l_803 = l_800 * info.scalars_uint32[2];
const uint32 l_804 = l_803 + l_802;
const bool l_805 = l_800 < info.scalars_uint32[0];
const bool l_806 = l_802 < info.scalars_uint32[2];
const bool l_807 = l_805 && l_806;
l_mut_32 = float(0.0);
if (l_807) {
const float l_808 = buffer_0[l_804];
l_mut_32 = l_808;
}
l_arr_16[uint32(10)] = l_mut_32;
const uint32 l_809 = l_798 / uint32(128);
const uint32 l_810 = l_587 + l_809;
const uint32 l_811 = l_798 % uint32(128);
const uint32 l_812 = l_7 + l_811;
const uint32 l_813 = l_810 * info.scalars_uint32[1];
const uint32 l_814 = l_813 + l_812;
const bool l_815 = l_810 < info.scalars_uint32[2];
const bool l_816 = l_812 < info.scalars_uint32[1];
const bool l_817 = l_815 && l_816;
l_mut_32 = float(0.0);
if (l_817) {
const float l_818 = buffer_1[l_814];
l_mut_32 = l_818;
}
l_arr_17[uint32(10)] = l_mut_32;
const uint32 l_819 = threadIdx.x + uint32(2816);
const uint32 l_820 = l_819 / uint32(32);
const uint32 l_821 = l_6 + l_820;
const uint32 l_822 = l_819 % uint32(32);
const uint32 l_823 = l_587 + l_822;
const uint32 l_824 = l_821 * info.scalars_uint32[2];
const uint32 l_825 = l_824 + l_823;
const bool l_826 = l_821 < info.scalars_uint32[0];
const bool l_827 = l_823 < info.scalars_uint32[2];
const bool l_828 = l_826 && l_827;
l_mut_32 = float(0.0);
if (l_828) {
const float l_829 = buffer_0[l_825];
l_mut_32 = l_829;
}
l_arr_16[uint32(11)] = l_mut_32;
const uint32 l_830 = l_819 / uint32(128);
const uint32 l_831 = l_587 + l_830;
const uint32 l_832 = l_819 % uint32(128);
const uint32 l_833 = l_7 + l_832;
const uint32 l_834 = l_831 * info.scalars_uint32[1];
const uint32 l_835 = l_834 + l_833;
const bool l_836 = l_831 < info.scalars_uint32[2];
const bool l_837 = l_833 < info.scalars_uint32[1];
const bool l_838 = l_836 && l_837;
l_mut_32 = float(0.0);
if (l_838) {
const float l_839 = buffer_1[l_835];
l_mut_32 = l_839;
}
l_arr_17[uint32(11)] = l_mut_32;
const uint32 l_840 = threadIdx.x + uint32(3072);
const uint32 l_841 = l_840 / uint32(32);
const uint32 l_842 = l_6 + l_841;
const uint32 l_843 = l_840 % uint32(32);
const uint32 l_844 = l_587 + l_843;
const uint32 l_845 = l_842 * info.scalars_uint32[2];
const uint32 l_846 = l_845 + l_844;
const bool l_847 = l_842 < info.scalars_uint32[0];
const bool l_848 = l_844 < info.scalars_uint32[2];
const bool l_849 = l_847 && l_848;
l_mut_32 = float(0.0);
if (l_849) {
const float l_850 = buffer_0[l_846];
l_mut_32 = l_850;
}
l_arr_16[uint32(12)] = l_mut_32;
const uint32 l_851 = l_840 / uint32(128);
const uint32 l_852 = l_587 + l_851;
const uint32 l_853 = l_840 % uint32(128);
const uint32 l_854 = l_7 + l_853;
const uint32 l_855 = l_852 * info.scalars_uint32[1];
const uint32 l_856 = l_855 + l_854;
const bool l_857 = l_852 < info.scalars_uint32[2];
const bool l_858 = l_854 < info.scalars_uint32[1];
const bool l_859 = l_857 && l_858;
l_mut_32 = float(0.0);
if (l_859) {
const float l_860 = buffer_1[l_856];
l_mut_32 = l_860;
}
l_arr_17[uint32(12)] = l_mut_32;
const uint32 l_861 = threadIdx.x + uint32(3328);
const uint32 l_862 = l_861 / uint32(32);
const uint32 l_863 = l_6 + l_862;
const uint32 l_864 = l_861 % uint32(32);
const uint32 l_865 = l_587 + l_864;
const uint32 l_866 = l_863 * info.scalars_uint32[2];
const uint32 l_867 = l_866 + l_865;
const bool l_868 = l_863 < info.scalars_uint32[0];
const bool l_869 = l_865 < info.scalars_uint32[2];
const bool l_870 = l_868 && l_869;
l_mut_32 = float(0.0);
if (l_870) {
const float l_871 = buffer_0[l_867];
l_mut_32 = l_871;
}
l_arr_16[uint32(13)] = l_mut_32;
const uint32 l_872 = l_861 / uint32(128);
const uint32 l_873 = l_587 + l_872;
const uint32 l_874 = l_861 % uint32(128);
const uint32 l_875 = l_7 + l_874;
const uint32 l_876 = l_873 * info.scalars_uint32[1];
const uint32 l_877 = l_876 + l_875;
const bool l_878 = l_873 < info.scalars_uint32[2];
const bool l_879 = l_875 < info.scalars_uint32[1];
const bool l_880 = l_878 && l_879;
l_mut_32 = float(0.0);
if (l_880) {
const float l_881 = buffer_1[l_877];
l_mut_32 = l_881;
}
l_arr_17[uint32(13)] = l_mut_32;
const uint32 l_882 = threadIdx.x + uint32(3584);
const uint32 l_883 = l_882 / uint32(32);
const uint32 l_884 = l_6 + l_883;
const uint32 l_885 = l_882 % uint32(32);
const uint32 l_886 = l_587 + l_885;
const uint32 l_887 = l_884 * info.scalars_uint32[2];
const uint32 l_888 = l_887 + l_886;
const bool l_889 = l_884 < info.scalars_uint32[0];
const bool l_890 = l_886 < info.scalars_uint32[2];
const bool l_891 = l_889 && l_890;
l_mut_32 = float(0.0);
if (l_891) {
const float l_892 = buffer_0[l_888];
l_mut_32 = l_892;
}
l_arr_16[uint32(14)] = l_mut_32;
const uint32 l_893 = l_882 / uint32(128);
const uint32 l_894 = l_587 + l_893;
const uint32 l_895 = l_882 % uint32(128);
const uint32 l_896 = l_7 + l_895;
const uint32 l_897 = l_894 * info.scalars_uint32[1];
const uint32 l_898 = l_897 + l_896;
const bool l_899 = l_894 < info.scalars_uint32[2];
const bool l_900 = l_896 < info.scalars_uint32[1];
const bool l_901 = l_899 && l_900;
l_mut_32 = float(0.0);
if (l_901) {
const float l_902 = buffer_1[l_898];
l_mut_32 = l_902;
}
l_arr_17[uint32(14)] = l_mut_32;
const uint32 l_903 = threadIdx.x + uint32(3840);
const uint32 l_904 = l_903 / uint32(32);
const uint32 l_905 = l_6 + l_904;
const uint32 l_906 = l_903 % uint32(32);
const uint32 l_907 = l_587 + l_906;
const uint32 l_908 = l_905 * info.scalars_uint32[2];
const uint32 l_909 = l_908 + l_907;
const bool l_910 = l_905 < info.scalars_uint32[0];
const bool l_911 = l_907 < info.scalars_uint32[2];
const bool l_912 = l_910 && l_911;
l_mut_32 = float(0.0);
if (l_912) {
const float l_913 = buffer_0[l_909];
l_mut_32 = l_913;
}
l_arr_16[uint32(15)] = l_mut_32;
const uint32 l_914 = l_903 / uint32(128);
const uint32 l_915 = l_587 + l_914;
const uint32 l_916 = l_903 % uint32(128);
const uint32 l_917 = l_7 + l_916;
const uint32 l_918 = l_915 * info.scalars_uint32[1];
const uint32 l_919 = l_918 + l_917;
const bool l_920 = l_915 < info.scalars_uint32[2];
const bool l_921 = l_917 < info.scalars_uint32[1];
const bool l_922 = l_920 && l_921;
l_mut_32 = float(0.0);
if (l_922) {
const float l_923 = buffer_1[l_919];
l_mut_32 = l_923;
}
l_arr_17[uint32(15)] = l_mut_32;
}
const uint32 l_924 = uint32(4608) + l_5;
const uint32 l_925 = l_924 + uint32(0);
const uint32 l_926 = l_925 + uint32(1056);
const uint32 l_927 = l_926 - l_925;
// load
float *_tmp_0 = (float*)shared_memory_0 + l_925;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_928[0]), "=r"(frag_b_928[1]), "=r"(frag_b_928[2]), "=r"(frag_b_928[3])
    : "l"(_tmp_0)
);
const uint32 l_929 = uint32(4608) + l_5;
const uint32 l_930 = l_929 + uint32(16);
const uint32 l_931 = l_930 + uint32(1056);
const uint32 l_932 = l_931 - l_930;
// load
float *_tmp_1 = (float*)shared_memory_0 + l_930;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_933[0]), "=r"(frag_b_933[1]), "=r"(frag_b_933[2]), "=r"(frag_b_933[3])
    : "l"(_tmp_1)
);
const uint32 l_934 = l_3 + uint32(0);
const uint32 l_935 = l_934 * uint32(36);
const uint32 l_936 = l_935 + uint32(0);
const uint32 l_937 = l_936 + uint32(576);
const uint32 l_938 = l_937 - l_936;
// load
float *_tmp_2 = (float*)shared_memory_0 + l_936;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_939[0]), "=r"(frag_a_939[1]), "=r"(frag_a_939[2]), "=r"(frag_a_939[3])
    : "l"(_tmp_2)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_8[0]), "=f"(frag_acc_8[1]), "=f"(frag_acc_8[2]), "=f"(frag_acc_8[3]), "=f"(frag_acc_8[4]), "=f"(frag_acc_8[5]), "=f"(frag_acc_8[6]), "=f"(frag_acc_8[7])
    : "r"(frag_a_939[0]), "r"(frag_a_939[1]), "r"(frag_a_939[2]), "r"(frag_a_939[3]), "r"(frag_b_928[0]), "r"(frag_b_928[1]), "r"(frag_b_928[2]), "r"(frag_b_928[3]), "f"(frag_acc_8[0]), "f"(frag_acc_8[1]), "f"(frag_acc_8[2]), "f"(frag_acc_8[3]), "f"(frag_acc_8[4]), "f"(frag_acc_8[5]), "f"(frag_acc_8[6]), "f"(frag_acc_8[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_9[0]), "=f"(frag_acc_9[1]), "=f"(frag_acc_9[2]), "=f"(frag_acc_9[3]), "=f"(frag_acc_9[4]), "=f"(frag_acc_9[5]), "=f"(frag_acc_9[6]), "=f"(frag_acc_9[7])
    : "r"(frag_a_939[0]), "r"(frag_a_939[1]), "r"(frag_a_939[2]), "r"(frag_a_939[3]), "r"(frag_b_933[0]), "r"(frag_b_933[1]), "r"(frag_b_933[2]), "r"(frag_b_933[3]), "f"(frag_acc_9[0]), "f"(frag_acc_9[1]), "f"(frag_acc_9[2]), "f"(frag_acc_9[3]), "f"(frag_acc_9[4]), "f"(frag_acc_9[5]), "f"(frag_acc_9[6]), "f"(frag_acc_9[7])
);
const uint32 l_940 = l_3 + uint32(16);
const uint32 l_941 = l_940 * uint32(36);
const uint32 l_942 = l_941 + uint32(0);
const uint32 l_943 = l_942 + uint32(576);
const uint32 l_944 = l_943 - l_942;
// load
float *_tmp_3 = (float*)shared_memory_0 + l_942;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_945[0]), "=r"(frag_a_945[1]), "=r"(frag_a_945[2]), "=r"(frag_a_945[3])
    : "l"(_tmp_3)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_10[0]), "=f"(frag_acc_10[1]), "=f"(frag_acc_10[2]), "=f"(frag_acc_10[3]), "=f"(frag_acc_10[4]), "=f"(frag_acc_10[5]), "=f"(frag_acc_10[6]), "=f"(frag_acc_10[7])
    : "r"(frag_a_945[0]), "r"(frag_a_945[1]), "r"(frag_a_945[2]), "r"(frag_a_945[3]), "r"(frag_b_928[0]), "r"(frag_b_928[1]), "r"(frag_b_928[2]), "r"(frag_b_928[3]), "f"(frag_acc_10[0]), "f"(frag_acc_10[1]), "f"(frag_acc_10[2]), "f"(frag_acc_10[3]), "f"(frag_acc_10[4]), "f"(frag_acc_10[5]), "f"(frag_acc_10[6]), "f"(frag_acc_10[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_11[0]), "=f"(frag_acc_11[1]), "=f"(frag_acc_11[2]), "=f"(frag_acc_11[3]), "=f"(frag_acc_11[4]), "=f"(frag_acc_11[5]), "=f"(frag_acc_11[6]), "=f"(frag_acc_11[7])
    : "r"(frag_a_945[0]), "r"(frag_a_945[1]), "r"(frag_a_945[2]), "r"(frag_a_945[3]), "r"(frag_b_933[0]), "r"(frag_b_933[1]), "r"(frag_b_933[2]), "r"(frag_b_933[3]), "f"(frag_acc_11[0]), "f"(frag_acc_11[1]), "f"(frag_acc_11[2]), "f"(frag_acc_11[3]), "f"(frag_acc_11[4]), "f"(frag_acc_11[5]), "f"(frag_acc_11[6]), "f"(frag_acc_11[7])
);
const uint32 l_946 = l_3 + uint32(32);
const uint32 l_947 = l_946 * uint32(36);
const uint32 l_948 = l_947 + uint32(0);
const uint32 l_949 = l_948 + uint32(576);
const uint32 l_950 = l_949 - l_948;
// load
float *_tmp_4 = (float*)shared_memory_0 + l_948;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_951[0]), "=r"(frag_a_951[1]), "=r"(frag_a_951[2]), "=r"(frag_a_951[3])
    : "l"(_tmp_4)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_12[0]), "=f"(frag_acc_12[1]), "=f"(frag_acc_12[2]), "=f"(frag_acc_12[3]), "=f"(frag_acc_12[4]), "=f"(frag_acc_12[5]), "=f"(frag_acc_12[6]), "=f"(frag_acc_12[7])
    : "r"(frag_a_951[0]), "r"(frag_a_951[1]), "r"(frag_a_951[2]), "r"(frag_a_951[3]), "r"(frag_b_928[0]), "r"(frag_b_928[1]), "r"(frag_b_928[2]), "r"(frag_b_928[3]), "f"(frag_acc_12[0]), "f"(frag_acc_12[1]), "f"(frag_acc_12[2]), "f"(frag_acc_12[3]), "f"(frag_acc_12[4]), "f"(frag_acc_12[5]), "f"(frag_acc_12[6]), "f"(frag_acc_12[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_13[0]), "=f"(frag_acc_13[1]), "=f"(frag_acc_13[2]), "=f"(frag_acc_13[3]), "=f"(frag_acc_13[4]), "=f"(frag_acc_13[5]), "=f"(frag_acc_13[6]), "=f"(frag_acc_13[7])
    : "r"(frag_a_951[0]), "r"(frag_a_951[1]), "r"(frag_a_951[2]), "r"(frag_a_951[3]), "r"(frag_b_933[0]), "r"(frag_b_933[1]), "r"(frag_b_933[2]), "r"(frag_b_933[3]), "f"(frag_acc_13[0]), "f"(frag_acc_13[1]), "f"(frag_acc_13[2]), "f"(frag_acc_13[3]), "f"(frag_acc_13[4]), "f"(frag_acc_13[5]), "f"(frag_acc_13[6]), "f"(frag_acc_13[7])
);
const uint32 l_952 = l_3 + uint32(48);
const uint32 l_953 = l_952 * uint32(36);
const uint32 l_954 = l_953 + uint32(0);
const uint32 l_955 = l_954 + uint32(576);
const uint32 l_956 = l_955 - l_954;
// load
float *_tmp_5 = (float*)shared_memory_0 + l_954;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_957[0]), "=r"(frag_a_957[1]), "=r"(frag_a_957[2]), "=r"(frag_a_957[3])
    : "l"(_tmp_5)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_14[0]), "=f"(frag_acc_14[1]), "=f"(frag_acc_14[2]), "=f"(frag_acc_14[3]), "=f"(frag_acc_14[4]), "=f"(frag_acc_14[5]), "=f"(frag_acc_14[6]), "=f"(frag_acc_14[7])
    : "r"(frag_a_957[0]), "r"(frag_a_957[1]), "r"(frag_a_957[2]), "r"(frag_a_957[3]), "r"(frag_b_928[0]), "r"(frag_b_928[1]), "r"(frag_b_928[2]), "r"(frag_b_928[3]), "f"(frag_acc_14[0]), "f"(frag_acc_14[1]), "f"(frag_acc_14[2]), "f"(frag_acc_14[3]), "f"(frag_acc_14[4]), "f"(frag_acc_14[5]), "f"(frag_acc_14[6]), "f"(frag_acc_14[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_15[0]), "=f"(frag_acc_15[1]), "=f"(frag_acc_15[2]), "=f"(frag_acc_15[3]), "=f"(frag_acc_15[4]), "=f"(frag_acc_15[5]), "=f"(frag_acc_15[6]), "=f"(frag_acc_15[7])
    : "r"(frag_a_957[0]), "r"(frag_a_957[1]), "r"(frag_a_957[2]), "r"(frag_a_957[3]), "r"(frag_b_933[0]), "r"(frag_b_933[1]), "r"(frag_b_933[2]), "r"(frag_b_933[3]), "f"(frag_acc_15[0]), "f"(frag_acc_15[1]), "f"(frag_acc_15[2]), "f"(frag_acc_15[3]), "f"(frag_acc_15[4]), "f"(frag_acc_15[5]), "f"(frag_acc_15[6]), "f"(frag_acc_15[7])
);
const uint32 l_958 = uint32(5664) + l_5;
const uint32 l_959 = l_958 + uint32(0);
const uint32 l_960 = l_959 + uint32(1056);
const uint32 l_961 = l_960 - l_959;
// load
float *_tmp_6 = (float*)shared_memory_0 + l_959;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_962[0]), "=r"(frag_b_962[1]), "=r"(frag_b_962[2]), "=r"(frag_b_962[3])
    : "l"(_tmp_6)
);
const uint32 l_963 = uint32(5664) + l_5;
const uint32 l_964 = l_963 + uint32(16);
const uint32 l_965 = l_964 + uint32(1056);
const uint32 l_966 = l_965 - l_964;
// load
float *_tmp_7 = (float*)shared_memory_0 + l_964;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_967[0]), "=r"(frag_b_967[1]), "=r"(frag_b_967[2]), "=r"(frag_b_967[3])
    : "l"(_tmp_7)
);
const uint32 l_968 = l_3 + uint32(0);
const uint32 l_969 = l_968 * uint32(36);
const uint32 l_970 = l_969 + uint32(8);
const uint32 l_971 = l_970 + uint32(576);
const uint32 l_972 = l_971 - l_970;
// load
float *_tmp_8 = (float*)shared_memory_0 + l_970;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_973[0]), "=r"(frag_a_973[1]), "=r"(frag_a_973[2]), "=r"(frag_a_973[3])
    : "l"(_tmp_8)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_8[0]), "=f"(frag_acc_8[1]), "=f"(frag_acc_8[2]), "=f"(frag_acc_8[3]), "=f"(frag_acc_8[4]), "=f"(frag_acc_8[5]), "=f"(frag_acc_8[6]), "=f"(frag_acc_8[7])
    : "r"(frag_a_973[0]), "r"(frag_a_973[1]), "r"(frag_a_973[2]), "r"(frag_a_973[3]), "r"(frag_b_962[0]), "r"(frag_b_962[1]), "r"(frag_b_962[2]), "r"(frag_b_962[3]), "f"(frag_acc_8[0]), "f"(frag_acc_8[1]), "f"(frag_acc_8[2]), "f"(frag_acc_8[3]), "f"(frag_acc_8[4]), "f"(frag_acc_8[5]), "f"(frag_acc_8[6]), "f"(frag_acc_8[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_9[0]), "=f"(frag_acc_9[1]), "=f"(frag_acc_9[2]), "=f"(frag_acc_9[3]), "=f"(frag_acc_9[4]), "=f"(frag_acc_9[5]), "=f"(frag_acc_9[6]), "=f"(frag_acc_9[7])
    : "r"(frag_a_973[0]), "r"(frag_a_973[1]), "r"(frag_a_973[2]), "r"(frag_a_973[3]), "r"(frag_b_967[0]), "r"(frag_b_967[1]), "r"(frag_b_967[2]), "r"(frag_b_967[3]), "f"(frag_acc_9[0]), "f"(frag_acc_9[1]), "f"(frag_acc_9[2]), "f"(frag_acc_9[3]), "f"(frag_acc_9[4]), "f"(frag_acc_9[5]), "f"(frag_acc_9[6]), "f"(frag_acc_9[7])
);
const uint32 l_974 = l_3 + uint32(16);
const uint32 l_975 = l_974 * uint32(36);
const uint32 l_976 = l_975 + uint32(8);
const uint32 l_977 = l_976 + uint32(576);
const uint32 l_978 = l_977 - l_976;
// load
float *_tmp_9 = (float*)shared_memory_0 + l_976;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_979[0]), "=r"(frag_a_979[1]), "=r"(frag_a_979[2]), "=r"(frag_a_979[3])
    : "l"(_tmp_9)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_10[0]), "=f"(frag_acc_10[1]), "=f"(frag_acc_10[2]), "=f"(frag_acc_10[3]), "=f"(frag_acc_10[4]), "=f"(frag_acc_10[5]), "=f"(frag_acc_10[6]), "=f"(frag_acc_10[7])
    : "r"(frag_a_979[0]), "r"(frag_a_979[1]), "r"(frag_a_979[2]), "r"(frag_a_979[3]), "r"(frag_b_962[0]), "r"(frag_b_962[1]), "r"(frag_b_962[2]), "r"(frag_b_962[3]), "f"(frag_acc_10[0]), "f"(frag_acc_10[1]), "f"(frag_acc_10[2]), "f"(frag_acc_10[3]), "f"(frag_acc_10[4]), "f"(frag_acc_10[5]), "f"(frag_acc_10[6]), "f"(frag_acc_10[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_11[0]), "=f"(frag_acc_11[1]), "=f"(frag_acc_11[2]), "=f"(frag_acc_11[3]), "=f"(frag_acc_11[4]), "=f"(frag_acc_11[5]), "=f"(frag_acc_11[6]), "=f"(frag_acc_11[7])
    : "r"(frag_a_979[0]), "r"(frag_a_979[1]), "r"(frag_a_979[2]), "r"(frag_a_979[3]), "r"(frag_b_967[0]), "r"(frag_b_967[1]), "r"(frag_b_967[2]), "r"(frag_b_967[3]), "f"(frag_acc_11[0]), "f"(frag_acc_11[1]), "f"(frag_acc_11[2]), "f"(frag_acc_11[3]), "f"(frag_acc_11[4]), "f"(frag_acc_11[5]), "f"(frag_acc_11[6]), "f"(frag_acc_11[7])
);
const uint32 l_980 = l_3 + uint32(32);
const uint32 l_981 = l_980 * uint32(36);
const uint32 l_982 = l_981 + uint32(8);
const uint32 l_983 = l_982 + uint32(576);
const uint32 l_984 = l_983 - l_982;
// load
float *_tmp_10 = (float*)shared_memory_0 + l_982;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_985[0]), "=r"(frag_a_985[1]), "=r"(frag_a_985[2]), "=r"(frag_a_985[3])
    : "l"(_tmp_10)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_12[0]), "=f"(frag_acc_12[1]), "=f"(frag_acc_12[2]), "=f"(frag_acc_12[3]), "=f"(frag_acc_12[4]), "=f"(frag_acc_12[5]), "=f"(frag_acc_12[6]), "=f"(frag_acc_12[7])
    : "r"(frag_a_985[0]), "r"(frag_a_985[1]), "r"(frag_a_985[2]), "r"(frag_a_985[3]), "r"(frag_b_962[0]), "r"(frag_b_962[1]), "r"(frag_b_962[2]), "r"(frag_b_962[3]), "f"(frag_acc_12[0]), "f"(frag_acc_12[1]), "f"(frag_acc_12[2]), "f"(frag_acc_12[3]), "f"(frag_acc_12[4]), "f"(frag_acc_12[5]), "f"(frag_acc_12[6]), "f"(frag_acc_12[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_13[0]), "=f"(frag_acc_13[1]), "=f"(frag_acc_13[2]), "=f"(frag_acc_13[3]), "=f"(frag_acc_13[4]), "=f"(frag_acc_13[5]), "=f"(frag_acc_13[6]), "=f"(frag_acc_13[7])
    : "r"(frag_a_985[0]), "r"(frag_a_985[1]), "r"(frag_a_985[2]), "r"(frag_a_985[3]), "r"(frag_b_967[0]), "r"(frag_b_967[1]), "r"(frag_b_967[2]), "r"(frag_b_967[3]), "f"(frag_acc_13[0]), "f"(frag_acc_13[1]), "f"(frag_acc_13[2]), "f"(frag_acc_13[3]), "f"(frag_acc_13[4]), "f"(frag_acc_13[5]), "f"(frag_acc_13[6]), "f"(frag_acc_13[7])
);
const uint32 l_986 = l_3 + uint32(48);
const uint32 l_987 = l_986 * uint32(36);
const uint32 l_988 = l_987 + uint32(8);
const uint32 l_989 = l_988 + uint32(576);
const uint32 l_990 = l_989 - l_988;
// load
float *_tmp_11 = (float*)shared_memory_0 + l_988;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_991[0]), "=r"(frag_a_991[1]), "=r"(frag_a_991[2]), "=r"(frag_a_991[3])
    : "l"(_tmp_11)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_14[0]), "=f"(frag_acc_14[1]), "=f"(frag_acc_14[2]), "=f"(frag_acc_14[3]), "=f"(frag_acc_14[4]), "=f"(frag_acc_14[5]), "=f"(frag_acc_14[6]), "=f"(frag_acc_14[7])
    : "r"(frag_a_991[0]), "r"(frag_a_991[1]), "r"(frag_a_991[2]), "r"(frag_a_991[3]), "r"(frag_b_962[0]), "r"(frag_b_962[1]), "r"(frag_b_962[2]), "r"(frag_b_962[3]), "f"(frag_acc_14[0]), "f"(frag_acc_14[1]), "f"(frag_acc_14[2]), "f"(frag_acc_14[3]), "f"(frag_acc_14[4]), "f"(frag_acc_14[5]), "f"(frag_acc_14[6]), "f"(frag_acc_14[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_15[0]), "=f"(frag_acc_15[1]), "=f"(frag_acc_15[2]), "=f"(frag_acc_15[3]), "=f"(frag_acc_15[4]), "=f"(frag_acc_15[5]), "=f"(frag_acc_15[6]), "=f"(frag_acc_15[7])
    : "r"(frag_a_991[0]), "r"(frag_a_991[1]), "r"(frag_a_991[2]), "r"(frag_a_991[3]), "r"(frag_b_967[0]), "r"(frag_b_967[1]), "r"(frag_b_967[2]), "r"(frag_b_967[3]), "f"(frag_acc_15[0]), "f"(frag_acc_15[1]), "f"(frag_acc_15[2]), "f"(frag_acc_15[3]), "f"(frag_acc_15[4]), "f"(frag_acc_15[5]), "f"(frag_acc_15[6]), "f"(frag_acc_15[7])
);
const uint32 l_992 = uint32(6720) + l_5;
const uint32 l_993 = l_992 + uint32(0);
const uint32 l_994 = l_993 + uint32(1056);
const uint32 l_995 = l_994 - l_993;
// load
float *_tmp_12 = (float*)shared_memory_0 + l_993;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_996[0]), "=r"(frag_b_996[1]), "=r"(frag_b_996[2]), "=r"(frag_b_996[3])
    : "l"(_tmp_12)
);
const uint32 l_997 = uint32(6720) + l_5;
const uint32 l_998 = l_997 + uint32(16);
const uint32 l_999 = l_998 + uint32(1056);
const uint32 l_1000 = l_999 - l_998;
// load
float *_tmp_13 = (float*)shared_memory_0 + l_998;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_1001[0]), "=r"(frag_b_1001[1]), "=r"(frag_b_1001[2]), "=r"(frag_b_1001[3])
    : "l"(_tmp_13)
);
const uint32 l_1002 = l_3 + uint32(0);
const uint32 l_1003 = l_1002 * uint32(36);
const uint32 l_1004 = l_1003 + uint32(16);
const uint32 l_1005 = l_1004 + uint32(576);
const uint32 l_1006 = l_1005 - l_1004;
// load
float *_tmp_14 = (float*)shared_memory_0 + l_1004;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1007[0]), "=r"(frag_a_1007[1]), "=r"(frag_a_1007[2]), "=r"(frag_a_1007[3])
    : "l"(_tmp_14)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_8[0]), "=f"(frag_acc_8[1]), "=f"(frag_acc_8[2]), "=f"(frag_acc_8[3]), "=f"(frag_acc_8[4]), "=f"(frag_acc_8[5]), "=f"(frag_acc_8[6]), "=f"(frag_acc_8[7])
    : "r"(frag_a_1007[0]), "r"(frag_a_1007[1]), "r"(frag_a_1007[2]), "r"(frag_a_1007[3]), "r"(frag_b_996[0]), "r"(frag_b_996[1]), "r"(frag_b_996[2]), "r"(frag_b_996[3]), "f"(frag_acc_8[0]), "f"(frag_acc_8[1]), "f"(frag_acc_8[2]), "f"(frag_acc_8[3]), "f"(frag_acc_8[4]), "f"(frag_acc_8[5]), "f"(frag_acc_8[6]), "f"(frag_acc_8[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_9[0]), "=f"(frag_acc_9[1]), "=f"(frag_acc_9[2]), "=f"(frag_acc_9[3]), "=f"(frag_acc_9[4]), "=f"(frag_acc_9[5]), "=f"(frag_acc_9[6]), "=f"(frag_acc_9[7])
    : "r"(frag_a_1007[0]), "r"(frag_a_1007[1]), "r"(frag_a_1007[2]), "r"(frag_a_1007[3]), "r"(frag_b_1001[0]), "r"(frag_b_1001[1]), "r"(frag_b_1001[2]), "r"(frag_b_1001[3]), "f"(frag_acc_9[0]), "f"(frag_acc_9[1]), "f"(frag_acc_9[2]), "f"(frag_acc_9[3]), "f"(frag_acc_9[4]), "f"(frag_acc_9[5]), "f"(frag_acc_9[6]), "f"(frag_acc_9[7])
);
const uint32 l_1008 = l_3 + uint32(16);
const uint32 l_1009 = l_1008 * uint32(36);
const uint32 l_1010 = l_1009 + uint32(16);
const uint32 l_1011 = l_1010 + uint32(576);
const uint32 l_1012 = l_1011 - l_1010;
// load
float *_tmp_15 = (float*)shared_memory_0 + l_1010;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1013[0]), "=r"(frag_a_1013[1]), "=r"(frag_a_1013[2]), "=r"(frag_a_1013[3])
    : "l"(_tmp_15)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_10[0]), "=f"(frag_acc_10[1]), "=f"(frag_acc_10[2]), "=f"(frag_acc_10[3]), "=f"(frag_acc_10[4]), "=f"(frag_acc_10[5]), "=f"(frag_acc_10[6]), "=f"(frag_acc_10[7])
    : "r"(frag_a_1013[0]), "r"(frag_a_1013[1]), "r"(frag_a_1013[2]), "r"(frag_a_1013[3]), "r"(frag_b_996[0]), "r"(frag_b_996[1]), "r"(frag_b_996[2]), "r"(frag_b_996[3]), "f"(frag_acc_10[0]), "f"(frag_acc_10[1]), "f"(frag_acc_10[2]), "f"(frag_acc_10[3]), "f"(frag_acc_10[4]), "f"(frag_acc_10[5]), "f"(frag_acc_10[6]), "f"(frag_acc_10[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_11[0]), "=f"(frag_acc_11[1]), "=f"(frag_acc_11[2]), "=f"(frag_acc_11[3]), "=f"(frag_acc_11[4]), "=f"(frag_acc_11[5]), "=f"(frag_acc_11[6]), "=f"(frag_acc_11[7])
    : "r"(frag_a_1013[0]), "r"(frag_a_1013[1]), "r"(frag_a_1013[2]), "r"(frag_a_1013[3]), "r"(frag_b_1001[0]), "r"(frag_b_1001[1]), "r"(frag_b_1001[2]), "r"(frag_b_1001[3]), "f"(frag_acc_11[0]), "f"(frag_acc_11[1]), "f"(frag_acc_11[2]), "f"(frag_acc_11[3]), "f"(frag_acc_11[4]), "f"(frag_acc_11[5]), "f"(frag_acc_11[6]), "f"(frag_acc_11[7])
);
const uint32 l_1014 = l_3 + uint32(32);
const uint32 l_1015 = l_1014 * uint32(36);
const uint32 l_1016 = l_1015 + uint32(16);
const uint32 l_1017 = l_1016 + uint32(576);
const uint32 l_1018 = l_1017 - l_1016;
// load
float *_tmp_16 = (float*)shared_memory_0 + l_1016;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1019[0]), "=r"(frag_a_1019[1]), "=r"(frag_a_1019[2]), "=r"(frag_a_1019[3])
    : "l"(_tmp_16)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_12[0]), "=f"(frag_acc_12[1]), "=f"(frag_acc_12[2]), "=f"(frag_acc_12[3]), "=f"(frag_acc_12[4]), "=f"(frag_acc_12[5]), "=f"(frag_acc_12[6]), "=f"(frag_acc_12[7])
    : "r"(frag_a_1019[0]), "r"(frag_a_1019[1]), "r"(frag_a_1019[2]), "r"(frag_a_1019[3]), "r"(frag_b_996[0]), "r"(frag_b_996[1]), "r"(frag_b_996[2]), "r"(frag_b_996[3]), "f"(frag_acc_12[0]), "f"(frag_acc_12[1]), "f"(frag_acc_12[2]), "f"(frag_acc_12[3]), "f"(frag_acc_12[4]), "f"(frag_acc_12[5]), "f"(frag_acc_12[6]), "f"(frag_acc_12[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_13[0]), "=f"(frag_acc_13[1]), "=f"(frag_acc_13[2]), "=f"(frag_acc_13[3]), "=f"(frag_acc_13[4]), "=f"(frag_acc_13[5]), "=f"(frag_acc_13[6]), "=f"(frag_acc_13[7])
    : "r"(frag_a_1019[0]), "r"(frag_a_1019[1]), "r"(frag_a_1019[2]), "r"(frag_a_1019[3]), "r"(frag_b_1001[0]), "r"(frag_b_1001[1]), "r"(frag_b_1001[2]), "r"(frag_b_1001[3]), "f"(frag_acc_13[0]), "f"(frag_acc_13[1]), "f"(frag_acc_13[2]), "f"(frag_acc_13[3]), "f"(frag_acc_13[4]), "f"(frag_acc_13[5]), "f"(frag_acc_13[6]), "f"(frag_acc_13[7])
);
const uint32 l_1020 = l_3 + uint32(48);
const uint32 l_1021 = l_1020 * uint32(36);
const uint32 l_1022 = l_1021 + uint32(16);
const uint32 l_1023 = l_1022 + uint32(576);
const uint32 l_1024 = l_1023 - l_1022;
// load
float *_tmp_17 = (float*)shared_memory_0 + l_1022;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1025[0]), "=r"(frag_a_1025[1]), "=r"(frag_a_1025[2]), "=r"(frag_a_1025[3])
    : "l"(_tmp_17)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_14[0]), "=f"(frag_acc_14[1]), "=f"(frag_acc_14[2]), "=f"(frag_acc_14[3]), "=f"(frag_acc_14[4]), "=f"(frag_acc_14[5]), "=f"(frag_acc_14[6]), "=f"(frag_acc_14[7])
    : "r"(frag_a_1025[0]), "r"(frag_a_1025[1]), "r"(frag_a_1025[2]), "r"(frag_a_1025[3]), "r"(frag_b_996[0]), "r"(frag_b_996[1]), "r"(frag_b_996[2]), "r"(frag_b_996[3]), "f"(frag_acc_14[0]), "f"(frag_acc_14[1]), "f"(frag_acc_14[2]), "f"(frag_acc_14[3]), "f"(frag_acc_14[4]), "f"(frag_acc_14[5]), "f"(frag_acc_14[6]), "f"(frag_acc_14[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_15[0]), "=f"(frag_acc_15[1]), "=f"(frag_acc_15[2]), "=f"(frag_acc_15[3]), "=f"(frag_acc_15[4]), "=f"(frag_acc_15[5]), "=f"(frag_acc_15[6]), "=f"(frag_acc_15[7])
    : "r"(frag_a_1025[0]), "r"(frag_a_1025[1]), "r"(frag_a_1025[2]), "r"(frag_a_1025[3]), "r"(frag_b_1001[0]), "r"(frag_b_1001[1]), "r"(frag_b_1001[2]), "r"(frag_b_1001[3]), "f"(frag_acc_15[0]), "f"(frag_acc_15[1]), "f"(frag_acc_15[2]), "f"(frag_acc_15[3]), "f"(frag_acc_15[4]), "f"(frag_acc_15[5]), "f"(frag_acc_15[6]), "f"(frag_acc_15[7])
);
const uint32 l_1026 = uint32(7776) + l_5;
const uint32 l_1027 = l_1026 + uint32(0);
const uint32 l_1028 = l_1027 + uint32(1056);
const uint32 l_1029 = l_1028 - l_1027;
// load
float *_tmp_18 = (float*)shared_memory_0 + l_1027;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_1030[0]), "=r"(frag_b_1030[1]), "=r"(frag_b_1030[2]), "=r"(frag_b_1030[3])
    : "l"(_tmp_18)
);
const uint32 l_1031 = uint32(7776) + l_5;
const uint32 l_1032 = l_1031 + uint32(16);
const uint32 l_1033 = l_1032 + uint32(1056);
const uint32 l_1034 = l_1033 - l_1032;
// load
float *_tmp_19 = (float*)shared_memory_0 + l_1032;
asm volatile(
    "wmma.load.b.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 132;\n"
    : "=r"(frag_b_1035[0]), "=r"(frag_b_1035[1]), "=r"(frag_b_1035[2]), "=r"(frag_b_1035[3])
    : "l"(_tmp_19)
);
const uint32 l_1036 = l_3 + uint32(0);
const uint32 l_1037 = l_1036 * uint32(36);
const uint32 l_1038 = l_1037 + uint32(24);
const uint32 l_1039 = l_1038 + uint32(576);
const uint32 l_1040 = l_1039 - l_1038;
// load
float *_tmp_20 = (float*)shared_memory_0 + l_1038;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1041[0]), "=r"(frag_a_1041[1]), "=r"(frag_a_1041[2]), "=r"(frag_a_1041[3])
    : "l"(_tmp_20)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_8[0]), "=f"(frag_acc_8[1]), "=f"(frag_acc_8[2]), "=f"(frag_acc_8[3]), "=f"(frag_acc_8[4]), "=f"(frag_acc_8[5]), "=f"(frag_acc_8[6]), "=f"(frag_acc_8[7])
    : "r"(frag_a_1041[0]), "r"(frag_a_1041[1]), "r"(frag_a_1041[2]), "r"(frag_a_1041[3]), "r"(frag_b_1030[0]), "r"(frag_b_1030[1]), "r"(frag_b_1030[2]), "r"(frag_b_1030[3]), "f"(frag_acc_8[0]), "f"(frag_acc_8[1]), "f"(frag_acc_8[2]), "f"(frag_acc_8[3]), "f"(frag_acc_8[4]), "f"(frag_acc_8[5]), "f"(frag_acc_8[6]), "f"(frag_acc_8[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_9[0]), "=f"(frag_acc_9[1]), "=f"(frag_acc_9[2]), "=f"(frag_acc_9[3]), "=f"(frag_acc_9[4]), "=f"(frag_acc_9[5]), "=f"(frag_acc_9[6]), "=f"(frag_acc_9[7])
    : "r"(frag_a_1041[0]), "r"(frag_a_1041[1]), "r"(frag_a_1041[2]), "r"(frag_a_1041[3]), "r"(frag_b_1035[0]), "r"(frag_b_1035[1]), "r"(frag_b_1035[2]), "r"(frag_b_1035[3]), "f"(frag_acc_9[0]), "f"(frag_acc_9[1]), "f"(frag_acc_9[2]), "f"(frag_acc_9[3]), "f"(frag_acc_9[4]), "f"(frag_acc_9[5]), "f"(frag_acc_9[6]), "f"(frag_acc_9[7])
);
const uint32 l_1042 = l_3 + uint32(16);
const uint32 l_1043 = l_1042 * uint32(36);
const uint32 l_1044 = l_1043 + uint32(24);
const uint32 l_1045 = l_1044 + uint32(576);
const uint32 l_1046 = l_1045 - l_1044;
// load
float *_tmp_21 = (float*)shared_memory_0 + l_1044;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1047[0]), "=r"(frag_a_1047[1]), "=r"(frag_a_1047[2]), "=r"(frag_a_1047[3])
    : "l"(_tmp_21)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_10[0]), "=f"(frag_acc_10[1]), "=f"(frag_acc_10[2]), "=f"(frag_acc_10[3]), "=f"(frag_acc_10[4]), "=f"(frag_acc_10[5]), "=f"(frag_acc_10[6]), "=f"(frag_acc_10[7])
    : "r"(frag_a_1047[0]), "r"(frag_a_1047[1]), "r"(frag_a_1047[2]), "r"(frag_a_1047[3]), "r"(frag_b_1030[0]), "r"(frag_b_1030[1]), "r"(frag_b_1030[2]), "r"(frag_b_1030[3]), "f"(frag_acc_10[0]), "f"(frag_acc_10[1]), "f"(frag_acc_10[2]), "f"(frag_acc_10[3]), "f"(frag_acc_10[4]), "f"(frag_acc_10[5]), "f"(frag_acc_10[6]), "f"(frag_acc_10[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_11[0]), "=f"(frag_acc_11[1]), "=f"(frag_acc_11[2]), "=f"(frag_acc_11[3]), "=f"(frag_acc_11[4]), "=f"(frag_acc_11[5]), "=f"(frag_acc_11[6]), "=f"(frag_acc_11[7])
    : "r"(frag_a_1047[0]), "r"(frag_a_1047[1]), "r"(frag_a_1047[2]), "r"(frag_a_1047[3]), "r"(frag_b_1035[0]), "r"(frag_b_1035[1]), "r"(frag_b_1035[2]), "r"(frag_b_1035[3]), "f"(frag_acc_11[0]), "f"(frag_acc_11[1]), "f"(frag_acc_11[2]), "f"(frag_acc_11[3]), "f"(frag_acc_11[4]), "f"(frag_acc_11[5]), "f"(frag_acc_11[6]), "f"(frag_acc_11[7])
);
const uint32 l_1048 = l_3 + uint32(32);
const uint32 l_1049 = l_1048 * uint32(36);
const uint32 l_1050 = l_1049 + uint32(24);
const uint32 l_1051 = l_1050 + uint32(576);
const uint32 l_1052 = l_1051 - l_1050;
// load
float *_tmp_22 = (float*)shared_memory_0 + l_1050;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1053[0]), "=r"(frag_a_1053[1]), "=r"(frag_a_1053[2]), "=r"(frag_a_1053[3])
    : "l"(_tmp_22)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_12[0]), "=f"(frag_acc_12[1]), "=f"(frag_acc_12[2]), "=f"(frag_acc_12[3]), "=f"(frag_acc_12[4]), "=f"(frag_acc_12[5]), "=f"(frag_acc_12[6]), "=f"(frag_acc_12[7])
    : "r"(frag_a_1053[0]), "r"(frag_a_1053[1]), "r"(frag_a_1053[2]), "r"(frag_a_1053[3]), "r"(frag_b_1030[0]), "r"(frag_b_1030[1]), "r"(frag_b_1030[2]), "r"(frag_b_1030[3]), "f"(frag_acc_12[0]), "f"(frag_acc_12[1]), "f"(frag_acc_12[2]), "f"(frag_acc_12[3]), "f"(frag_acc_12[4]), "f"(frag_acc_12[5]), "f"(frag_acc_12[6]), "f"(frag_acc_12[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_13[0]), "=f"(frag_acc_13[1]), "=f"(frag_acc_13[2]), "=f"(frag_acc_13[3]), "=f"(frag_acc_13[4]), "=f"(frag_acc_13[5]), "=f"(frag_acc_13[6]), "=f"(frag_acc_13[7])
    : "r"(frag_a_1053[0]), "r"(frag_a_1053[1]), "r"(frag_a_1053[2]), "r"(frag_a_1053[3]), "r"(frag_b_1035[0]), "r"(frag_b_1035[1]), "r"(frag_b_1035[2]), "r"(frag_b_1035[3]), "f"(frag_acc_13[0]), "f"(frag_acc_13[1]), "f"(frag_acc_13[2]), "f"(frag_acc_13[3]), "f"(frag_acc_13[4]), "f"(frag_acc_13[5]), "f"(frag_acc_13[6]), "f"(frag_acc_13[7])
);
const uint32 l_1054 = l_3 + uint32(48);
const uint32 l_1055 = l_1054 * uint32(36);
const uint32 l_1056 = l_1055 + uint32(24);
const uint32 l_1057 = l_1056 + uint32(576);
const uint32 l_1058 = l_1057 - l_1056;
// load
float *_tmp_23 = (float*)shared_memory_0 + l_1056;
asm volatile(
    "wmma.load.a.sync.aligned.row.m16n16k8.tf32 "
    "{%0,%1,%2,%3}, [%4], 36;\n"
    : "=r"(frag_a_1059[0]), "=r"(frag_a_1059[1]), "=r"(frag_a_1059[2]), "=r"(frag_a_1059[3])
    : "l"(_tmp_23)
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_14[0]), "=f"(frag_acc_14[1]), "=f"(frag_acc_14[2]), "=f"(frag_acc_14[3]), "=f"(frag_acc_14[4]), "=f"(frag_acc_14[5]), "=f"(frag_acc_14[6]), "=f"(frag_acc_14[7])
    : "r"(frag_a_1059[0]), "r"(frag_a_1059[1]), "r"(frag_a_1059[2]), "r"(frag_a_1059[3]), "r"(frag_b_1030[0]), "r"(frag_b_1030[1]), "r"(frag_b_1030[2]), "r"(frag_b_1030[3]), "f"(frag_acc_14[0]), "f"(frag_acc_14[1]), "f"(frag_acc_14[2]), "f"(frag_acc_14[3]), "f"(frag_acc_14[4]), "f"(frag_acc_14[5]), "f"(frag_acc_14[6]), "f"(frag_acc_14[7])
);
// execute
asm volatile(
    "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 "
    "{%0,%1,%2,%3,%4,%5,%6,%7}, "
    "{%8,%9,%10,%11}, "
    "{%12,%13,%14,%15}, "
    "{%16,%17,%18,%19,%20,%21,%22,%23};\n"
    : "=f"(frag_acc_15[0]), "=f"(frag_acc_15[1]), "=f"(frag_acc_15[2]), "=f"(frag_acc_15[3]), "=f"(frag_acc_15[4]), "=f"(frag_acc_15[5]), "=f"(frag_acc_15[6]), "=f"(frag_acc_15[7])
    : "r"(frag_a_1059[0]), "r"(frag_a_1059[1]), "r"(frag_a_1059[2]), "r"(frag_a_1059[3]), "r"(frag_b_1035[0]), "r"(frag_b_1035[1]), "r"(frag_b_1035[2]), "r"(frag_b_1035[3]), "f"(frag_acc_15[0]), "f"(frag_acc_15[1]), "f"(frag_acc_15[2]), "f"(frag_acc_15[3]), "f"(frag_acc_15[4]), "f"(frag_acc_15[5]), "f"(frag_acc_15[6]), "f"(frag_acc_15[7])
);
__syncthreads();

}
const uint32 l_1060 = l_1 * uint32(16);
const uint32 l_1061 = l_1060 * uint32(16);
const uint32 l_1062 = l_1061 + uint32(256);
const uint32 l_1063 = l_1062 - l_1061;
// store
float *_tmp_24 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_24),
      "f"(frag_acc_8[0]), "f"(frag_acc_8[1]), "f"(frag_acc_8[2]), "f"(frag_acc_8[3]), "f"(frag_acc_8[4]), "f"(frag_acc_8[5]), "f"(frag_acc_8[6]), "f"(frag_acc_8[7])
);
__syncthreads();

const uint32 l_1064 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1065 = l_6 + l_3;
const uint32 l_1066 = l_1065 + uint32(0);
const uint32 l_1067 = l_1064 / uint32(16);
const uint32 l_1068 = l_1066 + l_1067;
const uint32 l_1069 = l_7 + l_5;
const uint32 l_1070 = l_1069 + uint32(0);
const uint32 l_1071 = l_1064 % uint32(16);
const uint32 l_1072 = l_1070 + l_1071;
const bool l_1073 = l_1068 < info.scalars_uint32[0];
const bool l_1074 = l_1072 < info.scalars_uint32[1];
const bool l_1075 = l_1073 && l_1074;
if (l_1075) {
const uint32 l_1076 = l_1068 * info.scalars_uint32[1];
const uint32 l_1077 = l_1076 + l_1072;
const uint32 l_1078 = l_1061 + l_1064;
const float l_1079 = shared_memory_0[l_1078];
const float l_1080 = float(l_1079);
buffer_2[l_1077] = l_1080;
}
const uint32 l_1081 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1082 = l_6 + l_3;
const uint32 l_1083 = l_1082 + uint32(0);
const uint32 l_1084 = l_1081 / uint32(16);
const uint32 l_1085 = l_1083 + l_1084;
const uint32 l_1086 = l_7 + l_5;
const uint32 l_1087 = l_1086 + uint32(0);
const uint32 l_1088 = l_1081 % uint32(16);
const uint32 l_1089 = l_1087 + l_1088;
const bool l_1090 = l_1085 < info.scalars_uint32[0];
const bool l_1091 = l_1089 < info.scalars_uint32[1];
const bool l_1092 = l_1090 && l_1091;
if (l_1092) {
const uint32 l_1093 = l_1085 * info.scalars_uint32[1];
const uint32 l_1094 = l_1093 + l_1089;
const uint32 l_1095 = l_1061 + l_1081;
const float l_1096 = shared_memory_0[l_1095];
const float l_1097 = float(l_1096);
buffer_2[l_1094] = l_1097;
}
const uint32 l_1098 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1099 = l_6 + l_3;
const uint32 l_1100 = l_1099 + uint32(0);
const uint32 l_1101 = l_1098 / uint32(16);
const uint32 l_1102 = l_1100 + l_1101;
const uint32 l_1103 = l_7 + l_5;
const uint32 l_1104 = l_1103 + uint32(0);
const uint32 l_1105 = l_1098 % uint32(16);
const uint32 l_1106 = l_1104 + l_1105;
const bool l_1107 = l_1102 < info.scalars_uint32[0];
const bool l_1108 = l_1106 < info.scalars_uint32[1];
const bool l_1109 = l_1107 && l_1108;
if (l_1109) {
const uint32 l_1110 = l_1102 * info.scalars_uint32[1];
const uint32 l_1111 = l_1110 + l_1106;
const uint32 l_1112 = l_1061 + l_1098;
const float l_1113 = shared_memory_0[l_1112];
const float l_1114 = float(l_1113);
buffer_2[l_1111] = l_1114;
}
const uint32 l_1115 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1116 = l_6 + l_3;
const uint32 l_1117 = l_1116 + uint32(0);
const uint32 l_1118 = l_1115 / uint32(16);
const uint32 l_1119 = l_1117 + l_1118;
const uint32 l_1120 = l_7 + l_5;
const uint32 l_1121 = l_1120 + uint32(0);
const uint32 l_1122 = l_1115 % uint32(16);
const uint32 l_1123 = l_1121 + l_1122;
const bool l_1124 = l_1119 < info.scalars_uint32[0];
const bool l_1125 = l_1123 < info.scalars_uint32[1];
const bool l_1126 = l_1124 && l_1125;
if (l_1126) {
const uint32 l_1127 = l_1119 * info.scalars_uint32[1];
const uint32 l_1128 = l_1127 + l_1123;
const uint32 l_1129 = l_1061 + l_1115;
const float l_1130 = shared_memory_0[l_1129];
const float l_1131 = float(l_1130);
buffer_2[l_1128] = l_1131;
}
const uint32 l_1132 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1133 = l_6 + l_3;
const uint32 l_1134 = l_1133 + uint32(0);
const uint32 l_1135 = l_1132 / uint32(16);
const uint32 l_1136 = l_1134 + l_1135;
const uint32 l_1137 = l_7 + l_5;
const uint32 l_1138 = l_1137 + uint32(0);
const uint32 l_1139 = l_1132 % uint32(16);
const uint32 l_1140 = l_1138 + l_1139;
const bool l_1141 = l_1136 < info.scalars_uint32[0];
const bool l_1142 = l_1140 < info.scalars_uint32[1];
const bool l_1143 = l_1141 && l_1142;
if (l_1143) {
const uint32 l_1144 = l_1136 * info.scalars_uint32[1];
const uint32 l_1145 = l_1144 + l_1140;
const uint32 l_1146 = l_1061 + l_1132;
const float l_1147 = shared_memory_0[l_1146];
const float l_1148 = float(l_1147);
buffer_2[l_1145] = l_1148;
}
const uint32 l_1149 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1150 = l_6 + l_3;
const uint32 l_1151 = l_1150 + uint32(0);
const uint32 l_1152 = l_1149 / uint32(16);
const uint32 l_1153 = l_1151 + l_1152;
const uint32 l_1154 = l_7 + l_5;
const uint32 l_1155 = l_1154 + uint32(0);
const uint32 l_1156 = l_1149 % uint32(16);
const uint32 l_1157 = l_1155 + l_1156;
const bool l_1158 = l_1153 < info.scalars_uint32[0];
const bool l_1159 = l_1157 < info.scalars_uint32[1];
const bool l_1160 = l_1158 && l_1159;
if (l_1160) {
const uint32 l_1161 = l_1153 * info.scalars_uint32[1];
const uint32 l_1162 = l_1161 + l_1157;
const uint32 l_1163 = l_1061 + l_1149;
const float l_1164 = shared_memory_0[l_1163];
const float l_1165 = float(l_1164);
buffer_2[l_1162] = l_1165;
}
const uint32 l_1166 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1167 = l_6 + l_3;
const uint32 l_1168 = l_1167 + uint32(0);
const uint32 l_1169 = l_1166 / uint32(16);
const uint32 l_1170 = l_1168 + l_1169;
const uint32 l_1171 = l_7 + l_5;
const uint32 l_1172 = l_1171 + uint32(0);
const uint32 l_1173 = l_1166 % uint32(16);
const uint32 l_1174 = l_1172 + l_1173;
const bool l_1175 = l_1170 < info.scalars_uint32[0];
const bool l_1176 = l_1174 < info.scalars_uint32[1];
const bool l_1177 = l_1175 && l_1176;
if (l_1177) {
const uint32 l_1178 = l_1170 * info.scalars_uint32[1];
const uint32 l_1179 = l_1178 + l_1174;
const uint32 l_1180 = l_1061 + l_1166;
const float l_1181 = shared_memory_0[l_1180];
const float l_1182 = float(l_1181);
buffer_2[l_1179] = l_1182;
}
const uint32 l_1183 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_1184 = l_6 + l_3;
const uint32 l_1185 = l_1184 + uint32(0);
const uint32 l_1186 = l_1183 / uint32(16);
const uint32 l_1187 = l_1185 + l_1186;
const uint32 l_1188 = l_7 + l_5;
const uint32 l_1189 = l_1188 + uint32(0);
const uint32 l_1190 = l_1183 % uint32(16);
const uint32 l_1191 = l_1189 + l_1190;
const bool l_1192 = l_1187 < info.scalars_uint32[0];
const bool l_1193 = l_1191 < info.scalars_uint32[1];
const bool l_1194 = l_1192 && l_1193;
if (l_1194) {
const uint32 l_1195 = l_1187 * info.scalars_uint32[1];
const uint32 l_1196 = l_1195 + l_1191;
const uint32 l_1197 = l_1061 + l_1183;
const float l_1198 = shared_memory_0[l_1197];
const float l_1199 = float(l_1198);
buffer_2[l_1196] = l_1199;
}
__syncthreads();

const uint32 l_1200 = l_1061 + uint32(256);
const uint32 l_1201 = l_1200 - l_1061;
// store
float *_tmp_25 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_25),
      "f"(frag_acc_9[0]), "f"(frag_acc_9[1]), "f"(frag_acc_9[2]), "f"(frag_acc_9[3]), "f"(frag_acc_9[4]), "f"(frag_acc_9[5]), "f"(frag_acc_9[6]), "f"(frag_acc_9[7])
);
__syncthreads();

const uint32 l_1202 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1203 = l_6 + l_3;
const uint32 l_1204 = l_1203 + uint32(0);
const uint32 l_1205 = l_1202 / uint32(16);
const uint32 l_1206 = l_1204 + l_1205;
const uint32 l_1207 = l_7 + l_5;
const uint32 l_1208 = l_1207 + uint32(16);
const uint32 l_1209 = l_1202 % uint32(16);
const uint32 l_1210 = l_1208 + l_1209;
const bool l_1211 = l_1206 < info.scalars_uint32[0];
const bool l_1212 = l_1210 < info.scalars_uint32[1];
const bool l_1213 = l_1211 && l_1212;
if (l_1213) {
const uint32 l_1214 = l_1206 * info.scalars_uint32[1];
const uint32 l_1215 = l_1214 + l_1210;
const uint32 l_1216 = l_1061 + l_1202;
const float l_1217 = shared_memory_0[l_1216];
const float l_1218 = float(l_1217);
buffer_2[l_1215] = l_1218;
}
const uint32 l_1219 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1220 = l_6 + l_3;
const uint32 l_1221 = l_1220 + uint32(0);
const uint32 l_1222 = l_1219 / uint32(16);
const uint32 l_1223 = l_1221 + l_1222;
const uint32 l_1224 = l_7 + l_5;
const uint32 l_1225 = l_1224 + uint32(16);
const uint32 l_1226 = l_1219 % uint32(16);
const uint32 l_1227 = l_1225 + l_1226;
const bool l_1228 = l_1223 < info.scalars_uint32[0];
const bool l_1229 = l_1227 < info.scalars_uint32[1];
const bool l_1230 = l_1228 && l_1229;
if (l_1230) {
const uint32 l_1231 = l_1223 * info.scalars_uint32[1];
const uint32 l_1232 = l_1231 + l_1227;
const uint32 l_1233 = l_1061 + l_1219;
const float l_1234 = shared_memory_0[l_1233];
const float l_1235 = float(l_1234);
buffer_2[l_1232] = l_1235;
}
const uint32 l_1236 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1237 = l_6 + l_3;
const uint32 l_1238 = l_1237 + uint32(0);
const uint32 l_1239 = l_1236 / uint32(16);
const uint32 l_1240 = l_1238 + l_1239;
const uint32 l_1241 = l_7 + l_5;
const uint32 l_1242 = l_1241 + uint32(16);
const uint32 l_1243 = l_1236 % uint32(16);
const uint32 l_1244 = l_1242 + l_1243;
const bool l_1245 = l_1240 < info.scalars_uint32[0];
const bool l_1246 = l_1244 < info.scalars_uint32[1];
const bool l_1247 = l_1245 && l_1246;
if (l_1247) {
const uint32 l_1248 = l_1240 * info.scalars_uint32[1];
const uint32 l_1249 = l_1248 + l_1244;
const uint32 l_1250 = l_1061 + l_1236;
const float l_1251 = shared_memory_0[l_1250];
const float l_1252 = float(l_1251);
buffer_2[l_1249] = l_1252;
}
const uint32 l_1253 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1254 = l_6 + l_3;
const uint32 l_1255 = l_1254 + uint32(0);
const uint32 l_1256 = l_1253 / uint32(16);
const uint32 l_1257 = l_1255 + l_1256;
const uint32 l_1258 = l_7 + l_5;
const uint32 l_1259 = l_1258 + uint32(16);
const uint32 l_1260 = l_1253 % uint32(16);
const uint32 l_1261 = l_1259 + l_1260;
const bool l_1262 = l_1257 < info.scalars_uint32[0];
const bool l_1263 = l_1261 < info.scalars_uint32[1];
const bool l_1264 = l_1262 && l_1263;
if (l_1264) {
const uint32 l_1265 = l_1257 * info.scalars_uint32[1];
const uint32 l_1266 = l_1265 + l_1261;
const uint32 l_1267 = l_1061 + l_1253;
const float l_1268 = shared_memory_0[l_1267];
const float l_1269 = float(l_1268);
buffer_2[l_1266] = l_1269;
}
const uint32 l_1270 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1271 = l_6 + l_3;
const uint32 l_1272 = l_1271 + uint32(0);
const uint32 l_1273 = l_1270 / uint32(16);
const uint32 l_1274 = l_1272 + l_1273;
const uint32 l_1275 = l_7 + l_5;
const uint32 l_1276 = l_1275 + uint32(16);
const uint32 l_1277 = l_1270 % uint32(16);
const uint32 l_1278 = l_1276 + l_1277;
const bool l_1279 = l_1274 < info.scalars_uint32[0];
const bool l_1280 = l_1278 < info.scalars_uint32[1];
const bool l_1281 = l_1279 && l_1280;
if (l_1281) {
const uint32 l_1282 = l_1274 * info.scalars_uint32[1];
const uint32 l_1283 = l_1282 + l_1278;
const uint32 l_1284 = l_1061 + l_1270;
const float l_1285 = shared_memory_0[l_1284];
const float l_1286 = float(l_1285);
buffer_2[l_1283] = l_1286;
}
const uint32 l_1287 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1288 = l_6 + l_3;
const uint32 l_1289 = l_1288 + uint32(0);
const uint32 l_1290 = l_1287 / uint32(16);
const uint32 l_1291 = l_1289 + l_1290;
const uint32 l_1292 = l_7 + l_5;
const uint32 l_1293 = l_1292 + uint32(16);
const uint32 l_1294 = l_1287 % uint32(16);
const uint32 l_1295 = l_1293 + l_1294;
const bool l_1296 = l_1291 < info.scalars_uint32[0];
const bool l_1297 = l_1295 < info.scalars_uint32[1];
const bool l_1298 = l_1296 && l_1297;
if (l_1298) {
const uint32 l_1299 = l_1291 * info.scalars_uint32[1];
const uint32 l_1300 = l_1299 + l_1295;
const uint32 l_1301 = l_1061 + l_1287;
const float l_1302 = shared_memory_0[l_1301];
const float l_1303 = float(l_1302);
buffer_2[l_1300] = l_1303;
}
const uint32 l_1304 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1305 = l_6 + l_3;
const uint32 l_1306 = l_1305 + uint32(0);
const uint32 l_1307 = l_1304 / uint32(16);
const uint32 l_1308 = l_1306 + l_1307;
const uint32 l_1309 = l_7 + l_5;
const uint32 l_1310 = l_1309 + uint32(16);
const uint32 l_1311 = l_1304 % uint32(16);
const uint32 l_1312 = l_1310 + l_1311;
const bool l_1313 = l_1308 < info.scalars_uint32[0];
const bool l_1314 = l_1312 < info.scalars_uint32[1];
const bool l_1315 = l_1313 && l_1314;
if (l_1315) {
const uint32 l_1316 = l_1308 * info.scalars_uint32[1];
const uint32 l_1317 = l_1316 + l_1312;
const uint32 l_1318 = l_1061 + l_1304;
const float l_1319 = shared_memory_0[l_1318];
const float l_1320 = float(l_1319);
buffer_2[l_1317] = l_1320;
}
const uint32 l_1321 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_1322 = l_6 + l_3;
const uint32 l_1323 = l_1322 + uint32(0);
const uint32 l_1324 = l_1321 / uint32(16);
const uint32 l_1325 = l_1323 + l_1324;
const uint32 l_1326 = l_7 + l_5;
const uint32 l_1327 = l_1326 + uint32(16);
const uint32 l_1328 = l_1321 % uint32(16);
const uint32 l_1329 = l_1327 + l_1328;
const bool l_1330 = l_1325 < info.scalars_uint32[0];
const bool l_1331 = l_1329 < info.scalars_uint32[1];
const bool l_1332 = l_1330 && l_1331;
if (l_1332) {
const uint32 l_1333 = l_1325 * info.scalars_uint32[1];
const uint32 l_1334 = l_1333 + l_1329;
const uint32 l_1335 = l_1061 + l_1321;
const float l_1336 = shared_memory_0[l_1335];
const float l_1337 = float(l_1336);
buffer_2[l_1334] = l_1337;
}
__syncthreads();

const uint32 l_1338 = l_1061 + uint32(256);
const uint32 l_1339 = l_1338 - l_1061;
// store
float *_tmp_26 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_26),
      "f"(frag_acc_10[0]), "f"(frag_acc_10[1]), "f"(frag_acc_10[2]), "f"(frag_acc_10[3]), "f"(frag_acc_10[4]), "f"(frag_acc_10[5]), "f"(frag_acc_10[6]), "f"(frag_acc_10[7])
);
__syncthreads();

const uint32 l_1340 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1341 = l_6 + l_3;
const uint32 l_1342 = l_1341 + uint32(16);
const uint32 l_1343 = l_1340 / uint32(16);
const uint32 l_1344 = l_1342 + l_1343;
const uint32 l_1345 = l_7 + l_5;
const uint32 l_1346 = l_1345 + uint32(0);
const uint32 l_1347 = l_1340 % uint32(16);
const uint32 l_1348 = l_1346 + l_1347;
const bool l_1349 = l_1344 < info.scalars_uint32[0];
const bool l_1350 = l_1348 < info.scalars_uint32[1];
const bool l_1351 = l_1349 && l_1350;
if (l_1351) {
const uint32 l_1352 = l_1344 * info.scalars_uint32[1];
const uint32 l_1353 = l_1352 + l_1348;
const uint32 l_1354 = l_1061 + l_1340;
const float l_1355 = shared_memory_0[l_1354];
const float l_1356 = float(l_1355);
buffer_2[l_1353] = l_1356;
}
const uint32 l_1357 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1358 = l_6 + l_3;
const uint32 l_1359 = l_1358 + uint32(16);
const uint32 l_1360 = l_1357 / uint32(16);
const uint32 l_1361 = l_1359 + l_1360;
const uint32 l_1362 = l_7 + l_5;
const uint32 l_1363 = l_1362 + uint32(0);
const uint32 l_1364 = l_1357 % uint32(16);
const uint32 l_1365 = l_1363 + l_1364;
const bool l_1366 = l_1361 < info.scalars_uint32[0];
const bool l_1367 = l_1365 < info.scalars_uint32[1];
const bool l_1368 = l_1366 && l_1367;
if (l_1368) {
const uint32 l_1369 = l_1361 * info.scalars_uint32[1];
const uint32 l_1370 = l_1369 + l_1365;
const uint32 l_1371 = l_1061 + l_1357;
const float l_1372 = shared_memory_0[l_1371];
const float l_1373 = float(l_1372);
buffer_2[l_1370] = l_1373;
}
const uint32 l_1374 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1375 = l_6 + l_3;
const uint32 l_1376 = l_1375 + uint32(16);
const uint32 l_1377 = l_1374 / uint32(16);
const uint32 l_1378 = l_1376 + l_1377;
const uint32 l_1379 = l_7 + l_5;
const uint32 l_1380 = l_1379 + uint32(0);
const uint32 l_1381 = l_1374 % uint32(16);
const uint32 l_1382 = l_1380 + l_1381;
const bool l_1383 = l_1378 < info.scalars_uint32[0];
const bool l_1384 = l_1382 < info.scalars_uint32[1];
const bool l_1385 = l_1383 && l_1384;
if (l_1385) {
const uint32 l_1386 = l_1378 * info.scalars_uint32[1];
const uint32 l_1387 = l_1386 + l_1382;
const uint32 l_1388 = l_1061 + l_1374;
const float l_1389 = shared_memory_0[l_1388];
const float l_1390 = float(l_1389);
buffer_2[l_1387] = l_1390;
}
const uint32 l_1391 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1392 = l_6 + l_3;
const uint32 l_1393 = l_1392 + uint32(16);
const uint32 l_1394 = l_1391 / uint32(16);
const uint32 l_1395 = l_1393 + l_1394;
const uint32 l_1396 = l_7 + l_5;
const uint32 l_1397 = l_1396 + uint32(0);
const uint32 l_1398 = l_1391 % uint32(16);
const uint32 l_1399 = l_1397 + l_1398;
const bool l_1400 = l_1395 < info.scalars_uint32[0];
const bool l_1401 = l_1399 < info.scalars_uint32[1];
const bool l_1402 = l_1400 && l_1401;
if (l_1402) {
const uint32 l_1403 = l_1395 * info.scalars_uint32[1];
const uint32 l_1404 = l_1403 + l_1399;
const uint32 l_1405 = l_1061 + l_1391;
const float l_1406 = shared_memory_0[l_1405];
const float l_1407 = float(l_1406);
buffer_2[l_1404] = l_1407;
}
const uint32 l_1408 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1409 = l_6 + l_3;
const uint32 l_1410 = l_1409 + uint32(16);
const uint32 l_1411 = l_1408 / uint32(16);
const uint32 l_1412 = l_1410 + l_1411;
const uint32 l_1413 = l_7 + l_5;
const uint32 l_1414 = l_1413 + uint32(0);
const uint32 l_1415 = l_1408 % uint32(16);
const uint32 l_1416 = l_1414 + l_1415;
const bool l_1417 = l_1412 < info.scalars_uint32[0];
const bool l_1418 = l_1416 < info.scalars_uint32[1];
const bool l_1419 = l_1417 && l_1418;
if (l_1419) {
const uint32 l_1420 = l_1412 * info.scalars_uint32[1];
const uint32 l_1421 = l_1420 + l_1416;
const uint32 l_1422 = l_1061 + l_1408;
const float l_1423 = shared_memory_0[l_1422];
const float l_1424 = float(l_1423);
buffer_2[l_1421] = l_1424;
}
const uint32 l_1425 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1426 = l_6 + l_3;
const uint32 l_1427 = l_1426 + uint32(16);
const uint32 l_1428 = l_1425 / uint32(16);
const uint32 l_1429 = l_1427 + l_1428;
const uint32 l_1430 = l_7 + l_5;
const uint32 l_1431 = l_1430 + uint32(0);
const uint32 l_1432 = l_1425 % uint32(16);
const uint32 l_1433 = l_1431 + l_1432;
const bool l_1434 = l_1429 < info.scalars_uint32[0];
const bool l_1435 = l_1433 < info.scalars_uint32[1];
const bool l_1436 = l_1434 && l_1435;
if (l_1436) {
const uint32 l_1437 = l_1429 * info.scalars_uint32[1];
const uint32 l_1438 = l_1437 + l_1433;
const uint32 l_1439 = l_1061 + l_1425;
const float l_1440 = shared_memory_0[l_1439];
const float l_1441 = float(l_1440);
buffer_2[l_1438] = l_1441;
}
const uint32 l_1442 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1443 = l_6 + l_3;
const uint32 l_1444 = l_1443 + uint32(16);
const uint32 l_1445 = l_1442 / uint32(16);
const uint32 l_1446 = l_1444 + l_1445;
const uint32 l_1447 = l_7 + l_5;
const uint32 l_1448 = l_1447 + uint32(0);
const uint32 l_1449 = l_1442 % uint32(16);
const uint32 l_1450 = l_1448 + l_1449;
const bool l_1451 = l_1446 < info.scalars_uint32[0];
const bool l_1452 = l_1450 < info.scalars_uint32[1];
const bool l_1453 = l_1451 && l_1452;
if (l_1453) {
const uint32 l_1454 = l_1446 * info.scalars_uint32[1];
const uint32 l_1455 = l_1454 + l_1450;
const uint32 l_1456 = l_1061 + l_1442;
const float l_1457 = shared_memory_0[l_1456];
const float l_1458 = float(l_1457);
buffer_2[l_1455] = l_1458;
}
const uint32 l_1459 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_1460 = l_6 + l_3;
const uint32 l_1461 = l_1460 + uint32(16);
const uint32 l_1462 = l_1459 / uint32(16);
const uint32 l_1463 = l_1461 + l_1462;
const uint32 l_1464 = l_7 + l_5;
const uint32 l_1465 = l_1464 + uint32(0);
const uint32 l_1466 = l_1459 % uint32(16);
const uint32 l_1467 = l_1465 + l_1466;
const bool l_1468 = l_1463 < info.scalars_uint32[0];
const bool l_1469 = l_1467 < info.scalars_uint32[1];
const bool l_1470 = l_1468 && l_1469;
if (l_1470) {
const uint32 l_1471 = l_1463 * info.scalars_uint32[1];
const uint32 l_1472 = l_1471 + l_1467;
const uint32 l_1473 = l_1061 + l_1459;
const float l_1474 = shared_memory_0[l_1473];
const float l_1475 = float(l_1474);
buffer_2[l_1472] = l_1475;
}
__syncthreads();

const uint32 l_1476 = l_1061 + uint32(256);
const uint32 l_1477 = l_1476 - l_1061;
// store
float *_tmp_27 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_27),
      "f"(frag_acc_11[0]), "f"(frag_acc_11[1]), "f"(frag_acc_11[2]), "f"(frag_acc_11[3]), "f"(frag_acc_11[4]), "f"(frag_acc_11[5]), "f"(frag_acc_11[6]), "f"(frag_acc_11[7])
);
__syncthreads();

const uint32 l_1478 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1479 = l_6 + l_3;
const uint32 l_1480 = l_1479 + uint32(16);
const uint32 l_1481 = l_1478 / uint32(16);
const uint32 l_1482 = l_1480 + l_1481;
const uint32 l_1483 = l_7 + l_5;
const uint32 l_1484 = l_1483 + uint32(16);
const uint32 l_1485 = l_1478 % uint32(16);
const uint32 l_1486 = l_1484 + l_1485;
const bool l_1487 = l_1482 < info.scalars_uint32[0];
const bool l_1488 = l_1486 < info.scalars_uint32[1];
const bool l_1489 = l_1487 && l_1488;
if (l_1489) {
const uint32 l_1490 = l_1482 * info.scalars_uint32[1];
const uint32 l_1491 = l_1490 + l_1486;
const uint32 l_1492 = l_1061 + l_1478;
const float l_1493 = shared_memory_0[l_1492];
const float l_1494 = float(l_1493);
buffer_2[l_1491] = l_1494;
}
const uint32 l_1495 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1496 = l_6 + l_3;
const uint32 l_1497 = l_1496 + uint32(16);
const uint32 l_1498 = l_1495 / uint32(16);
const uint32 l_1499 = l_1497 + l_1498;
const uint32 l_1500 = l_7 + l_5;
const uint32 l_1501 = l_1500 + uint32(16);
const uint32 l_1502 = l_1495 % uint32(16);
const uint32 l_1503 = l_1501 + l_1502;
const bool l_1504 = l_1499 < info.scalars_uint32[0];
const bool l_1505 = l_1503 < info.scalars_uint32[1];
const bool l_1506 = l_1504 && l_1505;
if (l_1506) {
const uint32 l_1507 = l_1499 * info.scalars_uint32[1];
const uint32 l_1508 = l_1507 + l_1503;
const uint32 l_1509 = l_1061 + l_1495;
const float l_1510 = shared_memory_0[l_1509];
const float l_1511 = float(l_1510);
buffer_2[l_1508] = l_1511;
}
const uint32 l_1512 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1513 = l_6 + l_3;
const uint32 l_1514 = l_1513 + uint32(16);
const uint32 l_1515 = l_1512 / uint32(16);
const uint32 l_1516 = l_1514 + l_1515;
const uint32 l_1517 = l_7 + l_5;
const uint32 l_1518 = l_1517 + uint32(16);
const uint32 l_1519 = l_1512 % uint32(16);
const uint32 l_1520 = l_1518 + l_1519;
const bool l_1521 = l_1516 < info.scalars_uint32[0];
const bool l_1522 = l_1520 < info.scalars_uint32[1];
const bool l_1523 = l_1521 && l_1522;
if (l_1523) {
const uint32 l_1524 = l_1516 * info.scalars_uint32[1];
const uint32 l_1525 = l_1524 + l_1520;
const uint32 l_1526 = l_1061 + l_1512;
const float l_1527 = shared_memory_0[l_1526];
const float l_1528 = float(l_1527);
buffer_2[l_1525] = l_1528;
}
const uint32 l_1529 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1530 = l_6 + l_3;
const uint32 l_1531 = l_1530 + uint32(16);
const uint32 l_1532 = l_1529 / uint32(16);
const uint32 l_1533 = l_1531 + l_1532;
const uint32 l_1534 = l_7 + l_5;
const uint32 l_1535 = l_1534 + uint32(16);
const uint32 l_1536 = l_1529 % uint32(16);
const uint32 l_1537 = l_1535 + l_1536;
const bool l_1538 = l_1533 < info.scalars_uint32[0];
const bool l_1539 = l_1537 < info.scalars_uint32[1];
const bool l_1540 = l_1538 && l_1539;
if (l_1540) {
const uint32 l_1541 = l_1533 * info.scalars_uint32[1];
const uint32 l_1542 = l_1541 + l_1537;
const uint32 l_1543 = l_1061 + l_1529;
const float l_1544 = shared_memory_0[l_1543];
const float l_1545 = float(l_1544);
buffer_2[l_1542] = l_1545;
}
const uint32 l_1546 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1547 = l_6 + l_3;
const uint32 l_1548 = l_1547 + uint32(16);
const uint32 l_1549 = l_1546 / uint32(16);
const uint32 l_1550 = l_1548 + l_1549;
const uint32 l_1551 = l_7 + l_5;
const uint32 l_1552 = l_1551 + uint32(16);
const uint32 l_1553 = l_1546 % uint32(16);
const uint32 l_1554 = l_1552 + l_1553;
const bool l_1555 = l_1550 < info.scalars_uint32[0];
const bool l_1556 = l_1554 < info.scalars_uint32[1];
const bool l_1557 = l_1555 && l_1556;
if (l_1557) {
const uint32 l_1558 = l_1550 * info.scalars_uint32[1];
const uint32 l_1559 = l_1558 + l_1554;
const uint32 l_1560 = l_1061 + l_1546;
const float l_1561 = shared_memory_0[l_1560];
const float l_1562 = float(l_1561);
buffer_2[l_1559] = l_1562;
}
const uint32 l_1563 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1564 = l_6 + l_3;
const uint32 l_1565 = l_1564 + uint32(16);
const uint32 l_1566 = l_1563 / uint32(16);
const uint32 l_1567 = l_1565 + l_1566;
const uint32 l_1568 = l_7 + l_5;
const uint32 l_1569 = l_1568 + uint32(16);
const uint32 l_1570 = l_1563 % uint32(16);
const uint32 l_1571 = l_1569 + l_1570;
const bool l_1572 = l_1567 < info.scalars_uint32[0];
const bool l_1573 = l_1571 < info.scalars_uint32[1];
const bool l_1574 = l_1572 && l_1573;
if (l_1574) {
const uint32 l_1575 = l_1567 * info.scalars_uint32[1];
const uint32 l_1576 = l_1575 + l_1571;
const uint32 l_1577 = l_1061 + l_1563;
const float l_1578 = shared_memory_0[l_1577];
const float l_1579 = float(l_1578);
buffer_2[l_1576] = l_1579;
}
const uint32 l_1580 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1581 = l_6 + l_3;
const uint32 l_1582 = l_1581 + uint32(16);
const uint32 l_1583 = l_1580 / uint32(16);
const uint32 l_1584 = l_1582 + l_1583;
const uint32 l_1585 = l_7 + l_5;
const uint32 l_1586 = l_1585 + uint32(16);
const uint32 l_1587 = l_1580 % uint32(16);
const uint32 l_1588 = l_1586 + l_1587;
const bool l_1589 = l_1584 < info.scalars_uint32[0];
const bool l_1590 = l_1588 < info.scalars_uint32[1];
const bool l_1591 = l_1589 && l_1590;
if (l_1591) {
const uint32 l_1592 = l_1584 * info.scalars_uint32[1];
const uint32 l_1593 = l_1592 + l_1588;
const uint32 l_1594 = l_1061 + l_1580;
const float l_1595 = shared_memory_0[l_1594];
const float l_1596 = float(l_1595);
buffer_2[l_1593] = l_1596;
}
const uint32 l_1597 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_1598 = l_6 + l_3;
const uint32 l_1599 = l_1598 + uint32(16);
const uint32 l_1600 = l_1597 / uint32(16);
const uint32 l_1601 = l_1599 + l_1600;
const uint32 l_1602 = l_7 + l_5;
const uint32 l_1603 = l_1602 + uint32(16);
const uint32 l_1604 = l_1597 % uint32(16);
const uint32 l_1605 = l_1603 + l_1604;
const bool l_1606 = l_1601 < info.scalars_uint32[0];
const bool l_1607 = l_1605 < info.scalars_uint32[1];
const bool l_1608 = l_1606 && l_1607;
if (l_1608) {
const uint32 l_1609 = l_1601 * info.scalars_uint32[1];
const uint32 l_1610 = l_1609 + l_1605;
const uint32 l_1611 = l_1061 + l_1597;
const float l_1612 = shared_memory_0[l_1611];
const float l_1613 = float(l_1612);
buffer_2[l_1610] = l_1613;
}
__syncthreads();

const uint32 l_1614 = l_1061 + uint32(256);
const uint32 l_1615 = l_1614 - l_1061;
// store
float *_tmp_28 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_28),
      "f"(frag_acc_12[0]), "f"(frag_acc_12[1]), "f"(frag_acc_12[2]), "f"(frag_acc_12[3]), "f"(frag_acc_12[4]), "f"(frag_acc_12[5]), "f"(frag_acc_12[6]), "f"(frag_acc_12[7])
);
__syncthreads();

const uint32 l_1616 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1617 = l_6 + l_3;
const uint32 l_1618 = l_1617 + uint32(32);
const uint32 l_1619 = l_1616 / uint32(16);
const uint32 l_1620 = l_1618 + l_1619;
const uint32 l_1621 = l_7 + l_5;
const uint32 l_1622 = l_1621 + uint32(0);
const uint32 l_1623 = l_1616 % uint32(16);
const uint32 l_1624 = l_1622 + l_1623;
const bool l_1625 = l_1620 < info.scalars_uint32[0];
const bool l_1626 = l_1624 < info.scalars_uint32[1];
const bool l_1627 = l_1625 && l_1626;
if (l_1627) {
const uint32 l_1628 = l_1620 * info.scalars_uint32[1];
const uint32 l_1629 = l_1628 + l_1624;
const uint32 l_1630 = l_1061 + l_1616;
const float l_1631 = shared_memory_0[l_1630];
const float l_1632 = float(l_1631);
buffer_2[l_1629] = l_1632;
}
const uint32 l_1633 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1634 = l_6 + l_3;
const uint32 l_1635 = l_1634 + uint32(32);
const uint32 l_1636 = l_1633 / uint32(16);
const uint32 l_1637 = l_1635 + l_1636;
const uint32 l_1638 = l_7 + l_5;
const uint32 l_1639 = l_1638 + uint32(0);
const uint32 l_1640 = l_1633 % uint32(16);
const uint32 l_1641 = l_1639 + l_1640;
const bool l_1642 = l_1637 < info.scalars_uint32[0];
const bool l_1643 = l_1641 < info.scalars_uint32[1];
const bool l_1644 = l_1642 && l_1643;
if (l_1644) {
const uint32 l_1645 = l_1637 * info.scalars_uint32[1];
const uint32 l_1646 = l_1645 + l_1641;
const uint32 l_1647 = l_1061 + l_1633;
const float l_1648 = shared_memory_0[l_1647];
const float l_1649 = float(l_1648);
buffer_2[l_1646] = l_1649;
}
const uint32 l_1650 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1651 = l_6 + l_3;
const uint32 l_1652 = l_1651 + uint32(32);
const uint32 l_1653 = l_1650 / uint32(16);
const uint32 l_1654 = l_1652 + l_1653;
const uint32 l_1655 = l_7 + l_5;
const uint32 l_1656 = l_1655 + uint32(0);
const uint32 l_1657 = l_1650 % uint32(16);
const uint32 l_1658 = l_1656 + l_1657;
const bool l_1659 = l_1654 < info.scalars_uint32[0];
const bool l_1660 = l_1658 < info.scalars_uint32[1];
const bool l_1661 = l_1659 && l_1660;
if (l_1661) {
const uint32 l_1662 = l_1654 * info.scalars_uint32[1];
const uint32 l_1663 = l_1662 + l_1658;
const uint32 l_1664 = l_1061 + l_1650;
const float l_1665 = shared_memory_0[l_1664];
const float l_1666 = float(l_1665);
buffer_2[l_1663] = l_1666;
}
const uint32 l_1667 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1668 = l_6 + l_3;
const uint32 l_1669 = l_1668 + uint32(32);
const uint32 l_1670 = l_1667 / uint32(16);
const uint32 l_1671 = l_1669 + l_1670;
const uint32 l_1672 = l_7 + l_5;
const uint32 l_1673 = l_1672 + uint32(0);
const uint32 l_1674 = l_1667 % uint32(16);
const uint32 l_1675 = l_1673 + l_1674;
const bool l_1676 = l_1671 < info.scalars_uint32[0];
const bool l_1677 = l_1675 < info.scalars_uint32[1];
const bool l_1678 = l_1676 && l_1677;
if (l_1678) {
const uint32 l_1679 = l_1671 * info.scalars_uint32[1];
const uint32 l_1680 = l_1679 + l_1675;
const uint32 l_1681 = l_1061 + l_1667;
const float l_1682 = shared_memory_0[l_1681];
const float l_1683 = float(l_1682);
buffer_2[l_1680] = l_1683;
}
const uint32 l_1684 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1685 = l_6 + l_3;
const uint32 l_1686 = l_1685 + uint32(32);
const uint32 l_1687 = l_1684 / uint32(16);
const uint32 l_1688 = l_1686 + l_1687;
const uint32 l_1689 = l_7 + l_5;
const uint32 l_1690 = l_1689 + uint32(0);
const uint32 l_1691 = l_1684 % uint32(16);
const uint32 l_1692 = l_1690 + l_1691;
const bool l_1693 = l_1688 < info.scalars_uint32[0];
const bool l_1694 = l_1692 < info.scalars_uint32[1];
const bool l_1695 = l_1693 && l_1694;
if (l_1695) {
const uint32 l_1696 = l_1688 * info.scalars_uint32[1];
const uint32 l_1697 = l_1696 + l_1692;
const uint32 l_1698 = l_1061 + l_1684;
const float l_1699 = shared_memory_0[l_1698];
const float l_1700 = float(l_1699);
buffer_2[l_1697] = l_1700;
}
const uint32 l_1701 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1702 = l_6 + l_3;
const uint32 l_1703 = l_1702 + uint32(32);
const uint32 l_1704 = l_1701 / uint32(16);
const uint32 l_1705 = l_1703 + l_1704;
const uint32 l_1706 = l_7 + l_5;
const uint32 l_1707 = l_1706 + uint32(0);
const uint32 l_1708 = l_1701 % uint32(16);
const uint32 l_1709 = l_1707 + l_1708;
const bool l_1710 = l_1705 < info.scalars_uint32[0];
const bool l_1711 = l_1709 < info.scalars_uint32[1];
const bool l_1712 = l_1710 && l_1711;
if (l_1712) {
const uint32 l_1713 = l_1705 * info.scalars_uint32[1];
const uint32 l_1714 = l_1713 + l_1709;
const uint32 l_1715 = l_1061 + l_1701;
const float l_1716 = shared_memory_0[l_1715];
const float l_1717 = float(l_1716);
buffer_2[l_1714] = l_1717;
}
const uint32 l_1718 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1719 = l_6 + l_3;
const uint32 l_1720 = l_1719 + uint32(32);
const uint32 l_1721 = l_1718 / uint32(16);
const uint32 l_1722 = l_1720 + l_1721;
const uint32 l_1723 = l_7 + l_5;
const uint32 l_1724 = l_1723 + uint32(0);
const uint32 l_1725 = l_1718 % uint32(16);
const uint32 l_1726 = l_1724 + l_1725;
const bool l_1727 = l_1722 < info.scalars_uint32[0];
const bool l_1728 = l_1726 < info.scalars_uint32[1];
const bool l_1729 = l_1727 && l_1728;
if (l_1729) {
const uint32 l_1730 = l_1722 * info.scalars_uint32[1];
const uint32 l_1731 = l_1730 + l_1726;
const uint32 l_1732 = l_1061 + l_1718;
const float l_1733 = shared_memory_0[l_1732];
const float l_1734 = float(l_1733);
buffer_2[l_1731] = l_1734;
}
const uint32 l_1735 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_1736 = l_6 + l_3;
const uint32 l_1737 = l_1736 + uint32(32);
const uint32 l_1738 = l_1735 / uint32(16);
const uint32 l_1739 = l_1737 + l_1738;
const uint32 l_1740 = l_7 + l_5;
const uint32 l_1741 = l_1740 + uint32(0);
const uint32 l_1742 = l_1735 % uint32(16);
const uint32 l_1743 = l_1741 + l_1742;
const bool l_1744 = l_1739 < info.scalars_uint32[0];
const bool l_1745 = l_1743 < info.scalars_uint32[1];
const bool l_1746 = l_1744 && l_1745;
if (l_1746) {
const uint32 l_1747 = l_1739 * info.scalars_uint32[1];
const uint32 l_1748 = l_1747 + l_1743;
const uint32 l_1749 = l_1061 + l_1735;
const float l_1750 = shared_memory_0[l_1749];
const float l_1751 = float(l_1750);
buffer_2[l_1748] = l_1751;
}
__syncthreads();

const uint32 l_1752 = l_1061 + uint32(256);
const uint32 l_1753 = l_1752 - l_1061;
// store
float *_tmp_29 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_29),
      "f"(frag_acc_13[0]), "f"(frag_acc_13[1]), "f"(frag_acc_13[2]), "f"(frag_acc_13[3]), "f"(frag_acc_13[4]), "f"(frag_acc_13[5]), "f"(frag_acc_13[6]), "f"(frag_acc_13[7])
);
__syncthreads();

const uint32 l_1754 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1755 = l_6 + l_3;
const uint32 l_1756 = l_1755 + uint32(32);
const uint32 l_1757 = l_1754 / uint32(16);
const uint32 l_1758 = l_1756 + l_1757;
const uint32 l_1759 = l_7 + l_5;
const uint32 l_1760 = l_1759 + uint32(16);
const uint32 l_1761 = l_1754 % uint32(16);
const uint32 l_1762 = l_1760 + l_1761;
const bool l_1763 = l_1758 < info.scalars_uint32[0];
const bool l_1764 = l_1762 < info.scalars_uint32[1];
const bool l_1765 = l_1763 && l_1764;
if (l_1765) {
const uint32 l_1766 = l_1758 * info.scalars_uint32[1];
const uint32 l_1767 = l_1766 + l_1762;
const uint32 l_1768 = l_1061 + l_1754;
const float l_1769 = shared_memory_0[l_1768];
const float l_1770 = float(l_1769);
buffer_2[l_1767] = l_1770;
}
const uint32 l_1771 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1772 = l_6 + l_3;
const uint32 l_1773 = l_1772 + uint32(32);
const uint32 l_1774 = l_1771 / uint32(16);
const uint32 l_1775 = l_1773 + l_1774;
const uint32 l_1776 = l_7 + l_5;
const uint32 l_1777 = l_1776 + uint32(16);
const uint32 l_1778 = l_1771 % uint32(16);
const uint32 l_1779 = l_1777 + l_1778;
const bool l_1780 = l_1775 < info.scalars_uint32[0];
const bool l_1781 = l_1779 < info.scalars_uint32[1];
const bool l_1782 = l_1780 && l_1781;
if (l_1782) {
const uint32 l_1783 = l_1775 * info.scalars_uint32[1];
const uint32 l_1784 = l_1783 + l_1779;
const uint32 l_1785 = l_1061 + l_1771;
const float l_1786 = shared_memory_0[l_1785];
const float l_1787 = float(l_1786);
buffer_2[l_1784] = l_1787;
}
const uint32 l_1788 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1789 = l_6 + l_3;
const uint32 l_1790 = l_1789 + uint32(32);
const uint32 l_1791 = l_1788 / uint32(16);
const uint32 l_1792 = l_1790 + l_1791;
const uint32 l_1793 = l_7 + l_5;
const uint32 l_1794 = l_1793 + uint32(16);
const uint32 l_1795 = l_1788 % uint32(16);
const uint32 l_1796 = l_1794 + l_1795;
const bool l_1797 = l_1792 < info.scalars_uint32[0];
const bool l_1798 = l_1796 < info.scalars_uint32[1];
const bool l_1799 = l_1797 && l_1798;
if (l_1799) {
const uint32 l_1800 = l_1792 * info.scalars_uint32[1];
const uint32 l_1801 = l_1800 + l_1796;
const uint32 l_1802 = l_1061 + l_1788;
const float l_1803 = shared_memory_0[l_1802];
const float l_1804 = float(l_1803);
buffer_2[l_1801] = l_1804;
}
const uint32 l_1805 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1806 = l_6 + l_3;
const uint32 l_1807 = l_1806 + uint32(32);
const uint32 l_1808 = l_1805 / uint32(16);
const uint32 l_1809 = l_1807 + l_1808;
const uint32 l_1810 = l_7 + l_5;
const uint32 l_1811 = l_1810 + uint32(16);
const uint32 l_1812 = l_1805 % uint32(16);
const uint32 l_1813 = l_1811 + l_1812;
const bool l_1814 = l_1809 < info.scalars_uint32[0];
const bool l_1815 = l_1813 < info.scalars_uint32[1];
const bool l_1816 = l_1814 && l_1815;
if (l_1816) {
const uint32 l_1817 = l_1809 * info.scalars_uint32[1];
const uint32 l_1818 = l_1817 + l_1813;
const uint32 l_1819 = l_1061 + l_1805;
const float l_1820 = shared_memory_0[l_1819];
const float l_1821 = float(l_1820);
buffer_2[l_1818] = l_1821;
}
const uint32 l_1822 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1823 = l_6 + l_3;
const uint32 l_1824 = l_1823 + uint32(32);
const uint32 l_1825 = l_1822 / uint32(16);
const uint32 l_1826 = l_1824 + l_1825;
const uint32 l_1827 = l_7 + l_5;
const uint32 l_1828 = l_1827 + uint32(16);
const uint32 l_1829 = l_1822 % uint32(16);
const uint32 l_1830 = l_1828 + l_1829;
const bool l_1831 = l_1826 < info.scalars_uint32[0];
const bool l_1832 = l_1830 < info.scalars_uint32[1];
const bool l_1833 = l_1831 && l_1832;
if (l_1833) {
const uint32 l_1834 = l_1826 * info.scalars_uint32[1];
const uint32 l_1835 = l_1834 + l_1830;
const uint32 l_1836 = l_1061 + l_1822;
const float l_1837 = shared_memory_0[l_1836];
const float l_1838 = float(l_1837);
buffer_2[l_1835] = l_1838;
}
const uint32 l_1839 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1840 = l_6 + l_3;
const uint32 l_1841 = l_1840 + uint32(32);
const uint32 l_1842 = l_1839 / uint32(16);
const uint32 l_1843 = l_1841 + l_1842;
const uint32 l_1844 = l_7 + l_5;
const uint32 l_1845 = l_1844 + uint32(16);
const uint32 l_1846 = l_1839 % uint32(16);
const uint32 l_1847 = l_1845 + l_1846;
const bool l_1848 = l_1843 < info.scalars_uint32[0];
const bool l_1849 = l_1847 < info.scalars_uint32[1];
const bool l_1850 = l_1848 && l_1849;
if (l_1850) {
const uint32 l_1851 = l_1843 * info.scalars_uint32[1];
const uint32 l_1852 = l_1851 + l_1847;
const uint32 l_1853 = l_1061 + l_1839;
const float l_1854 = shared_memory_0[l_1853];
const float l_1855 = float(l_1854);
buffer_2[l_1852] = l_1855;
}
const uint32 l_1856 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1857 = l_6 + l_3;
const uint32 l_1858 = l_1857 + uint32(32);
const uint32 l_1859 = l_1856 / uint32(16);
const uint32 l_1860 = l_1858 + l_1859;
const uint32 l_1861 = l_7 + l_5;
const uint32 l_1862 = l_1861 + uint32(16);
const uint32 l_1863 = l_1856 % uint32(16);
const uint32 l_1864 = l_1862 + l_1863;
const bool l_1865 = l_1860 < info.scalars_uint32[0];
const bool l_1866 = l_1864 < info.scalars_uint32[1];
const bool l_1867 = l_1865 && l_1866;
if (l_1867) {
const uint32 l_1868 = l_1860 * info.scalars_uint32[1];
const uint32 l_1869 = l_1868 + l_1864;
const uint32 l_1870 = l_1061 + l_1856;
const float l_1871 = shared_memory_0[l_1870];
const float l_1872 = float(l_1871);
buffer_2[l_1869] = l_1872;
}
const uint32 l_1873 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_1874 = l_6 + l_3;
const uint32 l_1875 = l_1874 + uint32(32);
const uint32 l_1876 = l_1873 / uint32(16);
const uint32 l_1877 = l_1875 + l_1876;
const uint32 l_1878 = l_7 + l_5;
const uint32 l_1879 = l_1878 + uint32(16);
const uint32 l_1880 = l_1873 % uint32(16);
const uint32 l_1881 = l_1879 + l_1880;
const bool l_1882 = l_1877 < info.scalars_uint32[0];
const bool l_1883 = l_1881 < info.scalars_uint32[1];
const bool l_1884 = l_1882 && l_1883;
if (l_1884) {
const uint32 l_1885 = l_1877 * info.scalars_uint32[1];
const uint32 l_1886 = l_1885 + l_1881;
const uint32 l_1887 = l_1061 + l_1873;
const float l_1888 = shared_memory_0[l_1887];
const float l_1889 = float(l_1888);
buffer_2[l_1886] = l_1889;
}
__syncthreads();

const uint32 l_1890 = l_1061 + uint32(256);
const uint32 l_1891 = l_1890 - l_1061;
// store
float *_tmp_30 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_30),
      "f"(frag_acc_14[0]), "f"(frag_acc_14[1]), "f"(frag_acc_14[2]), "f"(frag_acc_14[3]), "f"(frag_acc_14[4]), "f"(frag_acc_14[5]), "f"(frag_acc_14[6]), "f"(frag_acc_14[7])
);
__syncthreads();

const uint32 l_1892 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_1893 = l_6 + l_3;
const uint32 l_1894 = l_1893 + uint32(48);
const uint32 l_1895 = l_1892 / uint32(16);
const uint32 l_1896 = l_1894 + l_1895;
const uint32 l_1897 = l_7 + l_5;
const uint32 l_1898 = l_1897 + uint32(0);
const uint32 l_1899 = l_1892 % uint32(16);
const uint32 l_1900 = l_1898 + l_1899;
const bool l_1901 = l_1896 < info.scalars_uint32[0];
const bool l_1902 = l_1900 < info.scalars_uint32[1];
const bool l_1903 = l_1901 && l_1902;
if (l_1903) {
const uint32 l_1904 = l_1896 * info.scalars_uint32[1];
const uint32 l_1905 = l_1904 + l_1900;
const uint32 l_1906 = l_1061 + l_1892;
const float l_1907 = shared_memory_0[l_1906];
const float l_1908 = float(l_1907);
buffer_2[l_1905] = l_1908;
}
const uint32 l_1909 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_1910 = l_6 + l_3;
const uint32 l_1911 = l_1910 + uint32(48);
const uint32 l_1912 = l_1909 / uint32(16);
const uint32 l_1913 = l_1911 + l_1912;
const uint32 l_1914 = l_7 + l_5;
const uint32 l_1915 = l_1914 + uint32(0);
const uint32 l_1916 = l_1909 % uint32(16);
const uint32 l_1917 = l_1915 + l_1916;
const bool l_1918 = l_1913 < info.scalars_uint32[0];
const bool l_1919 = l_1917 < info.scalars_uint32[1];
const bool l_1920 = l_1918 && l_1919;
if (l_1920) {
const uint32 l_1921 = l_1913 * info.scalars_uint32[1];
const uint32 l_1922 = l_1921 + l_1917;
const uint32 l_1923 = l_1061 + l_1909;
const float l_1924 = shared_memory_0[l_1923];
const float l_1925 = float(l_1924);
buffer_2[l_1922] = l_1925;
}
const uint32 l_1926 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_1927 = l_6 + l_3;
const uint32 l_1928 = l_1927 + uint32(48);
const uint32 l_1929 = l_1926 / uint32(16);
const uint32 l_1930 = l_1928 + l_1929;
const uint32 l_1931 = l_7 + l_5;
const uint32 l_1932 = l_1931 + uint32(0);
const uint32 l_1933 = l_1926 % uint32(16);
const uint32 l_1934 = l_1932 + l_1933;
const bool l_1935 = l_1930 < info.scalars_uint32[0];
const bool l_1936 = l_1934 < info.scalars_uint32[1];
const bool l_1937 = l_1935 && l_1936;
if (l_1937) {
const uint32 l_1938 = l_1930 * info.scalars_uint32[1];
const uint32 l_1939 = l_1938 + l_1934;
const uint32 l_1940 = l_1061 + l_1926;
const float l_1941 = shared_memory_0[l_1940];
const float l_1942 = float(l_1941);
buffer_2[l_1939] = l_1942;
}
const uint32 l_1943 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_1944 = l_6 + l_3;
const uint32 l_1945 = l_1944 + uint32(48);
const uint32 l_1946 = l_1943 / uint32(16);
const uint32 l_1947 = l_1945 + l_1946;
const uint32 l_1948 = l_7 + l_5;
const uint32 l_1949 = l_1948 + uint32(0);
const uint32 l_1950 = l_1943 % uint32(16);
const uint32 l_1951 = l_1949 + l_1950;
const bool l_1952 = l_1947 < info.scalars_uint32[0];
const bool l_1953 = l_1951 < info.scalars_uint32[1];
const bool l_1954 = l_1952 && l_1953;
if (l_1954) {
const uint32 l_1955 = l_1947 * info.scalars_uint32[1];
const uint32 l_1956 = l_1955 + l_1951;
const uint32 l_1957 = l_1061 + l_1943;
const float l_1958 = shared_memory_0[l_1957];
const float l_1959 = float(l_1958);
buffer_2[l_1956] = l_1959;
}
const uint32 l_1960 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_1961 = l_6 + l_3;
const uint32 l_1962 = l_1961 + uint32(48);
const uint32 l_1963 = l_1960 / uint32(16);
const uint32 l_1964 = l_1962 + l_1963;
const uint32 l_1965 = l_7 + l_5;
const uint32 l_1966 = l_1965 + uint32(0);
const uint32 l_1967 = l_1960 % uint32(16);
const uint32 l_1968 = l_1966 + l_1967;
const bool l_1969 = l_1964 < info.scalars_uint32[0];
const bool l_1970 = l_1968 < info.scalars_uint32[1];
const bool l_1971 = l_1969 && l_1970;
if (l_1971) {
const uint32 l_1972 = l_1964 * info.scalars_uint32[1];
const uint32 l_1973 = l_1972 + l_1968;
const uint32 l_1974 = l_1061 + l_1960;
const float l_1975 = shared_memory_0[l_1974];
const float l_1976 = float(l_1975);
buffer_2[l_1973] = l_1976;
}
const uint32 l_1977 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_1978 = l_6 + l_3;
const uint32 l_1979 = l_1978 + uint32(48);
const uint32 l_1980 = l_1977 / uint32(16);
const uint32 l_1981 = l_1979 + l_1980;
const uint32 l_1982 = l_7 + l_5;
const uint32 l_1983 = l_1982 + uint32(0);
const uint32 l_1984 = l_1977 % uint32(16);
const uint32 l_1985 = l_1983 + l_1984;
const bool l_1986 = l_1981 < info.scalars_uint32[0];
const bool l_1987 = l_1985 < info.scalars_uint32[1];
const bool l_1988 = l_1986 && l_1987;
if (l_1988) {
const uint32 l_1989 = l_1981 * info.scalars_uint32[1];
const uint32 l_1990 = l_1989 + l_1985;
const uint32 l_1991 = l_1061 + l_1977;
const float l_1992 = shared_memory_0[l_1991];
const float l_1993 = float(l_1992);
buffer_2[l_1990] = l_1993;
}
const uint32 l_1994 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_1995 = l_6 + l_3;
const uint32 l_1996 = l_1995 + uint32(48);
const uint32 l_1997 = l_1994 / uint32(16);
const uint32 l_1998 = l_1996 + l_1997;
const uint32 l_1999 = l_7 + l_5;
const uint32 l_2000 = l_1999 + uint32(0);
const uint32 l_2001 = l_1994 % uint32(16);
const uint32 l_2002 = l_2000 + l_2001;
const bool l_2003 = l_1998 < info.scalars_uint32[0];
const bool l_2004 = l_2002 < info.scalars_uint32[1];
const bool l_2005 = l_2003 && l_2004;
if (l_2005) {
const uint32 l_2006 = l_1998 * info.scalars_uint32[1];
const uint32 l_2007 = l_2006 + l_2002;
const uint32 l_2008 = l_1061 + l_1994;
const float l_2009 = shared_memory_0[l_2008];
const float l_2010 = float(l_2009);
buffer_2[l_2007] = l_2010;
}
const uint32 l_2011 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_2012 = l_6 + l_3;
const uint32 l_2013 = l_2012 + uint32(48);
const uint32 l_2014 = l_2011 / uint32(16);
const uint32 l_2015 = l_2013 + l_2014;
const uint32 l_2016 = l_7 + l_5;
const uint32 l_2017 = l_2016 + uint32(0);
const uint32 l_2018 = l_2011 % uint32(16);
const uint32 l_2019 = l_2017 + l_2018;
const bool l_2020 = l_2015 < info.scalars_uint32[0];
const bool l_2021 = l_2019 < info.scalars_uint32[1];
const bool l_2022 = l_2020 && l_2021;
if (l_2022) {
const uint32 l_2023 = l_2015 * info.scalars_uint32[1];
const uint32 l_2024 = l_2023 + l_2019;
const uint32 l_2025 = l_1061 + l_2011;
const float l_2026 = shared_memory_0[l_2025];
const float l_2027 = float(l_2026);
buffer_2[l_2024] = l_2027;
}
__syncthreads();

const uint32 l_2028 = l_1061 + uint32(256);
const uint32 l_2029 = l_2028 - l_1061;
// store
float *_tmp_31 = shared_memory_0 + l_1061;
asm volatile(
    "wmma.store.d.sync.aligned.row.m16n16k8.f32 "
    "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, 16;\n"
    :
    : "l"(_tmp_31),
      "f"(frag_acc_15[0]), "f"(frag_acc_15[1]), "f"(frag_acc_15[2]), "f"(frag_acc_15[3]), "f"(frag_acc_15[4]), "f"(frag_acc_15[5]), "f"(frag_acc_15[6]), "f"(frag_acc_15[7])
);
__syncthreads();

const uint32 l_2030 = uint32(idxGlobal) % warpSize + uint32(0);
const uint32 l_2031 = l_6 + l_3;
const uint32 l_2032 = l_2031 + uint32(48);
const uint32 l_2033 = l_2030 / uint32(16);
const uint32 l_2034 = l_2032 + l_2033;
const uint32 l_2035 = l_7 + l_5;
const uint32 l_2036 = l_2035 + uint32(16);
const uint32 l_2037 = l_2030 % uint32(16);
const uint32 l_2038 = l_2036 + l_2037;
const bool l_2039 = l_2034 < info.scalars_uint32[0];
const bool l_2040 = l_2038 < info.scalars_uint32[1];
const bool l_2041 = l_2039 && l_2040;
if (l_2041) {
const uint32 l_2042 = l_2034 * info.scalars_uint32[1];
const uint32 l_2043 = l_2042 + l_2038;
const uint32 l_2044 = l_1061 + l_2030;
const float l_2045 = shared_memory_0[l_2044];
const float l_2046 = float(l_2045);
buffer_2[l_2043] = l_2046;
}
const uint32 l_2047 = uint32(idxGlobal) % warpSize + uint32(32);
const uint32 l_2048 = l_6 + l_3;
const uint32 l_2049 = l_2048 + uint32(48);
const uint32 l_2050 = l_2047 / uint32(16);
const uint32 l_2051 = l_2049 + l_2050;
const uint32 l_2052 = l_7 + l_5;
const uint32 l_2053 = l_2052 + uint32(16);
const uint32 l_2054 = l_2047 % uint32(16);
const uint32 l_2055 = l_2053 + l_2054;
const bool l_2056 = l_2051 < info.scalars_uint32[0];
const bool l_2057 = l_2055 < info.scalars_uint32[1];
const bool l_2058 = l_2056 && l_2057;
if (l_2058) {
const uint32 l_2059 = l_2051 * info.scalars_uint32[1];
const uint32 l_2060 = l_2059 + l_2055;
const uint32 l_2061 = l_1061 + l_2047;
const float l_2062 = shared_memory_0[l_2061];
const float l_2063 = float(l_2062);
buffer_2[l_2060] = l_2063;
}
const uint32 l_2064 = uint32(idxGlobal) % warpSize + uint32(64);
const uint32 l_2065 = l_6 + l_3;
const uint32 l_2066 = l_2065 + uint32(48);
const uint32 l_2067 = l_2064 / uint32(16);
const uint32 l_2068 = l_2066 + l_2067;
const uint32 l_2069 = l_7 + l_5;
const uint32 l_2070 = l_2069 + uint32(16);
const uint32 l_2071 = l_2064 % uint32(16);
const uint32 l_2072 = l_2070 + l_2071;
const bool l_2073 = l_2068 < info.scalars_uint32[0];
const bool l_2074 = l_2072 < info.scalars_uint32[1];
const bool l_2075 = l_2073 && l_2074;
if (l_2075) {
const uint32 l_2076 = l_2068 * info.scalars_uint32[1];
const uint32 l_2077 = l_2076 + l_2072;
const uint32 l_2078 = l_1061 + l_2064;
const float l_2079 = shared_memory_0[l_2078];
const float l_2080 = float(l_2079);
buffer_2[l_2077] = l_2080;
}
const uint32 l_2081 = uint32(idxGlobal) % warpSize + uint32(96);
const uint32 l_2082 = l_6 + l_3;
const uint32 l_2083 = l_2082 + uint32(48);
const uint32 l_2084 = l_2081 / uint32(16);
const uint32 l_2085 = l_2083 + l_2084;
const uint32 l_2086 = l_7 + l_5;
const uint32 l_2087 = l_2086 + uint32(16);
const uint32 l_2088 = l_2081 % uint32(16);
const uint32 l_2089 = l_2087 + l_2088;
const bool l_2090 = l_2085 < info.scalars_uint32[0];
const bool l_2091 = l_2089 < info.scalars_uint32[1];
const bool l_2092 = l_2090 && l_2091;
if (l_2092) {
const uint32 l_2093 = l_2085 * info.scalars_uint32[1];
const uint32 l_2094 = l_2093 + l_2089;
const uint32 l_2095 = l_1061 + l_2081;
const float l_2096 = shared_memory_0[l_2095];
const float l_2097 = float(l_2096);
buffer_2[l_2094] = l_2097;
}
const uint32 l_2098 = uint32(idxGlobal) % warpSize + uint32(128);
const uint32 l_2099 = l_6 + l_3;
const uint32 l_2100 = l_2099 + uint32(48);
const uint32 l_2101 = l_2098 / uint32(16);
const uint32 l_2102 = l_2100 + l_2101;
const uint32 l_2103 = l_7 + l_5;
const uint32 l_2104 = l_2103 + uint32(16);
const uint32 l_2105 = l_2098 % uint32(16);
const uint32 l_2106 = l_2104 + l_2105;
const bool l_2107 = l_2102 < info.scalars_uint32[0];
const bool l_2108 = l_2106 < info.scalars_uint32[1];
const bool l_2109 = l_2107 && l_2108;
if (l_2109) {
const uint32 l_2110 = l_2102 * info.scalars_uint32[1];
const uint32 l_2111 = l_2110 + l_2106;
const uint32 l_2112 = l_1061 + l_2098;
const float l_2113 = shared_memory_0[l_2112];
const float l_2114 = float(l_2113);
buffer_2[l_2111] = l_2114;
}
const uint32 l_2115 = uint32(idxGlobal) % warpSize + uint32(160);
const uint32 l_2116 = l_6 + l_3;
const uint32 l_2117 = l_2116 + uint32(48);
const uint32 l_2118 = l_2115 / uint32(16);
const uint32 l_2119 = l_2117 + l_2118;
const uint32 l_2120 = l_7 + l_5;
const uint32 l_2121 = l_2120 + uint32(16);
const uint32 l_2122 = l_2115 % uint32(16);
const uint32 l_2123 = l_2121 + l_2122;
const bool l_2124 = l_2119 < info.scalars_uint32[0];
const bool l_2125 = l_2123 < info.scalars_uint32[1];
const bool l_2126 = l_2124 && l_2125;
if (l_2126) {
const uint32 l_2127 = l_2119 * info.scalars_uint32[1];
const uint32 l_2128 = l_2127 + l_2123;
const uint32 l_2129 = l_1061 + l_2115;
const float l_2130 = shared_memory_0[l_2129];
const float l_2131 = float(l_2130);
buffer_2[l_2128] = l_2131;
}
const uint32 l_2132 = uint32(idxGlobal) % warpSize + uint32(192);
const uint32 l_2133 = l_6 + l_3;
const uint32 l_2134 = l_2133 + uint32(48);
const uint32 l_2135 = l_2132 / uint32(16);
const uint32 l_2136 = l_2134 + l_2135;
const uint32 l_2137 = l_7 + l_5;
const uint32 l_2138 = l_2137 + uint32(16);
const uint32 l_2139 = l_2132 % uint32(16);
const uint32 l_2140 = l_2138 + l_2139;
const bool l_2141 = l_2136 < info.scalars_uint32[0];
const bool l_2142 = l_2140 < info.scalars_uint32[1];
const bool l_2143 = l_2141 && l_2142;
if (l_2143) {
const uint32 l_2144 = l_2136 * info.scalars_uint32[1];
const uint32 l_2145 = l_2144 + l_2140;
const uint32 l_2146 = l_1061 + l_2132;
const float l_2147 = shared_memory_0[l_2146];
const float l_2148 = float(l_2147);
buffer_2[l_2145] = l_2148;
}
const uint32 l_2149 = uint32(idxGlobal) % warpSize + uint32(224);
const uint32 l_2150 = l_6 + l_3;
const uint32 l_2151 = l_2150 + uint32(48);
const uint32 l_2152 = l_2149 / uint32(16);
const uint32 l_2153 = l_2151 + l_2152;
const uint32 l_2154 = l_7 + l_5;
const uint32 l_2155 = l_2154 + uint32(16);
const uint32 l_2156 = l_2149 % uint32(16);
const uint32 l_2157 = l_2155 + l_2156;
const bool l_2158 = l_2153 < info.scalars_uint32[0];
const bool l_2159 = l_2157 < info.scalars_uint32[1];
const bool l_2160 = l_2158 && l_2159;
if (l_2160) {
const uint32 l_2161 = l_2153 * info.scalars_uint32[1];
const uint32 l_2162 = l_2161 + l_2157;
const uint32 l_2163 = l_1061 + l_2149;
const float l_2164 = shared_memory_0[l_2163];
const float l_2165 = float(l_2164);
buffer_2[l_2162] = l_2165;
}
__syncthreads();


}
