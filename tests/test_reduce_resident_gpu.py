"""The native resident strategy of LayerNorm on a CUDA device (the pipe with each CTA's weight and bias held in shared
memory for the kernel's life): first, the driver's count of each plan's clusters that fit at once, the same through
both hosts, and the launcher's grid from it; then the contract against the float64 reference (normal, heavy-tailed and
large-mean inputs) at float32, bf16 and fp16 on every plan, from 16384 to 262147 columns, with more rows than resident
clusters so that every cluster walks several rows and the last round is partial; an input, a weight and a bias off
every 16-byte boundary; the same bits on a repeat, through both hosts and from a CUDA graph. Skipped where no CUDA
device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_reduce_resident_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends import native, rows
from mage.check import check
from mage.ops.layernorm import native as layernorm_native
from mage.ops.layernorm.spec import EPS
from mage.spec import Case
from test_reduce_columns_gpu import _inputs

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

FAMILIES = ("native", "native-py")
PRECISIONS = ("ieee", "bf16", "fp16")
ELEMENT_BYTES = {"ieee": 4, "bf16": 2, "fp16": 2}
PLANS = {"ieee": rows.RESIDENT_PLANS, "bf16": rows.SIXTEEN_BIT_RESIDENT_PLANS, "fp16": rows.SIXTEEN_BIT_RESIDENT_PLANS}


def _resident(plan, precision: str = "ieee", host=native.HOSTS[0]) -> int:
    """The driver's count of ``plan``'s clusters that fit at once, through ``host``."""
    k, threads, _, _ = plan
    kernel = layernorm_native.RESIDENT[precision][plan]
    shared = rows.resident_shared_bytes(plan, ELEMENT_BYTES[precision])
    return host.max_active_clusters(kernel, torch.device("cuda", 0), k, (threads, 1, 1), shared)


def _rows_past_resident(cols: int, precision: str) -> int:
    """Two rounds of the resident clusters and a partial third."""
    clusters = _resident(rows.resident_plan(cols, 16 // ELEMENT_BYTES[precision], PLANS[precision]), precision)
    return 2 * clusters + clusters // 3 + 1


def _impl(family: str = "native", precision: str = "ieee"):
    return next(i for i in registry.implementations("layernorm")
                if i.family == family and i.strategy == "resident" and i.precision == precision)


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
def test_the_grid_is_the_drivers_count_of_clusters_that_fit_at_once(precision, monkeypatch):
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for plan in PLANS[precision]:
        fit = [_resident(plan, precision, host) for host in native.HOSTS]
        k = plan[0]
        print(f"resident{k} {precision}: the driver fits {fit[0]} clusters at once ({fit[0] * k} of {sms} SMs)")
        assert fit[0] == fit[1] >= 1 and fit[0] * k <= sms
    grids = []
    for host in native.HOSTS:
        monkeypatch.setattr(host, "launch", lambda kernel, grid, *args, _launch=host.launch, **kw:
                            grids.append(grid) or _launch(kernel, grid, *args, **kw))
    plan = PLANS[precision][-1]
    fit = _resident(plan, precision)
    cols = (16 // ELEMENT_BYTES[precision]) * plan[0] * plan[1] * plan[2]
    for family in FAMILIES:
        _impl(family, precision).fn(*_inputs(fit + 1, cols, precision))
    assert grids == [(fit * plan[0], 1, 1)] * 2


# Every plan's widest row, a width of every remainder past it, and the study's widths.
WIDTHS = [16384, 16387, 32768, 32771, 65536, 65537, 131072, 131075, 262144, rows.RESIDENT_MAX_COLS]


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("cols", WIDTHS, ids=str)
def test_contract_against_float64_with_every_cluster_walking_rows(family, cols, precision):
    impl = _impl(family, precision)
    rows_ = _rows_past_resident(cols, precision)
    result = check(impl, registry.baseline_of(impl), registry.get_op("layernorm"),
                   Case("layernorm", "resident", "seed", {"rows": rows_, "cols": cols}), "cuda", seed=cols)
    print(f"{impl.name} {rows_}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


def _off_boundary(t: torch.Tensor, elements: int) -> torch.Tensor:
    storage = torch.empty(t.numel() + elements, dtype=t.dtype, device=t.device)
    shifted = storage[elements:].view_as(t)
    shifted.copy_(t)
    assert shifted.data_ptr() % 16
    return shifted


def assert_right_off_every_16_byte_boundary(fn, rows_: int, cols: int, precision: str) -> None:
    """LayerNorm ``fn`` on x one element past a boundary, weight two and bias three (a row's head, its columns of
    weight and bias and their alignment change together), large-mean inputs: within twice eager's error."""
    x, weight, bias = _inputs(rows_, cols, precision, 3, "large-mean")
    x, weight, bias = _off_boundary(x, 1), _off_boundary(weight, 2), _off_boundary(bias, 3)
    out = fn(x, weight, bias)
    ref = torch.nn.functional.layer_norm(x.double(), (cols,), weight.double(), bias.double(), eps=EPS)
    eager = torch.nn.functional.layer_norm(x.float(), (cols,), weight.float(), bias.float(), eps=EPS).to(x.dtype)
    error = (torch.linalg.norm(out.double() - ref) / torch.linalg.norm(ref)).item()
    eager_error = (torch.linalg.norm(eager.double() - ref) / torch.linalg.norm(ref)).item()
    print(f"{precision} {cols} shifted: error {error:.3g}, eager {eager_error:.3g}")
    # With a mean of 1e4 both errors are mostly the float32 rounding of the mean (an ulp of 1e4 against a spread of
    # one), which lands on either side; a column given the wrong weight would be off by its whole value.
    assert error <= 2 * eager_error + 1e-7


def assert_the_same_bits_through_both_hosts_and_a_graph(impl_of, inputs, precision: str) -> None:
    """``impl_of(family, precision)`` gives the same bits on ``inputs`` on a repeat, through the other host and
    replayed twice from a CUDA graph."""
    first = impl_of("native", precision).fn(*inputs)
    assert torch.equal(first, impl_of("native", precision).fn(*inputs))
    assert torch.equal(first, impl_of("native-py", precision).fn(*inputs))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        replayed = impl_of("native", precision).fn(*inputs)
    for _ in range(2):
        replayed.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(first, replayed)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("cols", [65537, 262144])
def test_an_input_weight_and_bias_off_every_16_byte_boundary(precision, cols):
    assert_right_off_every_16_byte_boundary(_impl(precision=precision).fn, _rows_past_resident(cols, precision), cols,
                                            precision)


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("cols", [65537, 262144])
def test_the_same_bits_on_a_repeat_through_both_hosts_and_from_a_graph(precision, cols):
    assert_the_same_bits_through_both_hosts_and_a_graph(
        _impl, _inputs(_rows_past_resident(cols, precision), cols, precision), precision)
