"""neighbor_agg's kernels on a CUDA device: every native schedule and the Triton kernel give the same
bits call after call (no floating-point atomics), and pass their contract on each graph of the
schedule suite and on a hub far above the default's HUB_ROW. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_neighbor_agg_gpu.py``.
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends.tuning import recorded_tunings
from mage.check import check
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

SPEC = registry.get_op("neighbor_agg")
DETERMINISTIC = [i for i in registry.implementations("neighbor_agg") if i.family in ("native", "native-py", "triton")]
# One width of each schedule-suite graph, and a hub of 400 K edges (the default cuts it into ~100 pieces).
CASES = [c for c in SPEC.cases() if c.suite == "schedule" and c.params["features"] == 128] + [
    Case("neighbor_agg", "hub-400k-F36", "seed", {"graph": "hub", "nodes": 50000, "edges": 400_000,
                                                  "share": 0.1, "features": 36, "index": "int64"}, seed=77),
]


def _impls(case: Case) -> list:
    """Every deterministic implementation on the graphs of the native schedules; Triton, which autotunes
    per graph (seconds each on the GPU), on the hub only, its new path."""
    return [i for i in DETERMINISTIC if i.family != "triton" or case.params["graph"] == "hub" and case.suite == "seed"]


# Parametrized by case, each case's graph built once for every implementation.
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_same_inputs_give_the_same_bits(case):
    inputs = SPEC.make_inputs(case, 5, "cuda", "heavy")
    for impl in _impls(case):
        first = impl.fn(*inputs)
        for _ in range(3):
            assert torch.equal(impl.fn(*inputs), first), impl.name


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_contract_on_the_schedule_graphs(case):
    failed = []
    for impl in _impls(case):
        result = check(impl, registry.baseline_of(impl), SPEC, case, "cuda", seed=2024)
        if not result.passed:
            failed.append(f"{impl.name}: {result.reason}")
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("case", [c for c in CASES if c.params["graph"] in ("rmat", "hub")], ids=lambda c: c.name)
def test_the_inflight_kernels_give_the_defaults_bits_compiled(case):
    """On the device, where ptxas schedules the two kernel sets differently: the same additions in the same
    order, so the same bits, for sum and mean (int64 graphs: the large case's index type)."""
    inputs = SPEC.make_inputs(case, 5, "cuda", "heavy")
    by_name = {impl.name: impl.fn for impl in DETERMINISTIC}
    for variant in ("sum", "mean"):
        assert torch.equal(by_name[f"native.inflight/{variant}/ieee"](*inputs), by_name[f"native/{variant}/ieee"](*inputs))


MERGE = ("merge", "merge512", "merge2048")


@pytest.mark.parametrize("case", [c for c in CASES if c.params["graph"] in ("rmat", "hub", "uniform")], ids=lambda c: c.name)
def test_merge_gives_the_same_bits_and_the_mean_is_the_sum_times_one_reciprocal(case):
    """native.merge's pieces on the device (the block-wide row search, interior long rows by the block, a
    hub combined by all groups of its last piece): the same bits call after call at every piece size, and
    the mean exactly the sum times one IEEE reciprocal of the degree (int32 schedule graphs, the int64 hub)."""
    rowptr, col, x = SPEC.make_inputs(case, 5, "cuda", "heavy")
    by_name = {impl.name: impl.fn for impl in DETERMINISTIC}
    degree = rowptr.diff()
    scale = torch.where(degree > 0, 1.0 / degree.clamp(min=1).float(), 1.0).unsqueeze(1)
    for strategy in MERGE:
        total = by_name[f"native.{strategy}/sum/ieee"](rowptr, col, x)
        for _ in range(3):
            assert torch.equal(by_name[f"native.{strategy}/sum/ieee"](rowptr, col, x), total), strategy
        assert torch.equal(by_name[f"native.{strategy}/mean/ieee"](rowptr, col, x), total * scale), strategy
    # every piece size adds a row's edges in a different grouping: the same answer within the IEEE contract
    ref = SPEC.reference((rowptr, col, x.double()), "sum")
    for strategy in MERGE:
        out = by_name[f"native.{strategy}/sum/ieee"](rowptr, col, x).double()
        assert ((out - ref).norm() / ref.norm()).item() < 1e-5, strategy


# native.coop and coop-3blocks against merge: R-MAT and the hub at every width, uniform at F 128, each with int32
# and int64 indices.
COOP_CASES = [c for c in SPEC.cases() if c.suite == "schedule" and (
    c.params["graph"] in ("rmat", "hub") or c.params["graph"] == "uniform" and c.params["features"] == 128)]


@pytest.mark.parametrize("case", COOP_CASES, ids=lambda c: c.name)
def test_coop_gives_merges_bits_and_the_same_bits_call_after_call(case):
    """Compiled, the coop kernels (each piece staged in shared memory) add what merge adds in merge's
    order: its bits, for sum and mean, int32 and int64, and the same bits on every call; coop-3blocks (the same
    kernels at 3 blocks an SM) coop's."""
    inputs = SPEC.make_inputs(case, 5, "cuda", "heavy")
    by_name = {impl.name: impl.fn for impl in DETERMINISTIC}
    for family in ("native", "native-py"):
        for variant in ("sum", "mean"):
            merge = by_name[f"{family}.merge/{variant}/ieee"](*inputs)
            coop = by_name[f"{family}.coop/{variant}/ieee"](*inputs)
            assert torch.equal(coop, merge), f"{family} {variant}"
            for _ in range(2):
                assert torch.equal(by_name[f"{family}.coop/{variant}/ieee"](*inputs), coop), f"{family} {variant}"
            assert torch.equal(by_name[f"{family}.coop-3blocks/{variant}/ieee"](*inputs), coop), f"{family} {variant}"


SLICED = [c for c in SPEC.cases() if c.name in ("rmat-64k-F512", "hub-64k-F512", "rmat-64k-F128-i64")]


@pytest.mark.parametrize("case", SLICED, ids=lambda c: c.name)
def test_coop_in_feature_slices_gives_the_same_bits_call_after_call_within_the_contract(case):
    """coop-f128 and coop-f32 (x gathered one slice of features at a time, each slice's hub pieces with their own
    counters): the same bits on every call, and within the IEEE contract of the float64 reference."""
    rowptr, col, x = SPEC.make_inputs(case, 5, "cuda", "heavy")
    by_name = {impl.name: impl.fn for impl in DETERMINISTIC}
    ref = SPEC.reference((rowptr, col, x.double()), "sum")
    for strategy in ("coop-f128", "coop-f32"):
        out = by_name[f"native.{strategy}/sum/ieee"](rowptr, col, x)
        for _ in range(2):
            assert torch.equal(by_name[f"native.{strategy}/sum/ieee"](rowptr, col, x), out), strategy
        assert ((out.double() - ref).norm() / ref.norm()).item() < 1e-5, strategy


@pytest.mark.parametrize("strategy", ["native/", "native.merge/", "native.coop/", "native.coop64/", "native.coop-f32/"])
def test_the_mean_scales_by_the_ieee_reciprocal_of_every_degree(strategy):
    """reciprocal_of_count (MUFU.RCP and one FMA step, without rcp.rn's slow-path call) against torch's IEEE
    1 / d, bit for bit, for every degree 1 … 4096 and a few far above (rows cut into pieces): each row's edges
    gather one row of ones and zero rows otherwise, so its mean is its reciprocal exactly."""
    degree = torch.cat([torch.arange(1, 4097), torch.tensor([65_537, 1_000_003, 4_194_301])]).cuda()
    rowptr = torch.cat([torch.zeros(1, dtype=torch.int64, device="cuda"), degree.cumsum(0)])
    col = torch.zeros(int(rowptr[-1]), dtype=torch.int64, device="cuda")
    col[rowptr[:-1]] = 1  # each row's first edge: x's row of ones
    x = torch.zeros(2, 4, device="cuda")
    x[1] = 1.0
    fn = next(i.fn for i in DETERMINISTIC if i.name == f"{strategy}mean/ieee")
    expected = (1.0 / degree.float()).unsqueeze(1).expand(-1, 4)
    for index in (torch.int64, torch.int32):
        assert torch.equal(fn(rowptr.to(index), col.to(index), x), expected), index


@pytest.mark.parametrize("name", ["hub-64k-F512", "rmat-64k-F512", "uniform-64k-F32"])
def test_tuned_runs_the_candidate_it_records_with_that_candidates_bits(name):
    """native.tuned times its candidates once per graph shape and records its choice: its output is the
    chosen pinned strategy's, bit for bit, and a second call takes the same choice untimed."""
    case = next(c for c in SPEC.cases() if c.name == name)
    rowptr, col, x = SPEC.make_inputs(case, 5, "cuda", "heavy")
    by_name = {impl.name: impl.fn for impl in DETERMINISTIC}
    with recorded_tunings() as seen:
        out = by_name["native.tuned/sum/ieee"](rowptr, col, x)
        again = by_name["native.tuned/sum/ieee"](rowptr, col, x)
    assert len(set(seen)) == 1 and seen[0].startswith("neighbor_agg native: "), seen
    chosen = seen[0].removeprefix("neighbor_agg native: ")
    assert torch.equal(out, again) and torch.equal(out, by_name[f"native.{chosen}/sum/ieee"](rowptr, col, x))
