"""``triton.relayout-l2`` and ``triton.relayout-l2-cublas`` under the Triton interpreter: the channel groups'
arithmetic, the contract on ragged shapes whose last group is part-full, three launches a group with the
eviction policies that keep the group's copies in L2, and the same bits whatever the grouping. On the CPU a
group is a sector's channels (8 float32, 16 16-bit); tf32 (CUDA only) is checked by
tests/test_triangle_l2_gpu.py."""

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by mage or by this file

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import registry  # noqa: E402
from mage.check import check  # noqa: E402
from mage.ops.triangle import triton_l2, triton_relayout  # noqa: E402
from mage.ops.triangle.spec import CHANNEL_LAST, LAYOUTS, SPEC  # noqa: E402
from mage.spec import Case  # noqa: E402
from test_triangle_relayout import small_blocks  # noqa: E402,F401  (autouse: small tiles and boxes)

STRATEGIES = {"triton.relayout-l2": ("ieee", "tf32", "tf32x3", "bf16", "fp16"),
              "triton.relayout-l2-cublas": ("tf32", "bf16", "fp16")}
GROUPED = {(i.backend, i.variant, i.precision): i for i in registry.implementations("triangle")
           if i.backend in STRATEGIES}
H200_L2, H100_L2 = 60 * 2**20, 50 * 2**20


def test_both_strategies_declare_their_precisions_and_take_channel_last_inputs_only():
    assert set(GROUPED) == {(s, v, p) for s, ps in STRATEGIES.items() for v in SPEC.variants for p in ps}
    for impl in GROUPED.values():
        assert impl.case_skip_reason(SPEC.case("B1-N512-C128").params) is None
        for layout in LAYOUTS:
            if layout != CHANNEL_LAST:
                assert "channel-last inputs only" in impl.case_skip_reason(SPEC.case(f"B1-N512-C128-{layout}").params)


@pytest.mark.parametrize("B, N, C, itemsize, l2, group", [
    (1, 512, 128, 4, H200_L2, 8),  # 3 MiB a channel: 10 fit in 30 MiB, 8 make whole sectors
    (1, 512, 128, 4, H100_L2, 8),
    (1, 512, 128, 2, H200_L2, 16),  # 1.5 MiB a channel: 20 fit, 16 make whole sectors
    (1, 384, 128, 4, H200_L2, 16),  # 1.7 MiB a channel: 17 fit
    (1, 768, 128, 4, H200_L2, 8),  # 6.9 MiB a channel: 4 fit, but never less than a sector
    (1, 128, 64, 4, H200_L2, 64),  # every channel fits: one group
    (2, 37, 11, 4, H200_L2, 11),  # never more than C
    (1, 37, 11, 4, 0, 8),  # the CPU: a sector's channels
])
def test_a_group_is_the_whole_sectors_of_channels_that_fit_half_the_l2(B, N, C, itemsize, l2, group):
    assert triton_l2.channel_group(B, N, C, itemsize, l2) == group


def _contract(impl, params: dict):
    case = Case("triangle", "test", "seed", {**params, "layout": CHANNEL_LAST}, seed=23)
    result = check(impl, registry.baseline_of(impl), SPEC, case, "cpu", 31)
    assert result.passed, result.reason


# N 37: ragged tiles and rows padded to 48; C 11 (float32) or 19 (16-bit): a full group and a part-full one.
@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16", "fp16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_contract_on_ragged_tiles_and_a_part_full_last_group(variant, precision):
    channels = 11 if precision in ("ieee", "tf32x3") else 19
    _contract(GROUPED["triton.relayout-l2", variant, precision], {"batch": 1, "n": 37, "c": channels})


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_cublas_contract_over_two_batches_and_a_part_full_last_group(variant, precision):
    _contract(GROUPED["triton.relayout-l2-cublas", variant, precision], {"batch": 2, "n": 21, "c": 19})


def test_the_triton_gemm_over_two_batches():
    """The group's channels of both batches in one GEMM launch: channel b·g + c of the copies and the product."""
    _contract(GROUPED["triton.relayout-l2", "incoming", "ieee"], {"batch": 2, "n": 21, "c": 11})


@pytest.fixture
def launches(monkeypatch):
    """Each call's launches in order: ("relayout", operands, load policy, store policy) or ("gemm", channels)."""
    seen = []
    kernel = triton_relayout._triangle_relayout_kernel

    class Recording:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                operands = grid({"BLOCK_R": 8, "BLOCK_K": 16, "BLOCK_C": 8})[1]
                seen.append(("relayout", operands, kwargs["LOAD_EVICT"], kwargs["STORE_EVICT"]))
                return kernel[grid](*args, **kwargs)
            return launch

    product = triton_relayout.k_major_product

    def gemm(a_k, a_rows, b_k, b_rows, out, o_strides, B, N, C, precision, channel_first):
        seen.append(("gemm", C))
        return product(a_k, a_rows, b_k, b_rows, out, o_strides, B, N, C, precision, channel_first)

    monkeypatch.setattr(triton_relayout, "_triangle_relayout_kernel", Recording())
    monkeypatch.setattr(triton_l2, "k_major_product", gemm)
    return seen


def test_three_launches_a_group_the_copies_kept_and_the_streams_evicted_first(launches):
    a, b = torch.randn(1, 20, 20, 11), torch.randn(1, 20, 20, 11)
    out = GROUPED["triton.relayout-l2", "outgoing", "ieee"].fn(a, b)
    torch.testing.assert_close(out, torch.einsum("bikc,bjkc->bijc", a, b), rtol=1e-5, atol=1e-4)
    group = [("relayout", 2, "evict_first", "evict_last"), ("gemm", 8), ("relayout", 1, "evict_last", "evict_first")]
    assert launches == group + [group[0], ("gemm", 3), group[2]]


def test_the_grouping_and_the_hints_change_no_bit(launches):
    """Each channel's product is the same sum in the same order whichever group computes it."""
    a, b = torch.randn(2, 19, 19, 7), torch.randn(2, 19, 19, 7)
    first = triton_l2.grouped_triangle(a, b, "incoming", "ieee", "triton", group=7)
    for group, hints in ((1, True), (3, True), (7, False)):
        assert torch.equal(triton_l2.grouped_triangle(a, b, "incoming", "ieee", "triton", group, hints), first)
    assert [kind for kind, *_ in launches].count("gemm") == 1 + 7 + 3 + 1


def test_empty_pairs_return_an_empty_output_without_a_launch(launches):
    out = GROUPED["triton.relayout-l2", "outgoing", "ieee"].fn(torch.randn(1, 0, 0, 4), torch.randn(1, 0, 0, 4))
    assert out.shape == (1, 0, 0, 4) and launches == []
