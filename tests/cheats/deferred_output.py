"""Outputs that are not plain tensors : a torch.Tensor subclass can carry work that runs
only when the output is used, after the timed window has closed. This one does no such work: the contract
must refuse the type itself, not wait to see the work deferred."""

from __future__ import annotations

import torch


class Deferred(torch.Tensor):
    """A tensor subclass, as a lazy or deferred-work wrapper would be."""


def as_subclass(honest):
    def call(*inputs):
        return honest(*inputs).as_subclass(Deferred)

    return call
