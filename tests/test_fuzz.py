"""Fuzzed inputs get a clear error: InputError from the ops' checks, exit code 2 from the CLI.

Run with --hypothesis-show-statistics to see how many valid and invalid inputs were tried.
"""

import contextlib
import io

import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mage import registry
from mage.cli import main
from mage.errors import InputError
from mage.measure.method import PATHS

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
INDEX_DTYPES = (torch.int32, torch.int64)
ODD_DTYPES = (torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.bool, torch.uint8)


def _csr_problem(rowptr: torch.Tensor, col: torch.Tensor, x: torch.Tensor) -> bool:
    """An independent statement of a valid CSR graph over x's rows: True when something is wrong."""
    if rowptr.dtype not in INDEX_DTYPES or col.dtype != rowptr.dtype or x.dtype != torch.float32:
        return True
    if rowptr.dim() != 1 or col.dim() != 1 or x.dim() != 2 or rowptr.numel() == 0:
        return True
    offsets, sources = rowptr.tolist(), col.tolist()
    return (offsets[0] != 0 or any(b < a for a, b in zip(offsets, offsets[1:])) or offsets[-1] != len(sources)
            or any(not 0 <= s < x.shape[0] for s in sources))


@st.composite
def csr_graphs(draw):
    rows = draw(st.integers(0, 6))
    degrees = draw(st.lists(st.integers(0, 4), min_size=rows, max_size=rows))
    offsets = [0]
    for degree in degrees:
        offsets.append(offsets[-1] + degree)
    n_src = draw(st.integers(0, 6))
    sources = draw(st.lists(st.integers(0, max(n_src - 1, 0)), min_size=offsets[-1], max_size=offsets[-1]))
    # Then break it, or not: any offset or source may be replaced by an arbitrary integer.
    offsets = draw(st.one_of(st.just(offsets), st.lists(st.integers(-3, 12), max_size=8)))
    if draw(st.booleans()):
        sources = [draw(st.integers(-3, 8)) if draw(st.booleans()) else s for s in sources]
    index = draw(st.sampled_from(INDEX_DTYPES))
    rowptr = torch.tensor(offsets, dtype=draw(st.sampled_from(INDEX_DTYPES + ODD_DTYPES[:1])) if draw(
        st.integers(0, 9)) == 0 else index)
    col = torch.tensor(sources, dtype=index if draw(st.integers(0, 9)) else draw(st.sampled_from(INDEX_DTYPES)))
    x = torch.randn(n_src, draw(st.integers(1, 3)), dtype=torch.float32 if draw(st.integers(0, 9)) else torch.float64)
    if draw(st.integers(0, 19)) == 0:
        x = x.reshape(-1)
    return rowptr, col, x


@FUZZ
@given(csr_graphs())
def test_csr_validation_accepts_exactly_the_valid_graphs(graph):
    spec = registry.get_op("neighbor_agg")
    if _csr_problem(*graph):
        event("invalid graph")
        with pytest.raises(InputError):
            spec.check_inputs(*graph)
        event("invalid graph: clear InputError")
    else:
        event("valid graph")
        spec.check_inputs(*graph)


def _smallest_inputs(op: str) -> tuple:
    spec = registry.get_op(op)
    case = min(spec.cases(), key=lambda c: spec.flops(c, spec.variants[0]) + spec.bytes(c, spec.variants[0]))
    return spec.make_inputs(case, case.seed, "cpu")


INPUTS = {op: _smallest_inputs(op) for op in sorted(registry.ops())}


@st.composite
def broken_inputs(draw):
    """One op's valid inputs with one of them replaced: another dtype, device, shape, or no tensor at all."""
    op = draw(st.sampled_from(sorted(INPUTS)))
    inputs = list(INPUTS[op])
    position = draw(st.integers(0, len(inputs) - 1))
    original = inputs[position]
    # Inputs on different devices need two inputs: one alone (softmax's) has no other device to disagree with.
    kind = draw(st.sampled_from(["dtype", *(["device"] if len(inputs) > 1 else []), "not a tensor", "shape"]))
    if kind == "dtype":
        # A lone input in another precision the op declares (softmax's x in bf16) is valid, not broken; beside
        # other inputs the dtypes disagree, which is.
        accepted = registry.get_op(op).input_dtypes() if len(inputs) == 1 else ()
        inputs[position] = original.to(draw(st.sampled_from([d for d in ODD_DTYPES if d not in accepted])))
    elif kind == "device":
        inputs[position] = original.to("meta")
    elif kind == "not a tensor":
        inputs[position] = draw(st.sampled_from([None, 3, 2.5, "x", [1.0, 2.0], original.numpy()]))
    else:
        shape = draw(st.lists(st.integers(0, 5), min_size=0, max_size=4))
        inputs[position] = torch.zeros(shape, dtype=original.dtype)
    return op, kind, tuple(inputs)


@FUZZ
@given(broken_inputs())
def test_every_ops_validate_refuses_wrong_inputs_with_an_input_error(broken):
    op, kind, inputs = broken
    spec = registry.get_op(op)
    if kind == "shape":  # a shape may happen to be valid; it must never raise anything but InputError
        try:
            spec.validate(*inputs)
            event("shape: accepted")
        except InputError:
            event("shape: clear InputError")
        return
    with pytest.raises(InputError):
        spec.validate(*inputs)
    event(f"{kind}: clear InputError")


def _known_implementation(pattern: str) -> bool:
    return any(registry.select(op, [pattern]) for op in registry.ops())


BAD_NAMES = st.text(min_size=1, max_size=20).filter(lambda s: s not in registry.ops() and s not in PATHS
                                                     and not _known_implementation(s))
SUITES = ("seed", "large", "sweep", "reduction", "schedule", "all")


def _mage(*args: str) -> tuple[int, str]:
    """`mage ARGS` in this process, as the installed command runs it: (exit code, everything printed)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), \
            pytest.raises(SystemExit) as exited, pytest.MonkeyPatch.context() as patch:
        patch.setattr("sys.argv", ["mage", *args])
        main()
    return exited.value.code, printed.getvalue()


@FUZZ
@given(option=st.sampled_from(["--op", "--impl", "--path", "--suite", "--budget", "--resume"]), bad=BAD_NAMES)
def test_bad_cli_arguments_exit_2_with_a_message_and_no_traceback(tmp_path_factory, option, bad):
    if option == "--suite" and bad in SUITES or option in ("--budget", "--resume") and _is_number(bad):
        return
    code, printed = _mage("run", "--op", "layernorm", "--db", str(tmp_path_factory.getbasetemp() / "none.db"),
                          option, bad)
    event(f"{option}: exit {code}")
    assert code == 2 and "Traceback" not in printed and "error" in printed.lower()


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
