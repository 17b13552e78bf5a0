"""bf16 and fp16 native kernels (matmul on tensor cores; bias_gelu, layernorm, softmax and triangle in
float32 arithmetic on 16-bit data) without a GPU: NVRTC compiles them for sm_90, they are registered at those
precisions beside ieee, their launchers refuse other dtypes by name, and under the CPU emulation
(native_emu; matmul's ldmatrix and mma computed by the PTX ISA's fragment layouts) every one of them
meets its contract, rounds its output to nearest even, and is reached by the shapes below; their sm_90
SASS holds the instructions they are written for (HMMA, ldmatrix, cp.async, 16-byte loads)."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

import pytest
import torch
import triton

from mage import registry
from mage.backends import native, rows
from mage.backends.cuda_libs import preload_nvrtc
from mage.check import check
from mage.errors import InputError
from mage.ops.layernorm import native as layernorm_native
from mage.spec import Case, input_dtype
from native_emu import EmuHost, compiler, op_kernels

registry.load()
OPS = ("matmul", "bias_gelu", "layernorm", "softmax", "triangle")
PRECISIONS = {"bf16": "bf16", "fp16": "f16"}  # precision -> the kernels' dtype tag
HOPPER = 90
needs_compiler = pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")


def _sixteen_bit_kernels(op: str, tag: str) -> set[str]:
    return {k.name for k in op_kernels(op) if tag in k.name.split("_")}


@pytest.mark.parametrize("op", OPS)
def test_the_16_bit_kernels_are_those_of_their_own_source(op):
    sixteen = {k.name for k in op_kernels(op) if k.file == native.SIXTEEN_BIT_SOURCE}
    assert sixteen == _sixteen_bit_kernels(op, "bf16") | _sixteen_bit_kernels(op, "f16")


# ---------------------------------------------------------------- NVRTC and registration


@pytest.mark.parametrize("op", OPS)
def test_the_16_bit_kernels_compile_for_sm_90(op):
    if preload_nvrtc() is None:
        pytest.skip("no libnvrtc here (install nvidia-cuda-nvrtc)")
    cubin = native.extension().compile_to_cubin(native.source(op, native.SIXTEEN_BIT_SOURCE), HOPPER, name=f"{op}16.cu")
    for tag in PRECISIONS.values():
        names = _sixteen_bit_kernels(op, tag)
        assert names, f"{op}/native.py declares no {tag} kernels"
        for name in names:
            assert name.encode() + b"\0" in cubin, f"{name} is not in the cubin of {op}"
    for kernel in op_kernels(op):  # native.cu is included for its templates only
        if kernel.file == "native.cu":
            assert kernel.name.encode() + b"\0" not in cubin, f"{kernel.name} is compiled again with the 16-bit kernels"


@pytest.mark.parametrize("op", OPS)
def test_both_host_paths_register_bf16_and_fp16_for_every_variant(op):
    spec = registry.get_op(op)
    for backend in ("native", "native-py"):
        for precision in PRECISIONS:
            impls = [i for i in registry.implementations(op) if i.backend == backend and i.precision == precision]
            assert sorted(i.variant for i in impls) == sorted(spec.variants)


def test_matmul_s_tensor_core_strategies_are_16_bit_only():
    for strategy in ("w8", "t256"):
        impls = [i for i in registry.implementations("matmul") if i.family == "native" and i.strategy == strategy]
        assert sorted(i.precision for i in impls) == ["bf16", "fp16"]


# ---------------------------------------------------------------- the launchers' dtype rules


def _launcher(op: str, host, precision: str, strategy: str = "default", variant: str | None = None):
    launcher = functools.partial(native.LAUNCHERS[(op, strategy)], host, precision=precision)
    spec = registry.get_op(op)
    if len(spec.variants) > 1:
        launcher = functools.partial(launcher, variant=variant or spec.variants[0])
    return launcher


@pytest.mark.parametrize("op", OPS)
def test_a_16_bit_kernel_refuses_float32_and_the_other_16_bit_dtype(op):
    spec = registry.get_op(op)
    case = Case(op, "t", "seed", spec.test_params[0])
    float32 = spec.make_inputs(case, 1, "cpu")
    with pytest.raises(InputError, match=r"^native kernels take bfloat16 tensors: \w+ is float32$"):
        _launcher(op, EmuHost(), "bf16")(*float32)
    half = spec.make_inputs_at(case, 1, "cpu", "normal", "fp16")
    with pytest.raises(InputError, match=r"^native kernels take bfloat16 tensors: \w+ is float16$"):
        _launcher(op, EmuHost(), "bf16")(*half)


# ---------------------------------------------------------------- under the CPU emulation

# Shapes that reach every 16-bit kernel: matmul's 128-tiles (4 blocks on the emulation's 4 SMs, K and
# N multiples of 8), its 64-tiles with and without 16-byte rows; bias_gelu's 8-wide and scalar
# columns; layernorm's warp, block and looped rows of 8-element chunks, and scalar rows; softmax's
# warp and block rows at each width class (ragged ones: 33, 1000) and its online rows; triangle's
# 64- and 32-tiles with and without 4-channel loads.
EMULATED = {
    "matmul": [{"m": 200, "k": 40, "n": 136}, {"m": 33, "k": 64, "n": 24}, {"m": 70, "k": 40, "n": 68},
               {"m": 5, "k": 0, "n": 4}],
    "bias_gelu": [{"rows": 9, "cols": 64}, {"rows": 5, "cols": 37}],
    "layernorm": [{"rows": r, "cols": c} for r, c in (
        (6, 16), (2, 400), (5, 1024), (1, 2048), (3, 4096), (1, 8000), (1, 16384), (1, 20000),
        (3, 31), (7, 33), (2, 65), (2, 255), (2, 511), (2, 999), (2, 1030), (8, 1031))],
    "softmax": [{"rows": r, "cols": c} for r, c in (
        (7, 33), (6, 64), (5, 200), (5, 1000), (2, 1030), (1, 4096), (1, 9000), (1, 16384), (1, 16411))],
    "triangle": [{"batch": 1, "n": 70, "c": 16}, {"batch": 2, "n": 9, "c": 5}, {"batch": 1, "n": 16, "c": 12},
                 {"batch": 1, "n": 66, "c": 13}],
}
# Softmax's and LayerNorm's slice strategies (their cluster kernels with one CTA) at widths that reach both of
# their 16-bit plans; 8 rows of 1031 start at every 2-byte offset of a 16-byte block, so LayerNorm reads its
# weight and bias at every alignment. LayerNorm's columns strategy on its widths of 16384 and more (a grid of one
# CTA here: tests/test_reduce_columns.py).
STRATEGY_CASES = {("matmul", "w8"): (0,), ("matmul", "t256"): (0,), ("softmax", "slice"): (4, 5, 6, 7),
                  ("layernorm", "slice"): (2, 4, 6, 14, 15), ("layernorm", "columns"): (6, 7)}
# The emulation runs blocks one after another and cannot hold a thread-block cluster's CTAs together: its
# kernels compile (above) and run on the GPU only (tests/test_reduce_wide_gpu.py, tests/test_reduce_pipe_gpu.py);
# the resident, pair and deep strategies' plans of one CTA run here in tests/test_reduce_resident.py,
# tests/test_reduce_pair.py and tests/test_reduce_deep.py.
NOT_EMULATED = ("_cluster", "_pipe", "_resident", "_pair", "_deep")
RUNS = [
    pytest.param(op, strategy, precision, params, variant, 300 + n, id=f"{op}-{strategy}-{precision}-{n}-{variant}")
    for op, cases in EMULATED.items()
    for strategy in ("default", "w8", "t256", "slice", "columns")
    if strategy == "default" or (op, strategy) in STRATEGY_CASES
    for precision in PRECISIONS
    for n, params in enumerate(cases) if n in STRATEGY_CASES.get((op, strategy), range(len(cases)))
    for variant in registry.get_op(op).variants
]
_LAUNCHED: dict[tuple, set[str]] = {}


@needs_compiler
@pytest.mark.parametrize("op, strategy, precision, params, variant, seed", RUNS)
def test_16_bit_kernels_pass_their_contract_under_emulation(op, strategy, precision, params, variant, seed):
    host = EmuHost()
    impl = registry.Implementation(op=op, family="native-emu", strategy=strategy, variant=variant, precision=precision,
                                   fn=_launcher(op, host, precision, strategy, variant))
    case = Case(op, "emulated", "seed", params, seed=seed)
    result = check(impl, registry.baseline_for(op, variant, precision), registry.get_op(op), case, "cpu", seed=seed)
    assert result.passed, result.reason
    assert host.launches, "the launcher returned without launching"
    _LAUNCHED[(op, strategy, precision, seed, variant)] = {name for name, _, _ in host.launches}


@needs_compiler
def test_the_emulated_shapes_reach_every_16_bit_kernel():
    reached = set()
    for run in RUNS:
        op, strategy, precision, params, variant, seed = run.values
        key = (op, strategy, precision, seed, variant)
        if key not in _LAUNCHED:
            host = EmuHost()
            spec = registry.get_op(op)
            _launcher(op, host, precision, strategy, variant)(
                *spec.make_inputs_at(Case(op, "e", "seed", params, seed=seed), seed, "cpu", "normal", precision))
            _LAUNCHED[key] = {name for name, _, _ in host.launches}
        reached |= _LAUNCHED[key]
    declared = {name for op in OPS for tag in PRECISIONS.values() for name in _sixteen_bit_kernels(op, tag)
                if not any(part in name for part in NOT_EMULATED)}
    assert declared <= reached, sorted(declared - reached)


def test_every_16_bit_plan_of_the_row_strategies_is_one_their_widths_need():
    """A 16-bit chunk holds 8 elements: the widths the slice, cluster, pipe and deep strategies take reach every plan
    native16.cu compiles for them (softmax's and LayerNorm's), and no other."""
    from mage.ops.softmax import native as softmax_native

    for strategy, plan_for, plans, (low, high) in (
            ("slice", rows.slice_plan, rows.SIXTEEN_BIT_SLICE_PLANS, (rows.SLICE_MIN_COLS, rows.SLICE_MAX_COLS)),
            ("cluster", rows.cluster_plan, rows.SIXTEEN_BIT_CLUSTER_PLANS,
             (rows.CLUSTER_MIN_COLS, rows.CLUSTER_MAX_COLS)),
            ("pipe", rows.pipe_plan, rows.SIXTEEN_BIT_PIPE_PLANS, (rows.PIPE_MIN_COLS, rows.PIPE_MAX_COLS)),
            ("deep", rows.deep_plan, rows.SIXTEEN_BIT_DEEP_PLANS, (rows.DEEP_MIN_COLS, rows.DEEP_MAX_COLS))):
        reached = {plan_for(cols, 8, plans) for cols in range(low, high + 1, 8)} | {plan_for(high, 8, plans)}
        assert reached == set(plans), strategy
        for module in (softmax_native, layernorm_native):
            for precision in PRECISIONS:
                assert set(getattr(module, strategy.upper())[precision]) == reached, module.__name__


@needs_compiler
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("params", [{"m": 200, "k": 64, "n": 136}, {"m": 20, "k": 64, "n": 19}], ids=["x8", "scalar"])
def test_matmul_rounds_its_float32_sums_to_nearest_even(precision, params):
    """Small integers: every product and every partial sum is exact in float32 (and in any order), and
    the sums pass the 16-bit spacing (2 above 256 in bf16, 2 above 2048 in fp16), so the output is exactly
    torch's round-to-nearest-even of the exact product; truncation or a 16-bit accumulator would differ."""
    gen = torch.Generator().manual_seed(11)
    dtype, scale = input_dtype(precision), {"bf16": 4, "fp16": 12}[precision]
    a = torch.randint(0, scale + 1, (params["m"], params["k"]), generator=gen).to(dtype)
    b = torch.randint(0, scale + 1, (params["k"], params["n"]), generator=gen).to(dtype)
    out = _launcher("matmul", EmuHost(), precision)(a, b)
    exact = a.double() @ b.double()
    assert exact.abs().max() > (256 if precision == "bf16" else 2048)
    assert out.dtype == dtype and torch.equal(out, exact.to(dtype))


# ---------------------------------------------------------------- the sm_90 SASS (cuobjdump from Triton's wheel)

SASS = {  # kernel -> instructions its SASS must hold: tensor cores fed by ldmatrix and cp.async; 16-byte loads
    ("matmul", "matmul_bf16_mma128x128_w4_x8"): ("HMMA.16816.F32.BF16", "LDSM.16.M88.4", "LDSM.16.MT88.4",
                                                 "LDGSTS.E.BYPASS.128"),
    ("matmul", "matmul_f16_mma64x64_w4_x8"): ("HMMA.16816.F32 ", "LDSM.16.MT88.4", "LDGSTS.E.BYPASS.128"),
    ("bias_gelu", "bias_gelu_f16_x8"): ("LDG.E.128", "STG.E.128"),
    ("layernorm", "layernorm_bf16_warp_x8_v4"): ("LDG.E.128", "STG.E.128"),
    ("triangle", "triangle_incoming_f16_t64_x4"): ("LDG.E.64",),
    ("softmax", "softmax_bf16_slice_t256_v8"): ("LDG.E.128", "STG.E.128", "MUFU.EX2"),
    ("softmax", "softmax_f16_cluster8_t512_v8"): ("LDG.E.128", "STG.E.128", "MUFU.EX2"),
    ("layernorm", "layernorm_bf16_cluster4_t512_v8"): ("LDG.E.128", "STG.E.128"),
    ("layernorm", "layernorm_f16_slice_t256_v8"): ("LDG.E.128", "STG.E.128"),
}


@pytest.mark.parametrize("op, kernel", list(SASS), ids=[k for _, k in SASS])
def test_the_16_bit_kernels_compile_to_the_instructions_they_are_written_for(op, kernel, tmp_path):
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if preload_nvrtc() is None or not cuobjdump.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / f"{op}.cubin"
    cubin.write_bytes(native.cubin(op, HOPPER, native.SIXTEEN_BIT_SOURCE))
    sass = subprocess.run([str(cuobjdump), "-sass", "-fun", kernel, str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    for instruction in SASS[(op, kernel)]:
        assert instruction in sass, f"{kernel}: no {instruction.strip()} in its SASS"


def test_16_bit_layernorm_normalizes_an_aligned_row_without_the_scalar_loads(tmp_path):
    """A 16-bit LayerNorm row kernel normalizes an aligned row in a loop of its own: each of a thread's 8 chunks
    loads its weight and its bias as one 16-byte load that no predicate guards. With one loop for every
    alignment, ptxas issued both forms under opposite predicates, the 16 scalar loads of the unaligned form
    beside the 2 vector loads (about 100 instructions a chunk against 58). A row off a 16-byte boundary
    whose weight and bias share its shift makes no 2-byte loads of them either."""
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if preload_nvrtc() is None or not cuobjdump.exists():
        pytest.skip("needs libnvrtc and Triton's cuobjdump")
    cubin = tmp_path / "layernorm.cubin"
    cubin.write_bytes(native.cubin("layernorm", HOPPER, native.SIXTEEN_BIT_SOURCE))
    kernels = [k.name for strategy in (layernorm_native.CLUSTER, layernorm_native.SLICE)
               for precision in ("bf16", "fp16") for k in strategy[precision].values()]
    assert len(kernels) == len(rows.SIXTEEN_BIT_CLUSTER_PLANS + rows.SIXTEEN_BIT_SLICE_PLANS) * 2
    for kernel in kernels:
        sass = subprocess.run([str(cuobjdump), "-sass", "-fun", kernel, str(cubin)], capture_output=True, text=True,
                              check=True).stdout
        unguarded = [line for line in sass.splitlines() if "LDG.E.128.CONSTANT" in line and "@" not in line]
        assert len(unguarded) >= 2 * 8, (kernel, len(unguarded))
        # A row whose weight and bias sit off a 16-byte boundary by the same shift reads them as the two blocks
        # that hold each chunk, in a loop for each of the 7 shifts: the 2-byte loads left are those of the one
        # loop for any other alignment (8 a chunk of weight and of bias, 128) and of the row's edge scalars,
        # fewer than a second such loop would add.
        two_byte = [line for line in sass.splitlines() if re.search(r"LDG\.E\.U16", line)]
        assert len(two_byte) < 2 * (2 * 8 * 8), (kernel, len(two_byte))
