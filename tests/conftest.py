import os

# CI has no GPU: Triton kernels run under the interpreter, which must be chosen before triton is imported.
os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import registry  # noqa: E402
from mage.spec import Case  # noqa: E402


@pytest.fixture
def layernorm():
    """The layernorm spec, its eager baseline and a small case."""
    spec = registry.get_op("layernorm")
    eager = registry.baseline_for("layernorm", "affine", "ieee")
    case = Case("layernorm", "33x65", "seed", {"rows": 33, "cols": 65}, seed=7)
    return spec, eager, case


@pytest.fixture
def impl_like():
    """An Implementation of the same op/variant/precision as ``base`` with another function."""

    def make(base, fn, family="fixture"):
        return registry.Implementation(op=base.op, family=family, variant=base.variant,
                                       precision=base.precision, fn=fn)

    return make


@pytest.fixture(autouse=True)
def _deterministic():
    torch.manual_seed(0)
