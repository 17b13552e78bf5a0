"""Peers (mage.backends.peers): the libraries a user would pick instead of Mage's kernels, registered as families.

On the CPU: the peers that run here (PyTorch Geometric; Liger-Kernel's softmax under Triton's interpreter) pass
their contract, required under CI; the others are registered, declared unavailable with a reason, and a library
that is missing or broken costs only its own rows. Each peer's refusal of a shape is declared, not a crash.
Their contracts on a GPU: tests/test_peers_gpu.py.
"""

import importlib.metadata
import sys

import pytest
from rich.console import Console

from mage import best, identity, registry
from mage.backends.peers import LIGER, LIGER_MAX_COLS, PEERS, PYG, QUACK, Peer, PeerMissing
from mage.backends.triton import INTERPRETED
from mage.check import check
from mage.context import blocks, fusion
from mage.measure import env
from mage.measure.method import Method
from mage.plan import Planned, Request, skip_reason
from mage.report.answer import answer_table
from mage.runner import Runner
from mage.spec import Case
from mage.store import Store

from ci import required

registry.load()
QUICK = Method(span_samples=3, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1)


def _peer_impls(peer: Peer, op: str | None = None) -> list[registry.Implementation]:
    ops = [op] if op else sorted(registry.ops())
    return [impl for name in ops for impl in registry.implementations(name) if impl.family == peer.family]


def _test_cases(spec) -> list[Case]:
    return [Case(spec.name, f"test{n}", "seed", params, seed=11 + n) for n, params in enumerate(spec.test_params)]


def _fused_impls(peer: Peer) -> list:
    """A peer's fused implementations of Mage's blocks (mage.context.fusion)."""
    return [impl for family in blocks.FAMILIES for impl in fusion.implementations(family) if impl.family == peer.family]


def test_each_peer_family_is_a_library_family_with_implementations():
    assert {peer.family for peer in PEERS} == set(identity.PEER_FAMILIES)
    assert set(identity.PEER_FAMILIES) <= set(identity.LIBRARY_FAMILIES)
    for peer in PEERS:
        assert _peer_impls(peer) or _fused_impls(peer), peer.family
        impls = _peer_impls(peer)
        assert all(impl.champion and not impl.baseline for impl in impls)  # run by default, never the reference
        assert all(impl in registry.select(impl.op, None) for impl in impls)


def test_what_each_peer_implements():
    names = {peer.family: sorted(f"{i.op}:{i.name}" for i in _peer_impls(peer)) for peer in PEERS}
    assert names == {
        "liger": ["layernorm:liger/affine/bf16", "layernorm:liger/affine/fp16", "layernorm:liger/affine/ieee",
                  "softmax:liger/rows/bf16", "softmax:liger/rows/fp16", "softmax:liger/rows/ieee"],
        "pyg": ["neighbor_agg:pyg/mean/ieee", "neighbor_agg:pyg/sum/ieee"],
        "quack": ["layernorm:quack/affine/bf16", "layernorm:quack/affine/fp16", "layernorm:quack/affine/ieee",
                  "softmax:quack/rows/bf16", "softmax:quack/rows/fp16", "softmax:quack/rows/ieee"],
        "cuequivariance": [],
    }
    fused = {peer.family: sorted(f"{i.block_family}:{i.label}@{i.precision}" for i in _fused_impls(peer))
             for peer in PEERS}
    assert fused == {"liger": [], "pyg": [], "quack": [],
                     "cuequivariance": ["trimul:fused(cuequivariance)@bf16", "trimul:fused(cuequivariance)@ieee",
                                        "trimul:fused(cuequivariance)@tf32"]}
    cusparse = {i.name for i in registry.implementations("neighbor_agg") if i.family == "cusparse"}
    assert cusparse == {"cusparse/sum/ieee", "cusparse/mean/ieee"}


@required(PYG.missing() is not None, f"PyTorch Geometric cannot be used here: {PYG.missing()}")
@pytest.mark.parametrize("impl", _peer_impls(PYG), ids=lambda impl: impl.name)
def test_pyg_passes_its_contract_on_the_cpu_on_every_test_graph(impl):
    """Zero-degree rows and hubs included: the mean's division by a scattered count."""
    assert impl.unavailable_reason("cpu") is None
    spec = registry.get_op("neighbor_agg")
    for case in _test_cases(spec):
        result = check(impl, registry.baseline_of(impl), spec, case, "cpu", seed=5)
        assert result.passed, f"{case.params}: {result.reason}"


@required(LIGER.missing() is not None or not INTERPRETED,
          f"Liger-Kernel's softmax cannot run here: {LIGER.missing() or 'TRITON_INTERPRET=1 is not set'}")
@pytest.mark.parametrize("impl", _peer_impls(LIGER, "softmax"), ids=lambda impl: impl.name)
def test_liger_softmax_passes_its_contract_on_the_cpu_on_every_test_shape(impl):
    assert impl.unavailable_reason("cpu") is None
    spec = registry.get_op("softmax")
    for case in _test_cases(spec):
        result = check(impl, registry.baseline_of(impl), spec, case, "cpu", seed=5)
        assert result.passed, f"{case.params}: {result.reason}"


def test_torch_sparse_mean_weights_each_edge_by_its_row_s_degree():
    """cuSPARSE runs on CUDA alone, but the mean's formulation (1/degree per edge) is checked here through
    torch.sparse.mm's CPU path, on graphs with zero-degree rows."""
    (impl,) = [i for i in registry.implementations("neighbor_agg") if i.name == "cusparse/mean/ieee"]
    assert "cuSPARSE only on CUDA" in impl.unavailable_reason("cpu")
    spec = registry.get_op("neighbor_agg")
    for case in _test_cases(spec):
        result = check(impl, registry.baseline_of(impl), spec, case, "cpu", seed=5)
        assert result.passed, f"{case.params}: {result.reason}"


def test_gpu_only_peers_say_why_on_the_cpu():
    layernorm, softmax = _peer_impls(LIGER, "layernorm")[0], _peer_impls(QUACK, "softmax")[0]
    assert "interpreter passes as a plain Python float" in layernorm.unavailable_reason("cpu")
    assert softmax.unavailable_reason("cpu") == "QuACK's kernels run on CUDA devices only"


def test_liger_declares_the_rows_it_refuses():
    """Liger raises on rows wider than one Triton block: the reduction study's 65537 and 262144 columns are skips."""
    spec = registry.get_op("softmax")
    widest = {case.params["cols"] for case in spec.cases()}
    assert {LIGER_MAX_COLS, LIGER_MAX_COLS + 1} <= widest
    for impl in _peer_impls(LIGER):
        for case in registry.get_op(impl.op).cases():
            reason = impl.case_skip_reason(case.params)
            if case.params["cols"] > LIGER_MAX_COLS:
                assert reason and f"refuses {case.params['cols']} columns" in reason
            else:
                assert reason is None, case.name


def test_quack_declares_the_widths_its_row_kernels_cannot_take():
    softmax = {impl.precision: impl for impl in _peer_impls(QUACK, "softmax")}
    for impl in softmax.values():
        assert "4099 columns do not" in impl.case_skip_reason({"rows": 8, "cols": 4099})
        assert impl.case_skip_reason({"rows": 8, "cols": 4096}) is None
    # 16 bytes: four float32 elements, eight 16-bit ones.
    assert softmax["ieee"].case_skip_reason({"rows": 8, "cols": 1004}) is None
    assert "1004 columns do not" in softmax["bf16"].case_skip_reason({"rows": 8, "cols": 1004})
    layernorm = {impl.precision: impl for impl in _peer_impls(QUACK, "layernorm")}
    assert all(layernorm["ieee"].case_skip_reason({"rows": 8, "cols": cols}) is None for cols in (33, 4099, 65537))
    for precision in ("bf16", "fp16"):
        assert "65537 columns do not" in layernorm[precision].case_skip_reason({"rows": 8, "cols": 65537})
        assert layernorm[precision].case_skip_reason({"rows": 8, "cols": 1002}) is None


def test_quack_float32_softmax_is_registered_with_its_exponent_s_flaw():
    (impl,) = [impl for impl in _peer_impls(QUACK, "softmax") if impl.precision == "ieee"]
    assert impl.failed_as_registered("large-mean inputs: error 0.00019 > allowed 1.19e-06")
    assert impl.failed_as_registered("heavy inputs: the element at [43, 97248] is 0.563689 …")
    assert not impl.failed_as_registered("normal inputs: error 0.1 > allowed 1e-05")


ABSENT = Peer("Absent Library", "absent", "mage-absent-peer", "mage_absent_peer")


def test_a_missing_library_is_a_reason_naming_its_package_and_a_call_raises():
    reason = ABSENT.missing()
    assert reason == ("mage-absent-peer is not installed (pip install -e '.[peers]', "
                      "or pip install 'mage-absent-peer')")
    assert ABSENT.available()("cpu") == reason
    assert ABSENT.available(ABSENT.cuda_only)("cpu") == "Absent Library's kernels run on CUDA devices only"
    assert ABSENT.version() is None
    with pytest.raises(PeerMissing, match="mage-absent-peer is not installed"):
        ABSENT.load("ops")
    assert QUACK.missing() is None or "quack-kernels[cu13]" in QUACK.missing()


def test_a_library_failing_on_import_is_a_reason_not_an_error(tmp_path, monkeypatch):
    (tmp_path / "mage_broken_peer.py").write_text("raise RuntimeError('no CUDA runtime found')\n")
    (tmp_path / "mage_half_peer.py").write_text("import mage_dependency_nowhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    broken = Peer("Broken", "broken", "mage-broken-peer", "mage_broken_peer")
    half = Peer("Half", "half", "mage-half-peer", "mage_half_peer")
    assert broken.missing() == "mage-broken-peer is installed but fails on import: RuntimeError: no CUDA runtime found"
    assert half.missing() == ("mage-half-peer is installed but fails on import: "
                              "No module named 'mage_dependency_nowhere'")
    assert "mage_broken_peer" not in sys.modules


@pytest.fixture
def absent_peer(monkeypatch):
    """A softmax implementation of a library that is not installed, registered for the test alone."""
    monkeypatch.setattr(registry, "_IMPLS", {op: list(impls) for op, impls in registry._IMPLS.items()})
    monkeypatch.setattr(registry, "_REGISTERED_FROM", dict(registry._REGISTERED_FROM))

    def softmax(x):
        registry.get_op("softmax").validate(x)
        return ABSENT.load().softmax(x)

    registry.implementation("softmax", family=ABSENT.family, available=ABSENT.available())(softmax)
    (impl,) = registry.registered_from(softmax)
    return impl


def test_a_missing_library_costs_only_its_own_rows(tmp_path, absent_peer):
    spec = registry.get_op("softmax")
    eager = registry.baseline_of(absent_peer)
    case = Case("softmax", "9x33", "seed", {"rows": 9, "cols": 33}, seed=4)
    assert "mage-absent-peer is not installed" in skip_reason(spec, case, absent_peer, "cpu")
    request = Request(suites=["seed"], device="cpu", paths=["single"], method=QUICK)
    store = Store(tmp_path / "mage.db")
    run_id = Runner(store, request, "pytest").run([Planned(spec, case, [absent_peer, eager])])
    rows = {row["impl"]: row for row in store.rows(run_id)}
    assert store.run(run_id)["status"] == "complete"
    assert rows["eager/rows/ieee"]["status"] == "pass"
    assert rows["absent/rows/ieee"]["status"] == "skip"
    assert rows["absent/rows/ieee"]["reason"].startswith("mage-absent-peer is not installed")


def test_each_run_records_every_peer_s_version():
    captured = env.capture("cpu")
    for distribution in [distribution for peer in PEERS for distribution in peer.distributions()]:
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        assert captured[distribution] == installed
    assert "cuequivariance-ops-torch-cu13" in captured  # the kernels of a peer whose front end comes apart


def _softmax_rows(**kernel_us: float) -> list[dict]:
    """A softmax result of each family with a kernel time alone, in the order given, as the answer reads them."""
    return [{"op": "softmax", "case": "64x64", "impl": f"{family}/rows/ieee", "path": "single", "cache": "warm",
             "status": "pass", "kernel_us": us, "span_mean_us": None} for family, us in kernel_us.items()]


def _kernel_answer(rows: list[dict]):
    (kernel,) = [a for a in best.from_rows(rows, "cpu-model") if a.boundary == "kernel"]
    return kernel


def _answer_text(answer) -> str:
    console = Console(width=100, record=True)
    console.print(answer_table([answer], "answer"))
    return console.export_text()


def test_the_answer_sets_mage_s_best_beside_the_fastest_peer():
    rows = _softmax_rows(eager=10.0, compile=8.0, liger=5.0, quack=6.0, triton=4.0)
    kernel = _kernel_answer(rows)
    assert kernel.fastest.impl == "triton/rows/ieee"
    assert kernel.library.impl == "liger/rows/ieee" and kernel.vs_library == 1.25
    won = _kernel_answer(rows[:3])
    assert won.fastest.impl == won.library.impl == "liger/rows/ieee"  # a peer that wins is the answer


def test_where_a_library_leads_the_answer_says_how_far_behind_mage_s_own_best_is():
    kernel = _kernel_answer(_softmax_rows(eager=10.0, compile=8.0, quack=4.0, triton=6.0, native=7.0))
    assert kernel.fastest.impl == "quack/rows/ieee" and kernel.own.impl == "triton/rows/ieee"
    assert kernel.vs_own == 1.5 and kernel.as_dict()["own"] == "triton/rows/ieee"
    assert "1.50× Mage's triton" in _answer_text(kernel)
    led = _kernel_answer(_softmax_rows(eager=10.0, quack=6.0, triton=4.0))
    assert "Mage's" not in _answer_text(led)  # Mage leads: its name heads the cell, no ratio to itself


def test_the_answer_names_the_fastest_peer_where_torch_compile_is_the_fastest_library():
    rows = _softmax_rows(eager=10.0, compile=5.0, liger=8.0, quack=6.0, triton=4.0)
    kernel = _kernel_answer(rows)
    assert kernel.library.impl == "compile/rows/ieee" and kernel.peer.impl == "quack/rows/ieee"
    assert kernel.vs_peer == 1.5 and kernel.as_dict()["peer"] == "quack/rows/ieee"
    text = _answer_text(kernel)
    assert "1.25× compile" in text and "1.50× quack" in text
    alone = _kernel_answer(rows[:2] + rows[4:])
    assert alone.peer is None and alone.as_dict()["vs_peer"] is None  # no peer ran: none is named
