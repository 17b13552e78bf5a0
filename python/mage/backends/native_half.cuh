// 16-bit floating-point storage for the native kernels' bf16 and fp16 implementations: the element
// types, their conversions to and from float32 (all arithmetic is float32; a value is rounded once,
// to nearest even, when it is stored), and 16-byte vectors of 8 elements. An op's native.cu includes
// this file by its relative path, like native_tiles.cuh.
//
// NVRTC is given no include path (the extension compiles one pasted-in source), so cuda_bf16.h and
// cuda_fp16.h are not reachable: the conversions are the PTX cvt instructions on the GPU, and exact
// bit arithmetic (bf16) or the compiler's _Float16 (fp16) in the CPU emulation of the tests.
// Guarded: an op's native16.cu includes it, and native.cu, which native16.cu includes, may too.

#ifndef MAGE_NATIVE_HALF_CUH
#define MAGE_NATIVE_HALF_CUH

struct __align__(2) bf16 {
    unsigned short bits;
};
struct __align__(2) f16 {
    unsigned short bits;
};

#ifndef __CUDA_ARCH__
struct __align__(16) uint4 {
    unsigned x, y, z, w;
};
__device__ __forceinline__ uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
#endif

__device__ __forceinline__ float to_float(float v) { return v; }

__device__ __forceinline__ float to_float(bf16 h) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(static_cast<unsigned>(h.bits) << 16);
#else
    return __builtin_bit_cast(float, static_cast<unsigned>(h.bits) << 16);
#endif
}

__device__ __forceinline__ float to_float(f16 h) {
#ifdef __CUDA_ARCH__
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
#else
    return static_cast<float>(__builtin_bit_cast(_Float16, h.bits));
#endif
}

// float → T, rounded to nearest even. T is float, bf16 or f16.
template <typename T>
__device__ __forceinline__ T from_float(float v);

template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }

template <>
__device__ __forceinline__ bf16 from_float<bf16>(float v) {
    bf16 h;
#ifdef __CUDA_ARCH__
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(v));
#else
    const unsigned u = __builtin_bit_cast(unsigned, v);
    const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
    h.bits = nan ? 0x7fc0 : static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
    return h;
}

template <>
__device__ __forceinline__ f16 from_float<f16>(float v) {
    f16 h;
#ifdef __CUDA_ARCH__
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(v));
#else
    h.bits = __builtin_bit_cast(unsigned short, static_cast<_Float16>(v));
#endif
    return h;
}

// Two 16-bit elements in one 32-bit word, the first in the low half (memory order, little-endian).
__device__ __forceinline__ unsigned pack2(unsigned short lo, unsigned short hi) {
    return static_cast<unsigned>(lo) | (static_cast<unsigned>(hi) << 16);
}

// 8 elements of a 16-bit type H as one 16-byte vector (one 128-bit load or store; 16-byte aligned).
template <typename H>
struct __align__(16) Half8 {
    uint4 q;
};

template <typename H>
__device__ __forceinline__ void unpack8(Half8<H> p, float (&v)[8]) {
    const unsigned w[4] = {p.q.x, p.q.y, p.q.z, p.q.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        v[2 * i] = to_float(H{static_cast<unsigned short>(w[i] & 0xffffu)});
        v[2 * i + 1] = to_float(H{static_cast<unsigned short>(w[i] >> 16)});
    }
}

template <typename H>
__device__ __forceinline__ Half8<H> pack8(const float (&v)[8]) {
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = pack2(from_float<H>(v[2 * i]).bits, from_float<H>(v[2 * i + 1]).bits);
    Half8<H> p;
    p.q.x = w[0]; p.q.y = w[1]; p.q.z = w[2]; p.q.w = w[3];
    return p;
}

// Element k (0 or 1) of a pair of 16-bit values packed in one 32-bit word, widened.
template <typename H>
__device__ __forceinline__ float half_of(unsigned word, int k) {
    return to_float(H{static_cast<unsigned short>(k ? word >> 16 : word & 0xffffu)});
}

// Where a kernel reads what stays fixed for its life (weight, bias) from: global memory through the read-only
// path, or shared memory, where a persistent kernel holds its columns' share once (ld.global.nc cannot read it).
enum class From { global, shared };

template <From F>
__device__ __forceinline__ uint4 load_words(const uint4* p) {
    if constexpr (F == From::shared) return *p;
    else return __ldg(p);
}

template <From F>
__device__ __forceinline__ unsigned short load_bits(const unsigned short* p) {
    if constexpr (F == From::shared) return *p;
    else return __ldg(p);
}

// 8 elements at p, read-only for the kernel's life (weight, bias): one 16-byte load where `vector` (p 16-byte
// aligned), else eight scalar loads. From global memory through the read-only path (__ldg) by name: a kernel that
// also reads them shifted (load_half8_shifted) lost the compiler's inference of it on every other load of them.
template <From F = From::global, typename H>
__device__ __forceinline__ Half8<H> load_half8(const H* p, bool vector) {
    Half8<H> h;
    if (vector) {
        h.q = load_words<F>(reinterpret_cast<const uint4*>(p));
        return h;
    }
    const unsigned short* e = reinterpret_cast<const unsigned short*>(p);
    h.q = make_uint4(pack2(load_bits<F>(e), load_bits<F>(e + 1)), pack2(load_bits<F>(e + 2), load_bits<F>(e + 3)),
                     pack2(load_bits<F>(e + 4), load_bits<F>(e + 5)), pack2(load_bits<F>(e + 6), load_bits<F>(e + 7)));
    return h;
}

// 8 read-only elements at p, which starts SHIFT 2-byte elements (1 … 7) past a 16-byte boundary: the two 16-byte
// blocks that hold them, their words shifted down by SHIFT elements (two loads where load_half8 would make eight
// scalar ones). Each block holds an element of the eight, so neither reaches past the array's 16-byte blocks.
template <int SHIFT, From F = From::global, typename H>
__device__ __forceinline__ Half8<H> load_half8_shifted(const H* p) {
    static_assert(SHIFT > 0 && SHIFT < 8, "a shift within one 16-byte block, past its boundary");
    const uint4* blocks = reinterpret_cast<const uint4*>(p - SHIFT);
    const uint4 lo = load_words<F>(blocks), hi = load_words<F>(blocks + 1);
    const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    constexpr int word = SHIFT / 2;
    unsigned r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) r[k] = SHIFT % 2 ? (w[word + k] >> 16) | (w[word + k + 1] << 16) : w[word + k];
    Half8<H> h;
    h.q = make_uint4(r[0], r[1], r[2], r[3]);
    return h;
}

#endif  // MAGE_NATIVE_HALF_CUH
