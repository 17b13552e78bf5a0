"""Turns NaN and infinities into numbers (``torch.nan_to_num`` of its output): right on every finite input, so
that the non-finite contract alone catches it, as it catches a kernel whose guard swallows a NaN."""

import torch


def cheat(compute):
    def numbers_only(*inputs):
        return torch.nan_to_num(compute(*inputs))

    return numbers_only
