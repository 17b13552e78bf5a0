"""QuACK's softmax (``quack.softmax.softmax_fwd``): a CuTe-DSL kernel, a row in registers across a thread-block
cluster where it is wide (online statistics, one read), compiled once per width and dtype, loading 16 bytes at a
time. It takes bf16 and fp16 rows as they are and returns their dtype."""

from mage.backends.peers import QUACK
from mage.ops.softmax.spec import SPEC
from mage.registry import implementation

VECTOR_BYTES = 16  # its loads


def vector_widths(element_bytes: int):
    """Case rule at one element size: the width must divide into whole 16-byte vectors."""
    elements = VECTOR_BYTES // element_bytes

    def rule(params: dict) -> str | None:
        if params["cols"] % elements:
            return (f"QuACK's softmax loads a row {elements} elements at a time and asserts that the width divides "
                    f"by it; {params['cols']} columns do not")
        return None

    return rule


@implementation("softmax", family=QUACK.family, variants=("rows",), precisions=("ieee",),
                available=QUACK.available(QUACK.cuda_only), takes=vector_widths(4))
@implementation("softmax", family=QUACK.family, variants=("rows",), precisions=("bf16", "fp16"),
                available=QUACK.available(QUACK.cuda_only), takes=vector_widths(2))
def softmax(x):
    SPEC.validate(x)
    return QUACK.load("softmax").softmax_fwd(x)
