import os

# CI has no GPU: Triton kernels run under the interpreter, which must be chosen before triton is imported.
os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import registry  # noqa: E402
from mage.spec import Case  # noqa: E402

from interpreted_nan import drop_nan_as_compiled  # noqa: E402

drop_nan_as_compiled()


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


def pytest_configure(config):
    """Under pytest-xdist each worker gets its share of the cores: torch's own threads would otherwise put
    every worker on every core."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // workers))


def pytest_collection_modifyitems(config, items):
    """GPU tests under the Triton interpreter would check the interpreter, not the compiled kernels (and peers'
    kernels fail in it): on a machine with a GPU, refuse to start them so rather than report its failures."""
    if os.environ["TRITON_INTERPRET"] == "1" and torch.cuda.is_available() \
            and any(item.get_closest_marker("gpu") for item in items):
        pytest.exit("GPU tests selected with TRITON_INTERPRET=1 (this suite's default, for the CPU): set "
                    "TRITON_INTERPRET=0 to run them compiled, as scripts/h200.sh does", returncode=4)


@pytest.fixture(autouse=True)
def _deterministic():
    torch.manual_seed(0)
