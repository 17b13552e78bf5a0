// bf16 and fp16 kernels of triangle (the lower-precision study). They live in a source of their own so that compiling them
// (NVRTC compiles a whole source at a kernel's first launch) costs nothing to the float32 kernels'
// users: native.cu is included for its templates only, without its float32 kernels.

#define NATIVE_TEMPLATES_ONLY
#include "native.cu"

// ---------------------------------------------------------------- bf16 and fp16
//
// The same tiles (8 channels a block) over 16-bit a, b and out: a VEC load takes 4 channels as
// one 8-byte load (a row's 8 channels, 16 bytes, in two), every element is widened to float32 on
// its way into shared memory, so the FFMAs and the float32 accumulation are native.cu's, and each
// output is rounded once on the store. VEC needs C % 4 == 0 and 16-byte aligned a and b.

#ifndef __CUDA_ARCH__
struct __align__(8) uint2 {
    unsigned x, y;
};
#endif

// WIDTH (4 or 1) elements of a 16-bit type from base[at] on, widened, or zeros where `ok` is false.
template <int WIDTH, typename H>
__device__ __forceinline__ void load_or_zero(float (&dst)[WIDTH], const H* base, long long at, bool ok) {
    if constexpr (WIDTH == 4) {
        uint2 q = {0u, 0u};
        if (ok) q = *reinterpret_cast<const uint2*>(base + at);
        dst[0] = to_float(H{static_cast<unsigned short>(q.x & 0xffffu)});
        dst[1] = to_float(H{static_cast<unsigned short>(q.x >> 16)});
        dst[2] = to_float(H{static_cast<unsigned short>(q.y & 0xffffu)});
        dst[3] = to_float(H{static_cast<unsigned short>(q.y >> 16)});
    } else {
        dst[0] = ok ? to_float(base[at]) : 0.0f;
    }
}

#define TRIANGLE_16(TAG, H)                                                                                       \
    TRIANGLE_KERNEL_OF(triangle_outgoing_##TAG##_t64_x4, H, 64, 8, true, true, 1)                                \
    TRIANGLE_KERNEL_OF(triangle_outgoing_##TAG##_t64, H, 64, 8, true, false, 1)                                  \
    TRIANGLE_KERNEL_OF(triangle_outgoing_##TAG##_t32_x4, H, 32, 8, true, true, 2)                                \
    TRIANGLE_KERNEL_OF(triangle_outgoing_##TAG##_t32, H, 32, 8, true, false, 2)                                  \
    TRIANGLE_KERNEL_OF(triangle_incoming_##TAG##_t64_x4, H, 64, 8, false, true, 1)                               \
    TRIANGLE_KERNEL_OF(triangle_incoming_##TAG##_t64, H, 64, 8, false, false, 1)                                 \
    TRIANGLE_KERNEL_OF(triangle_incoming_##TAG##_t32_x4, H, 32, 8, false, true, 2)                               \
    TRIANGLE_KERNEL_OF(triangle_incoming_##TAG##_t32, H, 32, 8, false, false, 2)

TRIANGLE_16(bf16, bf16)
TRIANGLE_16(f16, f16)
