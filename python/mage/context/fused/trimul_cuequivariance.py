"""cuEquivariance's fused triangle multiplicative update (``cuequivariance_torch.triangle_multiplicative_update``)
as an implementation of Mage's trimul block: the peer a Boltz or AlphaFold user runs.

Its arguments, from the block's weights (cuEquivariance 0.13; mage.context.trimul for the block):

    x                            z, 1 × N × N × C
    direction                    the block's variant, outgoing or incoming;  mask None (no mask)
    norm_in_weight, _bias        the input LayerNorm's (in_weight, in_bias)
    p_in_weight (2C × C), _bias  proj_a over proj_b: its gated projection's first C channels are a, the last C b
    g_in_weight (2C × C), _bias  gate_a over gate_b
    norm_out_weight, _bias       the LayerNorm of the contraction (mid_weight, mid_bias)
    p_out_weight, _bias          proj_out, on the normalized contraction
    g_out_weight, _bias          gate_out, on the normalized input (its ``x_in``), as the block's gate
    eps                          1e-5, the layernorm op's
    precision                    TF32 at the block's tf32, IEEE at ieee; at bf16 none (the library's default,
                                 DEFAULT once TF32 is off: its dots on the bf16 operands), the pair and the weights
                                 bf16, which is what 0.13's prebuilt bf16 kernels take

so it computes σ(zₙ·G_oᵀ) ⊙ (layernorm(t)·P_oᵀ) with t the contraction of a = σ(zₙ·G_aᵀ) ⊙ (zₙ·P_aᵀ) and b
likewise, the block's own formula. The stacked input weights are made once per block and kept: a call launches
only the library's kernels.
"""

from __future__ import annotations

import weakref

import torch

from mage.backends.peers import CUEQUIVARIANCE
from mage.context.fusion import fused

EPS = 1e-5  # the layernorm op's (mage.ops.layernorm.spec)
# The block's precision -> cuEquivariance's TriMulPrecision member (None: its default).
PRECISION = {"tf32": "TF32", "ieee": "IEEE", "bf16": None}
_STACKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # block -> its (p_in, p_in bias, g_in, g_in bias)


def _stacked(block) -> tuple[torch.Tensor, ...]:
    if block not in _STACKED:
        _STACKED[block] = tuple(torch.cat([first, second]).contiguous() for first, second in (
            (block.proj_a.weight, block.proj_b.weight), (block.proj_a.bias, block.proj_b.bias),
            (block.gate_a.weight, block.gate_b.weight), (block.gate_a.bias, block.gate_b.bias)))
    return _STACKED[block]


def arguments(block, precision: str) -> dict:
    """The keyword arguments of ``triangle_multiplicative_update`` for ``block`` (all but x and precision's
    enum), named as cuEquivariance names them."""
    p_in, p_in_bias, g_in, g_in_bias = _stacked(block)
    return dict(direction=block.variant, mask=None, norm_in_weight=block.in_weight, norm_in_bias=block.in_bias,
                p_in_weight=p_in, p_in_bias=p_in_bias, g_in_weight=g_in, g_in_bias=g_in_bias,
                norm_out_weight=block.mid_weight, norm_out_bias=block.mid_bias,
                p_out_weight=block.proj_out.weight, p_out_bias=block.proj_out.bias,
                g_out_weight=block.gate_out.weight, g_out_bias=block.gate_out.bias, eps=EPS)


def _takes(block) -> str | None:
    # Its kernels tile the hidden dimension in 32s (its documented limitation).
    return None if block.c % 32 == 0 else f"cuEquivariance takes hidden sizes that are multiples of 32, not {block.c}"


@fused("trimul", family=CUEQUIVARIANCE.family, precisions=tuple(PRECISION),
       available=CUEQUIVARIANCE.available(CUEQUIVARIANCE.cuda_only), takes=_takes)
def update(block, z, precision):
    library = CUEQUIVARIANCE.load()
    member = PRECISION[precision]
    enum = None if member is None else getattr(library.TriMulPrecision, member)
    return library.triangle_multiplicative_update(z, precision=enum, **arguments(block, precision))
