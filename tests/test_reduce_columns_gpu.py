"""The native columns strategy of LayerNorm on a CUDA device: a cooperative grid of one CTA an SM, each owning the same
columns of every row, rows' statistics combined across the grid. The contract against the float64 reference (normal,
heavy-tailed and large-mean inputs) at float32, bf16 and fp16, widths 16384 to 262144, with enough rows for the groups
to wrap the exchange's slots and the stages several times and the last group partial, and with fewer rows than a
group; the same bits on a repeat, through both host paths, between calls of other widths and precisions (one
workspace), and from a CUDA graph replayed several times (each replay a call of its own). Skipped where no CUDA
device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_reduce_columns_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends import native, rows
from mage.check import check
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

FAMILIES = ("native", "native-py")
ELEMENTS = {"ieee": 4, "bf16": 8, "fp16": 8}


def _columns(family: str = "native", precision: str = "ieee"):
    return next(i for i in registry.implementations("layernorm")
                if i.family == family and i.strategy == "columns" and i.precision == precision)


def _rows_past_slots(cols: int, precision: str) -> int:
    """Enough rows for 2 · GROUP_SLOTS + 1 groups, the last partial."""
    ctas = native.HOSTS[0].resident_ctas(torch.device("cuda", 0))
    _, group_rows, shared = rows.columns_plan(1 << 20, cols, ELEMENTS[precision], ctas, native.HOSTS[0].block_shared_bytes)
    print(f"{cols} columns at {precision}: {ctas} CTAs, {group_rows} rows a group, {shared} bytes of shared memory")
    return (2 * rows.GROUP_SLOTS) * group_rows + max(1, group_rows // 2)


@pytest.mark.parametrize("precision", ["ieee", "bf16", "fp16"])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("cols", [16384, 65536, 65537, 262144], ids=str)
def test_contract_against_float64_over_many_groups(family, cols, precision):
    impl = _columns(family, precision)
    spec = registry.get_op("layernorm")
    rows_ = _rows_past_slots(cols, precision)
    result = check(impl, registry.baseline_of(impl), spec, Case("layernorm", "columns", "seed",
                                                                {"rows": rows_, "cols": cols}), "cuda", seed=cols)
    print(f"{impl.name} {rows_}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


@pytest.mark.parametrize("rows_", [1, 2, 3])
def test_fewer_rows_than_a_group(rows_):
    impl = _columns()
    result = check(impl, registry.baseline_of(impl), registry.get_op("layernorm"),
                   Case("layernorm", "columns", "seed", {"rows": rows_, "cols": 65537}), "cuda", seed=rows_)
    assert result.passed, result.reason


def _inputs(rows_: int, cols: int, precision: str = "ieee", seed: int = 5, distribution: str = "heavy"):
    """LayerNorm's x, weight and bias on the GPU at ``precision``, drawn from ``distribution``."""
    spec = registry.get_op("layernorm")
    inputs = spec.make_inputs(Case("layernorm", "t", "seed", {"rows": rows_, "cols": cols}), seed, "cuda",
                              distribution)
    dtype = {"ieee": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    return tuple(t.to(dtype) for t in inputs)


@pytest.mark.parametrize("cols", [65537, 262144])
def test_the_same_bits_on_a_repeat_through_both_hosts_between_other_calls_and_from_a_graph(cols):
    inputs = _inputs(_rows_past_slots(cols, "ieee"), cols)
    first = _columns().fn(*inputs)
    assert torch.equal(first, _columns().fn(*inputs))
    other = _inputs(40, 131072 - cols % 2, "bf16", seed=6)  # another width and precision on the same workspace
    other_first = _columns(precision="bf16").fn(*other)
    assert torch.equal(first, _columns("native-py").fn(*inputs))
    assert torch.equal(other_first, _columns("native-py", "bf16").fn(*other))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        replayed = _columns().fn(*inputs)
    for _ in range(3):
        replayed.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(first, replayed)
    assert torch.equal(first, _columns().fn(*inputs))
