import torch

from mage.backends.compiled import with_compiled
from mage.ops.layernorm.spec import EPS
from mage.registry import implementation


@with_compiled
@implementation("layernorm", family="eager", variants=("affine",), precisions=("ieee", "bf16", "fp16"), baseline=True)
def layernorm(x, weight, bias):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps=EPS)
