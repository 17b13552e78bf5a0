"""torch.compile of each op's eager formulation, registered as implementations of their own."""

from __future__ import annotations

import torch

from mage import registry

MODES = {"compile-default": "default", "compile-max-autotune": "max-autotune-no-cudagraphs"}


def _compiled(eager_fn, mode: str):
    compiled = None

    def call(*inputs):
        nonlocal compiled
        if compiled is None:
            compiled = torch.compile(eager_fn, mode=mode, dynamic=False)
        return compiled(*inputs)

    return call


def _availability(eager: registry.Implementation, backend: str):
    def available(device: str) -> str | None:
        if backend == "compile-max-autotune" and device != "cuda":
            return "max-autotune tunes GPU kernels; it has nothing to tune on the CPU"
        return eager.unavailable_reason(device)

    return available


def register_compiled_variants() -> None:
    # Sweeps compile one graph per shape; the default limit of 8 would fall back to eager silently.
    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
    for op in registry.ops():
        for eager in registry.implementations(op):
            if eager.backend != "eager":
                continue
            for backend, mode in MODES.items():
                registry.add(
                    registry.Implementation(
                        op=op,
                        backend=backend,
                        variant=eager.variant,
                        precision=eager.precision,
                        fn=_compiled(eager.fn, mode),
                        available=_availability(eager, backend),
                    )
                )
