"""Liger-Kernel's LayerNorm (``LigerLayerNormFunction``, what ``LigerLayerNorm`` calls): a Triton kernel holding
a row in one block, statistics in float32, rows of at most 65,536 columns."""

from mage.backends.peers import LIGER, liger_takes
from mage.backends.triton import triton_available
from mage.ops.layernorm.spec import EPS, SPEC
from mage.registry import implementation


def liger_device(device: str) -> str | None:
    if device == "cpu":
        return ("Liger's layernorm kernel calls .to() on its eps argument, which Triton's CPU interpreter passes "
                "as a plain Python float")
    return triton_available(device)


@implementation("layernorm", family=LIGER.family, variants=("affine",), precisions=("ieee", "bf16", "fp16"),
                available=LIGER.available(liger_device), takes=liger_takes)
def layernorm(x, weight, bias):
    SPEC.validate(x, weight, bias)
    return LIGER.load("ops.layer_norm").LigerLayerNormFunction.apply(x, weight, bias, EPS)
