"""The non-finite contract on the GPU (run with `pytest -m gpu`), where Triton's kernels are compiled: a compiled
``tl.maximum`` drops a NaN that the CPU tier's interpreter is only made to drop (tests/interpreted_nan.py).

Every registered implementation, at every precision it declares, on a small test shape and on its seed case:
Mage's own pass; the eager baseline and the libraries may fail (they are timed all the same, with the failure
beside their numbers), and what they get wrong is printed."""

import pytest
import torch

from cheats import nan_to_number
from mage import check, registry
from mage.registry import Implementation
from mage.spec import NONFINITE, Case, input_dtype
from test_implementations import _small_case
from test_nonfinite import DEGENERATE_GRAPHS, _guarded_softmax, _nonfinite_only

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

registry.load()
IMPLEMENTATIONS = [impl for op in sorted(registry.ops()) for impl in registry.implementations(op)]


def _cases(spec, impl) -> list[Case]:
    seed = next(case for case in spec.cases() if case.suite == "seed")
    return [_small_case(spec, impl)] + ([seed] if impl.case_skip_reason(seed.params) is None else [])


@pytest.mark.parametrize("impl", IMPLEMENTATIONS, ids=lambda impl: f"{impl.op}:{impl.name}")
def test_every_implementation_on_non_finite_inputs(impl):
    if impl.unavailable_reason("cuda"):
        pytest.skip(impl.unavailable_reason("cuda"))
    if impl.fails:
        pytest.skip(f"registered to fail: {impl.fails}")
    spec = registry.get_op(impl.op)
    for case in _cases(spec, impl):
        result = check.check(impl, registry.baseline_of(impl), _nonfinite_only(spec), case, "cuda", seed=2024)
        if check.mage_s_own(impl):
            assert result.passed, f"{case.name}: {result.reason}"
        elif not result.passed:
            print(f"{impl.op}:{impl.name} on {case.name}, timed all the same: {result.reason}")


@pytest.mark.parametrize("shape", [(7, 4099), (3, 65537), (64, 8192), (128, 1000), (512, 2048)], ids=str)
def test_one_nan_makes_its_softmax_row_nan_in_every_implementation(shape):
    x = torch.randn(*shape, device="cuda")
    x[0, shape[1] // 2] = float("nan")
    for impl in registry.implementations("softmax"):
        if impl.unavailable_reason("cuda") or impl.case_skip_reason({"rows": shape[0], "cols": shape[1]}):
            continue
        out = impl.fn(x.to(input_dtype(impl.precision)))
        assert out[0].isnan().all(), f"{impl.name}: {int(out[0].isnan().sum())} NaN in row 0"
        assert torch.isfinite(out[1:]).all(), impl.name


def test_a_triton_softmax_whose_guards_swallow_nan_fails_compiled():
    spec, eager = _nonfinite_only(registry.get_op("softmax")), registry.baseline_for("softmax", "rows", "ieee")
    guarded = Implementation(op="softmax", family="triton", strategy="guarded", variant="rows", precision="ieee",
                             fn=_guarded_softmax)
    result = check.check(guarded, eager, spec, Case("softmax", "t", "seed", {"rows": 7, "cols": 4099}, 3), "cuda", 5)
    assert not result.passed and result.failed_on == NONFINITE


def test_turning_nan_into_numbers_fails_on_the_gpu(impl_like):
    spec = registry.get_op("layernorm")
    eager = registry.baseline_for("layernorm", "affine", "ieee")
    case = next(case for case in spec.cases() if case.suite == "seed")
    result = check.check(impl_like(eager, nan_to_number.cheat(eager.fn)), eager, spec, case, "cuda", seed=5)
    assert not result.passed and result.failed_on == NONFINITE


@pytest.mark.parametrize("variant", ("sum", "mean"))
@pytest.mark.parametrize("graph", DEGENERATE_GRAPHS, ids=str)
def test_every_neighbor_agg_answers_degenerate_graphs_compiled(graph, variant):
    rowptr, col, features = DEGENERATE_GRAPHS[graph]
    for index in (torch.int32, torch.int64):
        inputs = (torch.tensor(rowptr, dtype=index, device="cuda"), torch.tensor(col, dtype=index, device="cuda"),
                  torch.randn(len(rowptr) - 1, features, device="cuda"))
        ref = registry.get_op("neighbor_agg").reference(check.upcast(inputs), variant)
        for impl in registry.implementations("neighbor_agg"):
            if impl.variant == variant and not impl.unavailable_reason("cuda"):
                out = impl.fn(*inputs)
                assert torch.allclose(out.double(), ref, atol=1e-6), f"{impl.name} ({index})"
