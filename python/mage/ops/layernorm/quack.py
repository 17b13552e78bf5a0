"""QuACK's LayerNorm (``quack.rmsnorm.layernorm_fwd``): a CuTe-DSL kernel, a row in registers across a
thread-block cluster where it is wide, compiled once per width and dtype. It takes bf16 and fp16 rows as they are,
but float32 weight and bias whatever x's dtype: a 16-bit contract's weight and bias are widened to float32 first
(exactly; two small launches a call, in its kernel time and span)."""

from mage.backends.peers import QUACK
from mage.ops.layernorm.spec import EPS, SPEC
from mage.registry import implementation


@implementation("layernorm", family=QUACK.family, variants=("affine",), precisions=("ieee", "bf16", "fp16"),
                available=QUACK.available(QUACK.cuda_only))
def layernorm(x, weight, bias):
    SPEC.validate(x, weight, bias)
    return QUACK.load("rmsnorm").layernorm_fwd(x, weight.float(), bias.float(), eps=EPS)
