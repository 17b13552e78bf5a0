"""torch.compile of each op's baseline formulation: family ``compile``, one strategy per mode."""

from __future__ import annotations

import torch

from mage import registry

FAMILY = "compile"
MODES = {"default": "default", "max-autotune": "max-autotune-no-cudagraphs"}  # strategy -> torch.compile mode


def _compiled(eager_fn, mode: str):
    compiled = None

    def call(*inputs):
        nonlocal compiled
        if compiled is None:
            compiled = torch.compile(eager_fn, mode=mode, dynamic=False)
        return compiled(*inputs)

    return call


def _availability(baseline: registry.Implementation, strategy: str):
    def available(device: str) -> str | None:
        if strategy == "max-autotune" and device != "cuda":
            return "max-autotune tunes GPU kernels; it has nothing to tune on the CPU"
        return baseline.unavailable_reason(device)

    return available


def register_compiled_variants() -> None:
    # Sweeps compile one graph per shape; the default limit of 8 would fall back to eager silently.
    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
    for op in registry.ops():
        for baseline in registry.implementations(op):
            if not baseline.baseline:
                continue
            for strategy, mode in MODES.items():
                registry.add(
                    registry.Implementation(
                        op=op,
                        family=FAMILY,
                        strategy=strategy,
                        variant=baseline.variant,
                        precision=baseline.precision,
                        fn=_compiled(baseline.fn, mode),
                        available=_availability(baseline, strategy),
                    )
                )
