// bf16 and fp16 kernels of softmax (the lower-precision study). They live in a source of their own so that compiling
// them (NVRTC compiles a whole source at a kernel's first launch) costs nothing to the float32 kernels' users:
// native.cu is included for its templates only, without its float32 kernels.
//
// native.cu's register and online kernels over 16-bit x and out: each element is widened to float32 as it is
// loaded, so the max, Σ exp and the division are float32 exactly as there, and each output is rounded once on
// the store. The same widths a kernel as for float32, so the same plan by width. The cluster and slice
// strategies hold a row's 16-byte chunks (8 elements each) in registers as loaded, read once, with plans of
// their own (8 chunks a thread).

#define NATIVE_TEMPLATES_ONLY
#include "native.cu"

SOFTMAX_KERNELS(bf16, bf16)
SOFTMAX_KERNELS(f16, f16)
SOFTMAX_SIXTEEN_BIT_ROW_STRATEGIES(bf16, bf16)
SOFTMAX_SIXTEEN_BIT_ROW_STRATEGIES(f16, f16)

// The deep strategy over 16-bit rows: native_cluster.cuh's SIXTEEN_BIT_DEEP_PLANS.
#define SOFTMAX_BF16_DEEP(K, THREADS, V, CTAS) SOFTMAX_DEEP(bf16, bf16, K, THREADS, V, CTAS)
#define SOFTMAX_F16_DEEP(K, THREADS, V, CTAS) SOFTMAX_DEEP(f16, f16, K, THREADS, V, CTAS)
SIXTEEN_BIT_DEEP_PLANS(SOFTMAX_BF16_DEEP)
SIXTEEN_BIT_DEEP_PLANS(SOFTMAX_F16_DEEP)

// The pipe strategy over 16-bit rows: native_cluster.cuh's SIXTEEN_BIT_PIPE_PLANS, 16-byte chunks of 8 elements.
#define SOFTMAX_BF16_PIPE(K, THREADS, V, CTAS) SOFTMAX_PIPE(bf16, bf16, K, THREADS, V, CTAS)
#define SOFTMAX_F16_PIPE(K, THREADS, V, CTAS) SOFTMAX_PIPE(f16, f16, K, THREADS, V, CTAS)
SIXTEEN_BIT_PIPE_PLANS(SOFTMAX_BF16_PIPE)
SIXTEEN_BIT_PIPE_PLANS(SOFTMAX_F16_PIPE)
