"""Liger-Kernel's softmax (``LigerSoftmaxFunction``): a Triton kernel holding a row in one block of at most
65,536 elements, read once. It takes bf16 and fp16 rows as they are and returns their dtype; compiled, Triton's
``tl.max`` widens a 16-bit row to float32, so its max, exp and sum are float32 and the output is rounded once."""

from mage.backends.peers import LIGER, liger_takes
from mage.backends.triton import triton_available
from mage.ops.softmax.spec import SPEC
from mage.registry import implementation


@implementation("softmax", family=LIGER.family, variants=("rows",), precisions=("ieee", "bf16", "fp16"),
                available=LIGER.available(triton_available), takes=liger_takes)
def softmax(x):
    SPEC.validate(x)
    return LIGER.load("ops.softmax").LigerSoftmaxFunction.apply(x)
