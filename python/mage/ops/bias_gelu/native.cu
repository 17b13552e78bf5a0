// Bias add and exact GELU, float32 (see spec.py):
//     out[r, c] = gelu(x[r, c] + bias[c]),   gelu(z) = ½ · z · (1 + erf(z / √2))
//
// Memory-bound: each element is read once and written once, in one launch. A thread owns one
// column group (four columns as a float4 in the vector kernel, one column in the scalar one),
// keeps its bias in registers, and walks rows ROWS at a time, loading all ROWS before computing
// any so that several loads are in flight per thread. erff is the accurate one (no fast math).

#define BIAS_GELU_ROWS 4

__device__ __forceinline__ float gelu_erf(float z) {
    return 0.5f * z * (1.0f + erff(z * 0.70710678118654752440f));
}

// gelu(v + b) of one float, or of each lane of a float4.
__device__ __forceinline__ float bias_gelu(float v, float b) { return gelu_erf(v + b); }
__device__ __forceinline__ float4 bias_gelu(float4 v, float4 b) {
    return make_float4(gelu_erf(v.x + b.x), gelu_erf(v.y + b.y), gelu_erf(v.z + b.z), gelu_erf(v.w + b.w));
}

// The rows of this block's y index for column group `g` of a row's `groups`: T is float (one
// column) or float4 (four). Loads all ROWS of a step before computing any.
template <typename T>
__device__ __forceinline__ void bias_gelu_rows(const T* x, T b, T* out, long long rows, int groups, int g) {
    for (long long r0 = (long long)blockIdx.y * BIAS_GELU_ROWS; r0 < rows; r0 += (long long)gridDim.y * BIAS_GELU_ROWS) {
        T v[BIAS_GELU_ROWS];
#pragma unroll
        for (int i = 0; i < BIAS_GELU_ROWS; ++i)
            if (r0 + i < rows) v[i] = x[(r0 + i) * groups + g];
#pragma unroll
        for (int i = 0; i < BIAS_GELU_ROWS; ++i)
            if (r0 + i < rows) out[(r0 + i) * groups + g] = bias_gelu(v[i], b);
    }
}

#ifndef NATIVE_TEMPLATES_ONLY  // native16.cu includes this file for its templates only
// x, out: rows × cols, contiguous; cols % 4 == 0 and x, bias, out 16-byte aligned.
// grid: (ceil(cols / 4 / blockDim.x), min(ceil(rows / ROWS), 65535)); block: (256).
extern "C" __global__ void __launch_bounds__(256) bias_gelu_f32_x4(
    const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out, long long rows, int cols) {
    const int groups = cols >> 2;
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    bias_gelu_rows(reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(bias)[g],
                   reinterpret_cast<float4*>(out), rows, groups, g);
}

// Any cols and alignment. grid: (ceil(cols / blockDim.x), min(ceil(rows / ROWS), 65535)); block: (256).
extern "C" __global__ void __launch_bounds__(256) bias_gelu_f32(
    const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out, long long rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    bias_gelu_rows(x, bias[c], out, rows, cols, c);
}
#endif
