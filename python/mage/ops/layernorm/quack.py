"""QuACK's LayerNorm (``quack.rmsnorm.layernorm_fwd``): a CuTe-DSL kernel, a row in registers across a
thread-block cluster where it is wide, compiled once per width and dtype. It takes bf16 and fp16 rows as they are,
but float32 weight and bias whatever x's dtype: a 16-bit contract's weight and bias are widened to float32 first
(exactly; two small launches a call, in its kernel time and span). Its float32 build takes any width (4099 and
65537 pass). Its 16-bit build copies a row in pieces of the largest size that divides it, and the CuTe DSL
refuses a 2-byte asynchronous copy ("cp_size only supports (32, 64, 128), but got 16"): odd widths are refused."""

from mage.backends.peers import QUACK, quack_widths
from mage.ops.layernorm.spec import EPS, SPEC
from mage.registry import implementation

_AVAILABLE = QUACK.available(QUACK.cuda_only)


@implementation("layernorm", family=QUACK.family, variants=("affine",), precisions=("ieee",), available=_AVAILABLE)
@implementation("layernorm", family=QUACK.family, variants=("affine",), precisions=("bf16", "fp16"),
                available=_AVAILABLE, takes=quack_widths("LayerNorm", 2, "copies a row in pieces of at least 4 bytes"))
def layernorm(x, weight, bias):
    SPEC.validate(x, weight, bias)
    return QUACK.load("rmsnorm").layernorm_fwd(x, weight.float(), bias.float(), eps=EPS)
