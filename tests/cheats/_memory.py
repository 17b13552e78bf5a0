"""What the cheats share: answering from a memory of earlier answers."""

from __future__ import annotations

from typing import Callable

import torch


def remembering(compute: Callable, key: Callable[[torch.Tensor], object]) -> Callable:
    """``compute``, answering inputs whose ``key``s it has seen with a copy of its earlier answer (a new
    tensor each call, so it is not caught returning one tensor twice).

    The memory holds the inputs it answered as well: a key made of an address then names one tensor for
    the memory's life, where a freed input's address handed to a new one would answer it a stale product.
    """
    answers: dict = {}

    def call(*inputs):
        seen = tuple(key(t) for t in inputs)
        if seen not in answers:
            answers[seen] = (compute(*inputs), inputs)
        return answers[seen][0].clone()

    return call
