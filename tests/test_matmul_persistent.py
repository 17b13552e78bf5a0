"""triton.persistent (python/mage/ops/matmul/triton_persistent.py): the split prologue covering both
operands in one launch, and the TMA product at tf32 and tf32x3, under TRITON_INTERPRET=1 (the
interpreter emulates device-made descriptors; its tf32 dots are float32, so these check the indexing,
the ragged edges and the splitting; tests/test_triton.py compiles the kernels for sm_90)."""

import pytest
import torch

from mage import registry
from mage.check import check
from mage.spec import Case, draw, generator

registry.load()
persistent = pytest.importorskip("mage.ops.matmul.triton_persistent")
tile_path = pytest.importorskip("mage.ops.matmul.triton")

# K and N multiples of 4 (16-byte rows, what TMA needs), none a multiple of a block: ragged tiles in M, N, K.
RAGGED = [{"m": 100, "k": 52, "n": 76}, {"m": 1, "k": 68, "n": 4}, {"m": 130, "k": 4, "n": 72}]


def _impl(name):
    return next(i for i in registry.implementations("matmul") if i.name == name)


def _launches(monkeypatch) -> list[str]:
    """Names of the kernels that run, in order, once the test calls a matmul."""
    ran = []
    kernels = [("split", persistent._split_operands_kernel), *(("tma", k) for k in persistent.TMA_KERNELS.values()),
               *(("tile", k) for k in tile_path._TILE_KERNELS.values())]
    for name, kernel in kernels:
        monkeypatch.setattr(kernel, "run", lambda *a, _run=kernel.run, _name=name, **kw: (ran.append(_name), _run(*a, **kw))[1])
    return ran


def _tf32(x):
    """x rounded to TF32 (10 explicit mantissa bits), to nearest."""
    return ((x.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)


def _rel_error(out, a, b):
    ref = a.double() @ b.double()
    return float((out.double() - ref).norm() / ref.norm())


def test_the_split_prologue_splits_both_operands_in_one_launch(monkeypatch):
    ran = _launches(monkeypatch)
    g = generator(7)
    a, b = draw((70, 132), g, "heavy"), draw((132, 67), g, "heavy")  # ragged against the 64-square blocks
    a_big, a_small, bt_big, bt_small = persistent.split_operands(a, b)
    assert ran == ["split"]
    for x, big, small in ((a, a_big, a_small), (b.t(), bt_big, bt_small)):
        assert big.shape == x.shape and big.is_contiguous() and small.is_contiguous()
        assert torch.equal(big, _tf32(x)) and torch.equal(small, _tf32(small))  # both parts TF32-representable
        assert ((big.double() + small.double() - x.double()).abs() <= 2.0**-22 * x.double().abs()).all()
        assert (small != 0).any()


@pytest.mark.parametrize("params", RAGGED, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
def test_tf32x3_takes_two_launches_and_passes_the_ieee_contract_on_ragged_tiles(monkeypatch, params):
    ran = _launches(monkeypatch)
    impl = _impl("triton.persistent/default/tf32x3")
    result = check(impl, registry.baseline_of(impl), registry.get_op("matmul"), Case("matmul", "t", "seed", params, 3),
                   "cpu", seed=5)
    assert result.passed, result.reason
    assert result.rel_error <= 1e-5  # the ieee ceiling the contract holds tf32x3 to
    assert set(ran) == {"split", "tma"} and ran.count("split") == ran.count("tma")


def test_tf32x3_sums_the_small_terms_to_ieee_accuracy_on_heavy_tails():
    """Big·big alone errs by TF32's 1e-3; with the two small terms the interpreter's float32 dots reach 1e-6."""
    g = generator(3)
    a, b = draw((128, 96), g, "heavy"), draw((96, 64), g, "heavy")
    assert _rel_error(_tf32(a) @ _tf32(b), a, b) > 1e-4
    assert _rel_error(_impl("triton.persistent/default/tf32x3").fn(a, b), a, b) < 1e-6


@pytest.mark.parametrize("params", RAGGED, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
def test_tf32_reads_a_strided_a_and_b_transposed_on_ragged_tiles(monkeypatch, params):
    """tf32 needs CUDA as a registered implementation; its launcher runs here with float32 dots."""
    ran = _launches(monkeypatch)
    m, k, n = params["m"], params["k"], params["n"]
    a = torch.randn(m, k + 8)[:, :k]  # rows 16-byte aligned but not contiguous: the descriptor takes the stride
    b = torch.randn(k, n)
    assert _rel_error(persistent._matmul(a, b, "tf32"), a, b) < 1e-6
    assert ran == ["tma"]


@pytest.mark.parametrize("params", [{"m": 33, "k": 47, "n": 65}, {"m": 16, "k": 64, "n": 30}, {"m": 8, "k": 0, "n": 8}],
                         ids=["odd-k", "odd-n", "empty-k"])
def test_shapes_tma_cannot_address_take_the_tile_kernel(monkeypatch, params):
    ran = _launches(monkeypatch)
    impl = _impl("triton.persistent/default/tf32x3")
    result = check(impl, registry.baseline_of(impl), registry.get_op("matmul"), Case("matmul", "t", "seed", params, 3),
                   "cpu", seed=5)
    assert result.passed, result.reason
    assert "split" not in ran and "tma" not in ran


def test_every_config_fits_in_shared_memory_and_tf32x3_keeps_its_two_accumulators_in_registers():
    for precision, shapes in persistent.TMA_SHAPES.items():
        for shape in shapes:
            # The compiled kernels take under 200 bytes more than the estimate (their barriers).
            assert persistent.shared_bytes(shape, precision) + 1024 <= tile_path.SHARED_BYTES, (precision, shape)
    assert all(bm * bn <= 128 * 128 for bm, bn, *_ in persistent.TMA_SHAPES["tf32x3"])
    # The wide tiles on two consumer warpgroups, both ways round, for tf32.
    assert {(128, 256, 8), (256, 128, 8)} <= {(bm, bn, warps) for bm, bn, _, warps, *_ in persistent.TMA_SHAPES["tf32"]}


def _row(impl, precision, kernel_us, rel_error, baseline=False):
    return {"op": "matmul", "case": "1024x32768x1024", "impl": impl, "precision": precision, "baseline": baseline,
            "path": "single", "cache": "warm", "status": "pass", "kernel_us": kernel_us, "span_mean_us": None,
            "rel_error": rel_error}


def test_the_accuracy_view_reads_each_error_against_cublas_ieee_at_deep_k():
    """The deep-K claim, error at most cuBLAS ieee's, is read off one column: 1.00× or less."""
    from rich.console import Console

    from mage.report.accuracy import accuracy_table

    rows = [_row("eager/default/ieee", "ieee", 1000.0, 4e-6, baseline=True), _row("native/default/ieee", "ieee", 1200.0, 5e-6),
            _row("triton.persistent/default/tf32x3", "tf32x3", 500.0, 8e-7)]
    console = Console(record=True, width=200)
    console.print(accuracy_table(rows))
    lines = {line.split("│")[3].strip(): line for line in console.export_text().splitlines() if line.count("│") > 4}
    assert "0.20×" in lines["triton.persistent/default/tf32x3"] and "2.00×" in lines["triton.persistent/default/tf32x3"]
    assert "1.25×" in lines["native/default/ieee"] and "1.00×" in lines["eager/default/ieee"]
