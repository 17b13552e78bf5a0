import torch

from mage.backends.compiled import with_compiled
from mage.registry import implementation


# Two launches on purpose (the add, then the GELU): the unfused formulation a user writes. At bf16 and
# fp16 the sum is rounded to that dtype before the GELU, as a user's would be.
@with_compiled
@implementation("bias_gelu", family="eager", variants=("erf",), precisions=("ieee", "bf16", "fp16"), baseline=True)
def bias_gelu(x, bias):
    return torch.nn.functional.gelu(x + bias)
