"""torch.compile of an op's baseline formulation: family ``compile``, one strategy per mode.

An op's eager.py marks its baseline with ``@with_compiled`` above its ``@implementation``:

    @with_compiled
    @implementation("layernorm", family="eager", baseline=True)
    def layernorm(x, weight, bias): ...

so this module imports the registry and the registry imports no backend.
"""

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


def with_compiled(fn):
    """Register torch.compile of each baseline the @implementation decorators below registered from
    ``fn``; the compiled variants are registered once every op and plugin is loaded, after the op's own."""
    baselines = registry.registered_from(fn)
    if not baselines or not all(baseline.baseline for baseline in baselines):
        raise ValueError(f"@with_compiled on {fn.__module__}.{fn.__qualname__} compiles a baseline: it goes "
                         f"above @implementation(..., baseline=True)")
    registry.after_load(lambda: _register(baselines))
    return fn


def _register(baselines: list[registry.Implementation]) -> None:
    # Sweeps compile one graph per shape; the default limit of 8 would fall back to eager silently.
    torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 64)
    for baseline in baselines:
        for strategy, mode in MODES.items():
            registry.add(
                registry.Implementation(
                    op=baseline.op,
                    family=FAMILY,
                    strategy=strategy,
                    variant=baseline.variant,
                    precision=baseline.precision,
                    fn=_compiled(baseline.fn, mode),
                    available=_availability(baseline, strategy),
                    # The default mode runs by default; max-autotune is a study (run when named): measured level
                    # with it on every large case, it spends tens of seconds autotuning each shape first.
                    champion=strategy == "default",
                )
            )
