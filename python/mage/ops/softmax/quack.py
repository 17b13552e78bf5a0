"""QuACK's softmax (``quack.softmax.softmax_fwd``): a CuTe-DSL kernel, a row in registers across a thread-block
cluster where it is wide (online statistics, one read), compiled once per width, loading 16 bytes at a time."""

from mage.backends.peers import QUACK
from mage.ops.softmax.spec import SPEC
from mage.registry import implementation

VECTOR_FLOATS = 4  # its 16-byte loads of float32


def vector_widths(params: dict) -> str | None:
    if params["cols"] % VECTOR_FLOATS:
        return (f"QuACK's softmax loads a row {VECTOR_FLOATS} floats at a time and asserts that the width divides "
                f"by it; {params['cols']} columns do not")
    return None


@implementation("softmax", family=QUACK.family, variants=("rows",), available=QUACK.available(QUACK.cuda_only),
                takes=vector_widths)
def softmax(x):
    SPEC.validate(x)
    return QUACK.load("softmax").softmax_fwd(x)
