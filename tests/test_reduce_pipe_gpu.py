"""The native pipe strategy (layernorm, softmax) on a CUDA device: the contract against the float64 reference
(normal, heavy-tailed and large-mean inputs), float32 and bf16, at widths 1024 to 262147 with more rows than
resident clusters,
so that every cluster walks several rows and the last round is partial; an input off every 16-byte boundary;
the same bits on a repeat, through both host paths (each opting the kernel in to its > 48 KB of shared memory
at 262144) and from a CUDA graph; and first, the launcher's grid against the driver's count of clusters that
fit at once. The study's own shapes are checked by the reduction suite before it times them. Skipped where no
CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_reduce_pipe_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends import native, rows
from mage.check import check
from mage.ops.layernorm import native as layernorm_native
from mage.ops.softmax import native as softmax_native
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

OPS = ("layernorm", "softmax")
FAMILIES = ("native", "native-py")


def _resident(op: str, plan, host=native.HOSTS[0]) -> int:
    """The driver's count of ``plan``'s float32 clusters that fit at once, through ``host``."""
    k, threads, chunks, _ = plan
    kernel = {"layernorm": layernorm_native, "softmax": softmax_native}[op].PIPE["ieee"][plan]
    shared = 16 * threads * chunks  # the slice of the plan's widest row
    return host.max_active_clusters(kernel, torch.device("cuda", 0), k, (threads, 1, 1), shared)


def _rows_past_resident(cols: int, op: str) -> int:
    """Two rounds of the resident clusters and a partial third (an odd count: 4099's rows start at every
    alignment)."""
    clusters = _resident(op, rows.pipe_plan(cols))
    return 2 * clusters + clusters // 3 + 1


WIDTHS = [1024, 4099, 16384, 65536, 65537, 262144, rows.PIPE_MAX_COLS]


def _pipe(op: str, family: str = "native", precision: str = "ieee"):
    return next(i for i in registry.implementations(op)
                if i.family == family and i.strategy == "pipe" and i.precision == precision)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("plan", rows.PIPE_PLANS, ids=lambda p: "k{}_t{}_v{}_c{}".format(*p))
def test_the_grid_is_the_drivers_count_of_clusters_that_fit_at_once(op, plan, monkeypatch):
    """Both hosts ask cuOccupancyMaxActiveClusters and get the same count; a call with more rows launches that
    many clusters: a persistent grid larger than that would run its last clusters after the others."""
    fit = [_resident(op, plan, host) for host in native.HOSTS]
    k, threads, chunks, ctas = plan
    print(f"{op} pipe{k}_t{threads}_v{chunks}: the driver fits {fit[0]} clusters at once")
    assert fit[0] == fit[1] >= 1 and fit[0] * k <= torch.cuda.get_device_properties(0).multi_processor_count * ctas
    grids = []
    for host in native.HOSTS:
        monkeypatch.setattr(host, "launch", lambda kernel, grid, *args, _launch=host.launch, **kw:
                            grids.append(grid) or _launch(kernel, grid, *args, **kw))
    cols = 4 * k * threads * chunks  # the widest row of this plan
    inputs = registry.get_op(op).make_inputs(Case(op, "t", "seed", {"rows": fit[0] + 1, "cols": cols}), 1, "cuda")
    for family in FAMILIES:
        _pipe(op, family).fn(*inputs)
    assert grids == [(fit[0] * k, 1, 1)] * 2


@pytest.mark.parametrize("precision", ["ieee", "bf16"])
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", WIDTHS, ids=str)
def test_contract_against_float64_with_every_cluster_walking_rows(op, family, cols, precision):
    impl = _pipe(op, family, precision)
    spec = registry.get_op(op)
    assert "large-mean" in spec.distributions
    rows_ = _rows_past_resident(cols, op)
    result = check(impl, registry.baseline_of(impl), spec, Case(op, "pipe", "seed", {"rows": rows_, "cols": cols}),
                   "cuda", seed=cols)
    print(f"{impl.name} {rows_}x{cols}: worst error {result.rel_error}, eager {result.eager_error}")
    assert result.passed, result.reason


def _reference(op, inputs):
    spec = registry.get_op(op)
    return spec.reference(tuple(t.double() for t in inputs), spec.variants[0])


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [4099, 65537, 262144])
@pytest.mark.parametrize("distribution", ["normal", "large-mean"])
def test_an_input_off_every_16_byte_boundary(op, cols, distribution):
    """x starts 4 bytes past a boundary: every row's head, body and tail shift, and the copies stay 16-byte."""
    spec = registry.get_op(op)
    rows_ = _rows_past_resident(cols, op)
    inputs = list(spec.make_inputs(Case(op, "t", "seed", {"rows": rows_, "cols": cols}), 3, "cuda", distribution))
    storage = torch.empty(inputs[0].numel() + 1, device="cuda")
    shifted = storage[1:].view_as(inputs[0])
    shifted.copy_(inputs[0])
    assert shifted.data_ptr() % 16 == 4
    inputs[0] = shifted
    out = _pipe(op).fn(*inputs)
    ref = _reference(op, inputs)
    error = (torch.linalg.norm(out.double() - ref) / torch.linalg.norm(ref)).item()
    print(f"{op} {rows_}x{cols} {distribution} shifted: error {error:.3g}")
    assert error < 1e-5 if distribution == "normal" else error < 1e-3


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", [4099, 65537, 262144])
def test_the_same_bits_on_a_repeat_through_both_hosts_and_from_a_graph(op, cols):
    spec = registry.get_op(op)
    inputs = spec.make_inputs(Case(op, "t", "seed", {"rows": _rows_past_resident(cols, op), "cols": cols}), 5, "cuda",
                              "heavy")
    first = _pipe(op).fn(*inputs)
    assert torch.equal(first, _pipe(op).fn(*inputs))
    assert torch.equal(first, _pipe(op, "native-py").fn(*inputs))
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        replayed = _pipe(op).fn(*inputs)
    replayed.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(first, replayed)
