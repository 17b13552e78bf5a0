"""``triton.relayout3-cublas`` under the Triton interpreter (the relayout copies interpreted, cuBLAS's product the
CPU's bmm): what it declares, the contract on ragged shapes at both 16-bit precisions over two batches, its three
launches, and the channel groups of the L2 study (a part-full last group included) giving the same product.
tf32 (CUDA only) is checked by tests/test_triangle_cublas_gpu.py."""

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by mage or by this file

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import registry  # noqa: E402
from mage.check import check  # noqa: E402
from mage.ops.triangle import triton_cublas  # noqa: E402
from mage.ops.triangle.spec import CHANNEL_LAST, LAYOUTS, SPEC  # noqa: E402
from mage.spec import Case  # noqa: E402
from test_triangle_relayout import EQUATIONS, relayout_launches, small_blocks  # noqa: E402,F401  (fixtures)

CUBLAS = {(i.variant, i.precision): i for i in registry.implementations("triangle")
          if i.backend == "triton.relayout3-cublas"}


def test_it_declares_tf32_and_16_bit_for_both_variants_and_takes_channel_last_inputs_only():
    assert set(CUBLAS) == {(v, p) for v in SPEC.variants for p in ("tf32", "bf16", "fp16")}
    for impl in CUBLAS.values():
        assert impl.case_skip_reason(SPEC.case("B1-N512-C128").params) is None
        for layout in set(LAYOUTS) - {CHANNEL_LAST}:
            assert "channel-last inputs only" in impl.case_skip_reason(SPEC.case(f"B1-N512-C128-{layout}").params)


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_contract_on_ragged_shapes_over_two_batches(variant, precision):
    """N 21 and C 19: ragged copy boxes (8 × 16 × 8) in every dimension."""
    impl = CUBLAS[variant, precision]
    case = Case("triangle", "test", "seed", {"batch": 2, "n": 21, "c": 19, "layout": CHANNEL_LAST}, seed=23)
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cpu", 31)
    assert result.passed, result.reason


@pytest.fixture
def launches(relayout_launches, monkeypatch):
    """Each call's launches in order: the relayout copies as relayout_launches records them, and ("bmm", matrices)."""
    bmm = torch.bmm

    def recorded_bmm(x, y, out):
        relayout_launches.append(("bmm", x.shape[0]))
        return bmm(x, y, out=out)

    monkeypatch.setattr(triton_cublas.torch, "bmm", recorded_bmm)
    return relayout_launches


def _order(launches) -> list[tuple]:
    """The launches as ("relayout", operands copied) or ("bmm", matrices)."""
    return [launch if launch[0] == "bmm" else ("relayout", launch[0]) for launch in launches]


@pytest.mark.parametrize("variant", SPEC.variants)
def test_three_launches_a_group_and_any_grouping_gives_the_product(launches, variant):
    """One group by default: a and b copied in one launch, the product, the copy back. In groups of 3 (11 channels:
    3, 3, 3 and a part-full 2, over two batches) each group does the same on its channels."""
    a, b = torch.randn(2, 20, 20, 11), torch.randn(2, 20, 20, 11)
    expected = torch.einsum(EQUATIONS[variant], a.double(), b.double())
    torch.testing.assert_close(triton_cublas.grouped_triangle(a, b, variant).double(), expected, rtol=1e-5, atol=1e-4)
    assert _order(launches) == [("relayout", 2), ("bmm", 22), ("relayout", 1)]  # B · C matrices
    launches.clear()
    grouped = triton_cublas.grouped_triangle(a, b, variant, group=3)
    torch.testing.assert_close(grouped.double(), expected, rtol=1e-5, atol=1e-4)
    group = lambda matrices: [("relayout", 2), ("bmm", matrices), ("relayout", 1)]  # noqa: E731
    assert _order(launches) == group(6) * 3 + group(4)


def test_empty_pairs_return_an_empty_output_without_a_launch(launches):
    out = CUBLAS["outgoing", "bf16"].fn(torch.randn(1, 0, 0, 4).bfloat16(), torch.randn(1, 0, 0, 4).bfloat16())
    assert out.shape == (1, 0, 0, 4) and launches == []
