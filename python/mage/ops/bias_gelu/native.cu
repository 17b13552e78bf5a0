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

// x, out: rows × cols, contiguous; cols % 4 == 0 and x, bias, out 16-byte aligned.
// grid: (ceil(cols / 4 / blockDim.x), min(ceil(rows / ROWS), 65535)); block: (256).
extern "C" __global__ void __launch_bounds__(256) bias_gelu_f32_x4(
    const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out, long long rows, int cols) {
    const int groups = cols >> 2;
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups) return;
    const float4 b = reinterpret_cast<const float4*>(bias)[g];
    const float4* xv = reinterpret_cast<const float4*>(x);
    float4* ov = reinterpret_cast<float4*>(out);
    for (long long r0 = (long long)blockIdx.y * BIAS_GELU_ROWS; r0 < rows; r0 += (long long)gridDim.y * BIAS_GELU_ROWS) {
        float4 v[BIAS_GELU_ROWS];
#pragma unroll
        for (int i = 0; i < BIAS_GELU_ROWS; ++i)
            if (r0 + i < rows) v[i] = xv[(r0 + i) * groups + g];
#pragma unroll
        for (int i = 0; i < BIAS_GELU_ROWS; ++i)
            if (r0 + i < rows)
                ov[(r0 + i) * groups + g] = make_float4(gelu_erf(v[i].x + b.x), gelu_erf(v[i].y + b.y),
                                                        gelu_erf(v[i].z + b.z), gelu_erf(v[i].w + b.w));
    }
}

// Any cols and alignment. grid: (ceil(cols / blockDim.x), min(ceil(rows / ROWS), 65535)); block: (256).
extern "C" __global__ void __launch_bounds__(256) bias_gelu_f32(
    const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out, long long rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const float b = bias[c];
    for (long long r0 = (long long)blockIdx.y * BIAS_GELU_ROWS; r0 < rows; r0 += (long long)gridDim.y * BIAS_GELU_ROWS) {
        float v[BIAS_GELU_ROWS];
#pragma unroll
        for (int i = 0; i < BIAS_GELU_ROWS; ++i)
            if (r0 + i < rows) v[i] = x[(r0 + i) * cols + c];
#pragma unroll
        for (int i = 0; i < BIAS_GELU_ROWS; ++i)
            if (r0 + i < rows) out[(r0 + i) * cols + c] = gelu_erf(v[i] + b);
    }
}
