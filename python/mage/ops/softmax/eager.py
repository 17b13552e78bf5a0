import torch

from mage.backends.compiled import with_compiled
from mage.registry import implementation


@with_compiled
@implementation("softmax", family="eager", variants=("rows",), precisions=("ieee", "bf16", "fp16"), baseline=True)
def softmax(x):
    return torch.softmax(x, dim=-1)
