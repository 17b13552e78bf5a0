"""Answers from a cache of products: a 2.1 µs matmul against a 42 µs compute floor.

It keys each answer by the inputs' values (a checksum), so every input it has not seen is computed
honestly and every answer is right, even when the timed inputs are rewritten in place between samples
from a few prepared sets. A repeated input costs a checksum and a copy: a time below the compute floor
of the product in every cache state, which only the compute floor can show.
"""

from __future__ import annotations

from typing import Callable

from ._memory import remembering


def cheat(compute: Callable) -> Callable:
    return remembering(compute, key=lambda t: (t.data_ptr(), tuple(t.shape), float(t.sum())))
