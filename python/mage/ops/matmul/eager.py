from mage.backends.compiled import with_compiled
from mage.backends.precision import cuda_only
from mage.registry import implementation


# bf16/fp16: cuBLAS with float32 accumulation (precision_mode forbids its reduced-precision split-K).
@with_compiled
@implementation("matmul", family="eager", precisions=("tf32",), baseline=True, available=cuda_only("tf32"))
@implementation("matmul", family="eager", precisions=("ieee", "bf16", "fp16"), baseline=True)
def matmul(a, b):
    return a @ b
