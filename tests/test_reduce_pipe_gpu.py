"""The native pipe strategy (layernorm, softmax) on a CUDA device: the contract against the float64 reference
(normal, heavy-tailed and large-mean inputs) at widths 1024 to 262147 with more rows than resident clusters,
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


def _rows_past_resident(cols: int) -> int:
    """Two rounds of the resident clusters and a partial third (an odd count: 4099's rows start at every
    alignment)."""
    clusters = rows.resident_clusters(rows.pipe_plan(cols), torch.cuda.get_device_properties(0).multi_processor_count)
    return 2 * clusters + clusters // 3 + 1


WIDTHS = [1024, 4099, 16384, 65536, 65537, 262144, rows.PIPE_MAX_COLS]


def _pipe(op: str, family: str = "native"):
    return next(i for i in registry.implementations(op) if i.family == family and i.strategy == "pipe")


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("plan", rows.PIPE_PLANS, ids=lambda p: "k{}_t{}_v{}_c{}".format(*p))
def test_the_grid_never_asks_for_more_clusters_than_fit_at_once(op, plan):
    """The driver's count of the plan's clusters resident at once (cuOccupancyMaxActiveClusters) is at least
    the launcher's grid: a persistent grid larger than that would run its last clusters after the others."""
    from cuda.bindings import driver

    host = native.HOSTS[1]  # cuda-python's: its loaded functions are driver handles
    kernel = {"layernorm": layernorm_native, "softmax": softmax_native}[op].PIPE[plan]
    k, threads, chunks, _ = plan
    cols = 4 * k * threads * chunks  # the widest row of this plan: a call there loads its kernel
    _pipe(op, "native-py").fn(*registry.get_op(op).make_inputs(Case(op, "t", "seed", {"rows": 1, "cols": cols}), 1, "cuda"))
    function, context = host._kernels[(kernel, 0)]
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = k, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = threads, 1, 1
    config.sharedMemBytes = rows.pipe_shared_bytes(plan)
    fit = host._in_context(context, lambda: host._check(driver.cuOccupancyMaxActiveClusters(function, config),
                                                        "cuOccupancyMaxActiveClusters"))
    asked = rows.resident_clusters(plan, torch.cuda.get_device_properties(0).multi_processor_count)
    print(f"{kernel.name}: the driver fits {fit} clusters at once, the launcher asks for {asked}")
    assert asked <= fit


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("cols", WIDTHS, ids=str)
def test_contract_against_float64_with_every_cluster_walking_rows(op, family, cols):
    impl = _pipe(op, family)
    spec = registry.get_op(op)
    assert "large-mean" in spec.distributions
    rows_ = _rows_past_resident(cols)
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
    rows_ = _rows_past_resident(cols)
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
    inputs = spec.make_inputs(Case(op, "t", "seed", {"rows": _rows_past_resident(cols), "cols": cols}), 5, "cuda",
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
