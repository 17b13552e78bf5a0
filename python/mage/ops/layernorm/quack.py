"""QuACK's LayerNorm (``quack.rmsnorm.layernorm_fwd``): a CuTe-DSL kernel, a row in registers across a
thread-block cluster where it is wide, compiled once per width. It takes float32 weight and bias whatever x's
dtype, so it is registered at ieee alone: Mage's bf16 and fp16 contracts hand it 16-bit weights."""

from mage.backends.peers import QUACK
from mage.ops.layernorm.spec import EPS, SPEC
from mage.registry import implementation


@implementation("layernorm", family=QUACK.family, variants=("affine",), available=QUACK.available(QUACK.cuda_only))
def layernorm(x, weight, bias):
    SPEC.validate(x, weight, bias)
    return QUACK.load("rmsnorm").layernorm_fwd(x, weight, bias, eps=EPS)
