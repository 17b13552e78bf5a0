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
    uint32 scalars_uint32[2];uint32 static_meta[6];
};


extern "C" __global__ void __launch_bounds__(256)bias_gelu_kernel_x4 (
    const float_4* __restrict__ buffer_0, const float_4* __restrict__ buffer_1, float_4* buffer_2, const __grid_constant__ info_st info
) {
float l_mut_21;
float_4 l_mut_13;
float_4 l_mut_14;
uint32 l_mut_5;
const uint32 l_0 = info.scalars_uint32[1] / uint32(4);
const uint32 l_1 = blockIdx.x * blockDim.x;
const uint32 l_2 = l_1 + threadIdx.x;
const bool l_3 = l_2 < l_0;
if (l_3) {
const float_4 l_4 = buffer_1[l_2];
l_mut_5 = blockIdx.y;
while (true) {
const bool l_6 = l_mut_5 < info.scalars_uint32[0];
const bool l_7 = !l_6;
if (l_7) {
break;}
const uint32 l_8 = l_mut_5 * l_0;
const uint32 l_9 = l_8 + l_2;
const float_4 l_10 = buffer_0[l_9];
const float_4 l_11 = float_4{
l_10.i_0 + l_4.i_0, l_10.i_1 + l_4.i_1, l_10.i_2 + l_4.i_2, l_10.i_3 + l_4.i_3, };
const float_4 l_12 = float_4{
float(0.0),float(0.0),float(0.0),float(0.0),};
l_mut_13 = l_12;
l_mut_14 = l_mut_13;
const float l_15 = l_11.i_0;
const float l_16 = float(0.5) * l_15;
const float l_17 = l_15 * float(0.7071067690849304);
const float l_18 = abs(l_17);
const float l_19 = l_17 * l_17;
const float l_20 = fma(float(-1.728534698486328e-5), l_18, float(0.0003831971262115985));
l_mut_21 = l_20;
const float l_22 = fma(float(-0.003883964382112026), l_18, float(0.02425462193787098));
const float l_23 = fma(l_mut_21, l_19, l_22);
l_mut_21 = l_23;
const float l_24 = fma(l_mut_21, l_18, float(-0.10677787661552429));
l_mut_21 = l_24;
const float l_25 = fma(l_mut_21, l_18, float(-0.6348466873168945));
l_mut_21 = l_25;
const float l_26 = fma(l_mut_21, l_18, float(-0.12871751189231873));
l_mut_21 = l_26;
const float l_27 = -l_18;
const float l_28 = fma(l_mut_21, l_18, l_27);
l_mut_21 = l_28;
const float l_29 = exp(l_mut_21);
const bool l_30 = l_17 < float(0.0);
const float l_31 = float(2.0) - l_29;
const float l_32 = (l_30) ? l_29 : l_31;
const float l_33 = fma(float(-0.0005967617034912109), l_19, float(0.004991194233298302));
l_mut_21 = l_33;
const float l_34 = fma(l_mut_21, l_19, float(-0.026768134906888008));
l_mut_21 = l_34;
const float l_35 = fma(l_mut_21, l_19, float(0.11281992495059967));
l_mut_21 = l_35;
const float l_36 = fma(l_mut_21, l_19, float(-0.3761253356933594));
l_mut_21 = l_36;
const float l_37 = fma(l_mut_21, l_19, float(0.12837916612625122));
l_mut_21 = l_37;
const float l_38 = fma(l_mut_21, l_17, l_17);
const float l_39 = float(1.0) + l_38;
const bool l_40 = l_18 > float(0.927734375);
const float l_41 = (l_40) ? l_32 : l_39;
const float l_42 = l_16 * l_41;
l_mut_14.i_0 = l_42;
const float l_43 = l_11.i_1;
const float l_44 = float(0.5) * l_43;
const float l_45 = l_43 * float(0.7071067690849304);
const float l_46 = abs(l_45);
const float l_47 = l_45 * l_45;
const float l_48 = fma(float(-1.728534698486328e-5), l_46, float(0.0003831971262115985));
l_mut_21 = l_48;
const float l_49 = fma(float(-0.003883964382112026), l_46, float(0.02425462193787098));
const float l_50 = fma(l_mut_21, l_47, l_49);
l_mut_21 = l_50;
const float l_51 = fma(l_mut_21, l_46, float(-0.10677787661552429));
l_mut_21 = l_51;
const float l_52 = fma(l_mut_21, l_46, float(-0.6348466873168945));
l_mut_21 = l_52;
const float l_53 = fma(l_mut_21, l_46, float(-0.12871751189231873));
l_mut_21 = l_53;
const float l_54 = -l_46;
const float l_55 = fma(l_mut_21, l_46, l_54);
l_mut_21 = l_55;
const float l_56 = exp(l_mut_21);
const bool l_57 = l_45 < float(0.0);
const float l_58 = float(2.0) - l_56;
const float l_59 = (l_57) ? l_56 : l_58;
const float l_60 = fma(float(-0.0005967617034912109), l_47, float(0.004991194233298302));
l_mut_21 = l_60;
const float l_61 = fma(l_mut_21, l_47, float(-0.026768134906888008));
l_mut_21 = l_61;
const float l_62 = fma(l_mut_21, l_47, float(0.11281992495059967));
l_mut_21 = l_62;
const float l_63 = fma(l_mut_21, l_47, float(-0.3761253356933594));
l_mut_21 = l_63;
const float l_64 = fma(l_mut_21, l_47, float(0.12837916612625122));
l_mut_21 = l_64;
const float l_65 = fma(l_mut_21, l_45, l_45);
const float l_66 = float(1.0) + l_65;
const bool l_67 = l_46 > float(0.927734375);
const float l_68 = (l_67) ? l_59 : l_66;
const float l_69 = l_44 * l_68;
l_mut_14.i_1 = l_69;
const float l_70 = l_11.i_2;
const float l_71 = float(0.5) * l_70;
const float l_72 = l_70 * float(0.7071067690849304);
const float l_73 = abs(l_72);
const float l_74 = l_72 * l_72;
const float l_75 = fma(float(-1.728534698486328e-5), l_73, float(0.0003831971262115985));
l_mut_21 = l_75;
const float l_76 = fma(float(-0.003883964382112026), l_73, float(0.02425462193787098));
const float l_77 = fma(l_mut_21, l_74, l_76);
l_mut_21 = l_77;
const float l_78 = fma(l_mut_21, l_73, float(-0.10677787661552429));
l_mut_21 = l_78;
const float l_79 = fma(l_mut_21, l_73, float(-0.6348466873168945));
l_mut_21 = l_79;
const float l_80 = fma(l_mut_21, l_73, float(-0.12871751189231873));
l_mut_21 = l_80;
const float l_81 = -l_73;
const float l_82 = fma(l_mut_21, l_73, l_81);
l_mut_21 = l_82;
const float l_83 = exp(l_mut_21);
const bool l_84 = l_72 < float(0.0);
const float l_85 = float(2.0) - l_83;
const float l_86 = (l_84) ? l_83 : l_85;
const float l_87 = fma(float(-0.0005967617034912109), l_74, float(0.004991194233298302));
l_mut_21 = l_87;
const float l_88 = fma(l_mut_21, l_74, float(-0.026768134906888008));
l_mut_21 = l_88;
const float l_89 = fma(l_mut_21, l_74, float(0.11281992495059967));
l_mut_21 = l_89;
const float l_90 = fma(l_mut_21, l_74, float(-0.3761253356933594));
l_mut_21 = l_90;
const float l_91 = fma(l_mut_21, l_74, float(0.12837916612625122));
l_mut_21 = l_91;
const float l_92 = fma(l_mut_21, l_72, l_72);
const float l_93 = float(1.0) + l_92;
const bool l_94 = l_73 > float(0.927734375);
const float l_95 = (l_94) ? l_86 : l_93;
const float l_96 = l_71 * l_95;
l_mut_14.i_2 = l_96;
const float l_97 = l_11.i_3;
const float l_98 = float(0.5) * l_97;
const float l_99 = l_97 * float(0.7071067690849304);
const float l_100 = abs(l_99);
const float l_101 = l_99 * l_99;
const float l_102 = fma(float(-1.728534698486328e-5), l_100, float(0.0003831971262115985));
l_mut_21 = l_102;
const float l_103 = fma(float(-0.003883964382112026), l_100, float(0.02425462193787098));
const float l_104 = fma(l_mut_21, l_101, l_103);
l_mut_21 = l_104;
const float l_105 = fma(l_mut_21, l_100, float(-0.10677787661552429));
l_mut_21 = l_105;
const float l_106 = fma(l_mut_21, l_100, float(-0.6348466873168945));
l_mut_21 = l_106;
const float l_107 = fma(l_mut_21, l_100, float(-0.12871751189231873));
l_mut_21 = l_107;
const float l_108 = -l_100;
const float l_109 = fma(l_mut_21, l_100, l_108);
l_mut_21 = l_109;
const float l_110 = exp(l_mut_21);
const bool l_111 = l_99 < float(0.0);
const float l_112 = float(2.0) - l_110;
const float l_113 = (l_111) ? l_110 : l_112;
const float l_114 = fma(float(-0.0005967617034912109), l_101, float(0.004991194233298302));
l_mut_21 = l_114;
const float l_115 = fma(l_mut_21, l_101, float(-0.026768134906888008));
l_mut_21 = l_115;
const float l_116 = fma(l_mut_21, l_101, float(0.11281992495059967));
l_mut_21 = l_116;
const float l_117 = fma(l_mut_21, l_101, float(-0.3761253356933594));
l_mut_21 = l_117;
const float l_118 = fma(l_mut_21, l_101, float(0.12837916612625122));
l_mut_21 = l_118;
const float l_119 = fma(l_mut_21, l_99, l_99);
const float l_120 = float(1.0) + l_119;
const bool l_121 = l_100 > float(0.927734375);
const float l_122 = (l_121) ? l_113 : l_120;
const float l_123 = l_98 * l_122;
l_mut_14.i_3 = l_123;
buffer_2[l_9] = l_mut_14;
l_mut_5 = l_mut_5 + gridDim.y;
}
}

}
