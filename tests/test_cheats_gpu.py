"""Cheats that only a GPU can commit: work left running on a side stream (run with `pytest -m gpu`)."""

import pytest
import torch

from mage import registry
from mage.check import check
from mage.outputs import empty_output

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]


def _matmul():
    spec = registry.get_op("matmul")
    eager = next(i for i in registry.implementations("matmul") if i.name == "eager/default/ieee")
    return spec, eager, spec.case("1024x1024x1024")


def test_work_left_on_a_side_stream_fails_the_contract(impl_like):
    spec, eager, case = _matmul()

    def on_a_side_stream(a, b):
        out = empty_output((a.shape[0], b.shape[1]), like=a)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            torch.cuda._sleep(2_000_000)  # about a millisecond: still running when the call returns
            torch.matmul(a, b, out=out)
        return out

    result = check(impl_like(eager, on_a_side_stream), eager, spec, case, "cuda", seed=3)
    assert not result.passed and "another stream" in result.reason


def test_the_eager_baseline_leaves_nothing_running(impl_like):
    spec, eager, case = _matmul()
    assert check(eager, eager, spec, case, "cuda", seed=3).passed
