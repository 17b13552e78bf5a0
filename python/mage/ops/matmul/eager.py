from mage.backends.compiled import with_compiled
from mage.backends.precision import cuda_only
from mage.registry import implementation


@with_compiled
@implementation("matmul", family="eager", precisions=("tf32",), baseline=True, available=cuda_only("tf32"))
@implementation("matmul", family="eager", precisions=("ieee",), baseline=True)
def matmul(a, b):
    return a @ b
