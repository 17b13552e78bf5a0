import torch

from mage.backends.compiled import with_compiled
from mage.backends.precision import cuda_only
from mage.registry import implementation

# bf16/fp16: einsum's batched product of the 16-bit tensors, accumulated in float32 (precision_mode).
EQUATIONS = {"outgoing": "bikc,bjkc->bijc", "incoming": "bkic,bkjc->bijc"}


@with_compiled
@implementation(
    "triangle", family="eager", variants=("outgoing", "incoming"), precisions=("tf32",), baseline=True,
    available=cuda_only("tf32"),
)
@implementation("triangle", family="eager", variants=("outgoing", "incoming"), precisions=("ieee", "bf16", "fp16"),
                baseline=True)
def triangle(a, b, variant):
    return torch.einsum(EQUATIONS[variant], a, b)
