"""The reduction study's Triton strategies on a CUDA device, compiled (not interpreted): every contract
(large-mean inputs included) at widths on both sides of each kernel's limits, the split's combine over
many chunks, and the naive one-pass variance failing the large-mean contract there too. Skipped where
no CUDA device is visible; run with ``pytest -m gpu tests/test_reduction_gpu.py``."""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.check import check
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

STRATEGIES = [impl for op in ("layernorm", "softmax") for impl in registry.implementations(op)
              if impl.family == "triton" and impl.strategy != "naive"]
# Few rows (more than a warp program's at the narrow width): a ragged width under the warp limit, the
# register limit itself, and a ragged width past it that the split cuts into 17 chunks. Few widths,
# since each compiles every kernel again.
WIDTHS = (1000, 16384, 65537)


def _check(impl, cols: int):
    params = {"rows": 9 if cols <= 1024 else 3, "cols": cols}
    spec = registry.get_op(impl.op)
    return check(impl, registry.baseline_of(impl), spec, Case(impl.op, "gpu", "seed", params, seed=cols), "cuda", cols)


@pytest.mark.parametrize("impl", STRATEGIES, ids=lambda i: f"{i.op}:{i.name}")
def test_every_strategy_passes_its_contract_at_every_width_it_takes(impl):
    taken = [cols for cols in WIDTHS if impl.case_skip_reason({"cols": cols}) is None]
    assert taken, f"{impl.name} takes none of {WIDTHS}"
    for cols in taken:
        result = _check(impl, cols)
        assert result.passed, f"{cols} columns: {result.reason}"


@pytest.mark.parametrize("cols", (4096, 65537))
def test_the_naive_variance_fails_the_large_mean_contract_on_the_gpu(cols):
    naive = next(i for i in registry.implementations("layernorm") if i.backend == "triton.naive")
    result = _check(naive, cols)
    assert not result.passed and result.reason.startswith("large-mean inputs: error"), result.reason


@pytest.mark.parametrize("op", ("layernorm", "softmax"))
@pytest.mark.parametrize("cols", (4099, 65537))
def test_the_lagged_kernel_agrees_with_the_split_and_repeats_its_bits_with_thousands_of_programs(op, cols):
    # Enough tiles (~2,000) that many programs wait on others at once: the schedule the CPU cannot show.
    spec = registry.get_op(op)
    rows = max(3, 2**23 // cols)
    inputs = spec.make_inputs(Case(op, "gpu", "seed", {"rows": rows, "cols": cols}, seed=cols), cols, "cuda")
    by_strategy = {impl.strategy: impl.fn for impl in registry.implementations(op) if impl.family == "triton"}
    lagged = by_strategy["lagged"](*inputs)
    again = by_strategy["lagged"](*inputs)
    assert torch.equal(lagged.view(torch.int32), again.view(torch.int32))
    torch.testing.assert_close(lagged, by_strategy["split"](*inputs), rtol=1e-5, atol=1e-6)
