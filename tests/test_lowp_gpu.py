"""bf16 and fp16 native kernels on a CUDA device: the tensor-core matmul's output equal to the float32
sums rounded to nearest even, ragged shapes reaching every 16-bit kernel, and each implementation (every
strategy; the Rust host path: native-py launches the same cubin, and tests/test_native_gpu.py checks both)
against its contract at the seed case and at those shapes. Quickest first, for a bounded call. Skipped
where no CUDA device is visible: ``pytest -m gpu tests/test_lowp_gpu.py``."""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends import native
from mage.check import check, mage_s_own
from mage.spec import Case, input_dtype
from native_emu import op_kernels

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

registry.load()
OPS = ("matmul", "bias_gelu", "layernorm", "softmax", "triangle")
TAGS = {"bf16": "bf16", "fp16": "f16"}
LOWP = [i for op in OPS for i in registry.implementations(op)
        if i.family in ("native", "native-py") and i.precision in TAGS]
# Ragged shapes that take every kernel choice on 132 SMs: matmul's 128-tiles (169 blocks, M and N not
# multiples of 128), its 64-tiles with and without 16-byte rows, an empty K; bias_gelu's and layernorm's
# 8-wide and scalar rows at each layernorm width class, their slice and cluster rows past 1024 columns; softmax's
# warp, slice, cluster and online rows; every plan of
# both ops' 16-bit slice and cluster strategies, ragged widths among them; triangle's 64- and 32-tiles, 4-channel
# and scalar. A strategy that declares a width refused (its takes: the cluster's 1024 columns and more) is
# not called on it.
RAGGED = {
    "matmul": [{"m": 1544, "k": 1032, "n": 1552}, {"m": 129, "k": 257, "n": 131}, {"m": 1000, "k": 1000, "n": 1000},
               {"m": 17, "k": 31, "n": 9}, {"m": 5, "k": 0, "n": 4}],
    "bias_gelu": [{"rows": 5, "cols": 37}, {"rows": 300000, "cols": 8}, {"rows": 3, "cols": 1001},
                  {"rows": 7, "cols": 4096}],
    "layernorm": [{"rows": r, "cols": c} for r, c in (
        (3, 256), (2, 400), (5, 1000), (3, 2048), (5, 4096), (2, 8000), (2, 16384), (2, 20000),
        (3, 31), (7, 33), (4, 100), (2, 130), (4, 500), (9, 999), (3, 1030), (2, 40000), (3, 70000), (2, 140000),
        (1, 262150))],
    "softmax": [{"rows": r, "cols": c} for r, c in (
        (7, 33), (5, 64), (9, 200), (5, 1000), (3, 1030), (2, 4096), (2, 9000), (2, 16384), (2, 16411), (2, 40000),
        (3, 70000), (2, 140000), (1, 262150))],
    "triangle": [{"batch": 2, "n": 9, "c": 5}, {"batch": 1, "n": 257, "c": 7}, {"batch": 3, "n": 200, "c": 16},
                 {"batch": 1, "n": 384, "c": 64}, {"batch": 1, "n": 384, "c": 63}],
}


def IDS(impl) -> str:
    return f"{impl.op}:{impl.name}"


class _Recorder:
    """Wraps a host's launch to record the kernel names launched."""

    def __init__(self, monkeypatch):
        self.names: set[str] = set()
        for host in native.HOSTS:
            original = host.launch

            def launch(kernel, *args, _original=original, **kwargs):
                self.names.add(kernel.name)
                return _original(kernel, *args, **kwargs)

            monkeypatch.setattr(host, "launch", launch)


def _check(impl, case: Case, seed: int):
    result = check(impl, registry.baseline_of(impl), registry.get_op(impl.op), case, "cuda", seed=seed)
    assert result.passed, f"{case.params}: {result.reason}"
    return result


def test_the_ragged_shapes_reach_every_16_bit_kernel(monkeypatch):
    recorder = _Recorder(monkeypatch)
    for impl in (i for i in LOWP if i.family == "native"):
        spec = registry.get_op(impl.op)
        for index, params in enumerate(RAGGED[impl.op]):
            if impl.case_skip_reason(params) is None:
                case = Case(impl.op, "r", "seed", params, seed=index)
                impl.fn(*spec.make_inputs_at(case, index, "cuda", "normal", impl.precision))
    torch.cuda.synchronize()
    declared = {k.name for op in OPS for k in op_kernels(op) for tag in TAGS.values() if tag in k.name.split("_")}
    assert declared <= recorder.names, sorted(declared - recorder.names)


@pytest.mark.parametrize("impl", [i for i in LOWP if i.op == "matmul" and i.family == "native"], ids=IDS)
def test_tensor_core_matmul_rounds_exact_float32_sums_to_nearest_even(impl):
    """Small non-negative integers: every product and partial sum is exact in float32, whatever the
    order of the tensor cores' additions, and the sums pass the 16-bit spacing, so the output must be
    exactly the rounding of the exact product (a wrong fragment layout, a 16-bit accumulator or
    truncation would not be)."""
    dtype, scale = input_dtype(impl.precision), {"bf16": 4, "fp16": 12}[impl.precision]
    gen = torch.Generator(device="cuda").manual_seed(5)
    for m, k, n in ((2048, 256, 2056), (100, 64, 36)):
        a = torch.randint(0, scale + 1, (m, k), generator=gen, device="cuda").to(dtype)
        b = torch.randint(0, scale + 1, (k, n), generator=gen, device="cuda").to(dtype)
        exact = a.double() @ b.double()
        assert torch.equal(impl.fn(a, b), exact.to(dtype)), (m, k, n)


@pytest.mark.parametrize("impl", [i for i in LOWP if i.family == "native"], ids=IDS)
def test_contract_at_the_seed_case_and_ragged_shapes(impl):
    assert impl.unavailable_reason("cuda") is None
    spec = registry.get_op(impl.op)
    for case in spec.cases():
        # The wide-row strategies (resident, columns, pair: 16384 columns and more) refuse the seed's 1024 columns.
        if case.suite == "seed" and impl.case_skip_reason(case.params) is None:
            _check(impl, case, 2024)
    for index, params in enumerate(RAGGED[impl.op]):
        if impl.case_skip_reason(params) is None:
            _check(impl, Case(impl.op, f"ragged-{index}", "seed", params, seed=700 + index), 31 + index)


@pytest.mark.parametrize("precision", tuple(TAGS))
@pytest.mark.parametrize("cols", (4099, 16411, 1000))
def test_a_16_bit_row_of_one_large_value_normalizes_to_its_bias_in_every_layernorm(precision, cols):
    """1e4 + N(0, 1) rounds to one bf16 value (9984) a row: the row's spread is 0 and LayerNorm gives its bias
    exactly, in float64 and eager. A mean divided approximately (Triton's float32 ``/``) is an ulp off at widths
    that are not powers of two, which makes the row a full-scale error (16373×4099 bf16's large-mean failure)."""
    dtype = input_dtype(precision)
    x = torch.full((5, cols), 1e4, device="cuda").to(dtype)
    weight, bias = torch.randn(cols, device="cuda").to(dtype), torch.randn(cols, device="cuda").to(dtype)
    for impl in registry.implementations("layernorm"):
        if impl.precision == precision and not impl.unavailable_reason("cuda") and not impl.fails \
                and impl.case_skip_reason({"rows": 5, "cols": cols}) is None:
            out = impl.fn(x, weight, bias)
            off = f"{impl.name}: {(out.float() - bias.float()).abs().max()} off its bias"
            if mage_s_own(impl):
                assert torch.equal(out, bias.expand_as(out)), off
            elif not torch.equal(out, bias.expand_as(out)):
                print(off)  # a baseline's or a library's: reported, as its contract failure would be
