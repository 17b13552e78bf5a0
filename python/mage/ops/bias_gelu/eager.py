import torch

from mage.backends.compiled import with_compiled
from mage.registry import implementation


# Two launches on purpose (the add, then the GELU): the unfused formulation a user writes.
@with_compiled
@implementation("bias_gelu", family="eager", variants=("erf",), baseline=True)
def bias_gelu(x, bias):
    return torch.nn.functional.gelu(x + bias)
