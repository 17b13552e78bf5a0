"""The native backends without a GPU: NVRTC compiles every kernel for sm_90 (the pip wheel's
libnvrtc needs no device), inputs are refused by name before any launch, errors are Python
exceptions, and every kernel computes the right thing under the CPU emulation (native_emu)."""

from __future__ import annotations

import functools
import importlib
import os
import uuid

import pytest
import torch

from mage import registry
from mage.backends import native
from mage.backends.cuda_libs import preload_nvrtc
from mage.check import check
from mage.errors import InputError
from mage.spec import Case
from native_emu import EmuHost, compiler, op_kernels
from tiers import slow_for_studies

NATIVE_OPS = sorted(native.sources())
needs_compiler = pytest.mark.skipif(compiler() is None, reason="the CPU emulation needs g++ or clang++")
HOPPER = 90
LAUNCHERS = {op: getattr(importlib.import_module(f"mage.ops.{op}.native"), op) for op in NATIVE_OPS}
# Every registered launcher of float32 kernels, strategies included (mage.ops.<op>.native registered them on
# import above); the bf16/fp16 kernels are emulated in test_lowp_native.
STRATEGIES = {op: sorted({i.strategy for i in registry.implementations(op) if i.family == "native" and i.precision == "ieee"})
              for op in NATIVE_OPS}
SIXTEEN_BIT = ("bf16", "fp16")


@pytest.fixture(scope="module")
def ext(tmp_path_factory):
    """The extension, with libnvrtc preloaded and the cubin cache in a temporary directory."""
    if preload_nvrtc() is None:
        pytest.skip("no libnvrtc here (install nvidia-cuda-nvrtc)")
    previous = os.environ.get("MAGE_CACHE_DIR")
    os.environ["MAGE_CACHE_DIR"] = str(tmp_path_factory.mktemp("mage-cache"))
    yield native.extension()
    if previous is None:
        del os.environ["MAGE_CACHE_DIR"]
    else:
        os.environ["MAGE_CACHE_DIR"] = previous


def test_libnvrtc_is_found_in_the_pip_wheel_or_the_toolkit():
    path = preload_nvrtc()
    if path is None:
        pytest.skip("no libnvrtc here (install nvidia-cuda-nvrtc)")
    assert os.path.basename(path).startswith("libnvrtc.so.13")


# ---------------------------------------------------------------- NVRTC, on the CPU


def test_every_op_with_native_implementations_has_its_kernels_compiled_here():
    registered = {op for op in registry.ops() for i in registry.implementations(op) if i.family == "native"}
    assert registered and set(NATIVE_OPS) == registered


@pytest.mark.parametrize("op", NATIVE_OPS)
def test_every_kernel_compiles_for_sm_90(ext, op):
    cubin = ext.compile_to_cubin(native.source(op), HOPPER, name=f"{op}.cu")
    assert cubin[:4] == b"\x7fELF"
    kernels = [k for k in op_kernels(op) if k.file == "native.cu"]  # native16.cu's: test_lowp_native
    assert kernels, f"{op}/native.py declares no kernels"
    for kernel in kernels:
        assert kernel.name.encode() + b"\0" in cubin, f"{kernel.name} is not in the cubin of {op}"
    assert native.cubin(op, HOPPER) == cubin  # the native-py path gets the very same bytes


def test_local_includes_are_pasted_in_relative_to_the_including_file(tmp_path, monkeypatch):
    (tmp_path / "shared.cuh").write_text('#include "inner.cuh"\n#define OUTER 2\n')
    (tmp_path / "inner.cuh").write_text("#define INNER 1\n")
    (tmp_path / "op").mkdir()
    (tmp_path / "op" / "native.cu").write_text('#include "../shared.cuh"\n#include <cuda_fp16.h>\nint x = INNER + OUTER;\n')
    monkeypatch.setattr(native, "OPS_DIR", tmp_path)
    native.source.cache_clear()
    try:
        text = native.source("op")
    finally:
        native.source.cache_clear()
    assert text == "#define INNER 1\n\n#define OUTER 2\n\n#include <cuda_fp16.h>\nint x = INNER + OUTER;\n"


def test_the_tiled_kernels_share_one_header():
    header = (native.OPS_DIR.parent / "backends" / "native_tiles.cuh").read_text()
    for op in ("matmul", "triangle"):
        assert header in native.source(op) and "#include" not in native.source(op)


def test_compile_errors_carry_the_nvrtc_name_and_log(ext):
    source = 'extern "C" __global__ void broken(float* p) { p[0] = not_declared; }'
    with pytest.raises(ext.CompileError, match=r"NVRTC_ERROR_COMPILATION[\s\S]*not_declared") as caught:
        ext.compile_to_cubin(source, HOPPER)
    assert isinstance(caught.value, ext.CudaError) and isinstance(caught.value, RuntimeError)


def test_fast_math_is_not_in_the_default_options(ext):
    options = ext.default_options()
    assert "-std=c++17" in options
    assert not any("fast-math" in o or "use_fast_math" in o for o in options)


def test_cubins_are_cached_on_disk_by_source_target_and_options(ext, tmp_path, monkeypatch):
    monkeypatch.setenv("MAGE_CACHE_DIR", str(tmp_path))
    source = f'// {uuid.uuid4()}\nextern "C" __global__ void k(float* p) {{ p[threadIdx.x] = 1.0f; }}\n'
    key = ext.cache_key(source, HOPPER)
    assert key == ext.cache_key(source, HOPPER) and len(key) == 64
    assert key != ext.cache_key(source, 80)
    assert key != ext.cache_key(source, HOPPER, ["-std=c++17", "-lineinfo"])
    assert ext.cache_dir() == str(tmp_path / "nvrtc")
    first = ext.compile_to_cubin(source, HOPPER)
    cached = tmp_path / "nvrtc" / f"{key}.cubin"
    assert cached.read_bytes() == first
    assert [p.name for p in cached.parent.iterdir()] == [cached.name]  # no temporary files left


def test_a_corrupt_cache_entry_is_recompiled(ext, tmp_path, monkeypatch):
    monkeypatch.setenv("MAGE_CACHE_DIR", str(tmp_path))
    source = f'// {uuid.uuid4()}\nextern "C" __global__ void k(int* p) {{ p[0] = 7; }}\n'
    path = tmp_path / "nvrtc" / f"{ext.cache_key(source, HOPPER)}.cubin"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a cubin")
    assert ext.compile_to_cubin(source, HOPPER)[:4] == b"\x7fELF"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda e: e.compile_to_cubin("x", 9), "arch must be a compute capability"),
        (lambda e: e.compile_to_cubin("x", HOPPER, ["-arch=sm_80"]), "the target comes from arch"),
        (lambda e: e.compile_to_cubin("x\0y", HOPPER), "NUL"),
        (lambda e: e.load_kernel("x", "k", "pz", 0), r'signature "pz" has .z.'),
    ],
)
def test_bad_arguments_are_value_errors(ext, call, message):
    with pytest.raises(ValueError, match=message):
        call(ext)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error raised where there is no driver")
def test_without_a_driver_device_calls_raise_cuda_error_not_panic(ext):
    with pytest.raises(ext.CudaError, match="libcuda|CUDA_ERROR"):
        ext.device_arch(0)
    with pytest.raises(ext.CudaError):
        ext.load_kernel(native.source("bias_gelu"), "bias_gelu_f32", "pppli", 0)


# ---------------------------------------------------------------- registration


@pytest.mark.parametrize("op", NATIVE_OPS)
def test_both_host_paths_are_registered_for_every_variant(op):
    spec = registry.get_op(op)
    for backend in ("native", "native-py"):
        impls = [i for i in registry.implementations(op) if i.backend == backend]
        precisions = {i.precision for i in impls}
        assert precisions in ({"ieee"}, {"ieee", *SIXTEEN_BIT})
        for precision in precisions:
            assert sorted(i.variant for i in impls if i.precision == precision) == sorted(spec.variants)
        for impl in impls:
            assert impl.unavailable_reason("cpu") == "native kernels need a CUDA device, not 'cpu'"


# ---------------------------------------------------------------- input checks, before any launch


def f32(*shape):
    return torch.randn(*shape)


def i64(*values):
    return torch.tensor(values, dtype=torch.int64)


GOOD = {
    "bias_gelu": lambda: (f32(4, 8), f32(8)),
    "layernorm": lambda: (f32(4, 8), f32(8), f32(8)),
    "softmax": lambda: (f32(4, 8),),
    "matmul": lambda: (f32(4, 8), f32(8, 3)),
    "triangle": lambda: (f32(1, 5, 5, 4), f32(1, 5, 5, 4)),
    "neighbor_agg": lambda: (i64(0, 2, 3), i64(0, 1, 1), f32(2, 4)),
}

def _native_fns(op: str):
    """Every registered native implementation of ``op`` (both host paths, every variant)."""
    return [i.fn for i in registry.implementations(op) if i.backend in ("native", "native-py")]


@pytest.mark.parametrize("op", NATIVE_OPS)
def test_cpu_tensors_are_refused_by_device(op):
    for fn in _native_fns(op):
        with pytest.raises(InputError, match=r"native kernels run on cuda tensors: \w+ is on cpu"):
            fn(*GOOD[op]())


NON_CONTIGUOUS = {
    "bias_gelu": lambda: (f32(8, 4).t(), f32(8)),
    "layernorm": lambda: (f32(4, 16)[:, ::2], f32(8), f32(8)),
    "softmax": lambda: (f32(4, 16)[:, ::2],),
    "matmul": lambda: (f32(4, 8), f32(3, 8).t()),
    "triangle": lambda: (f32(1, 5, 5, 4), f32(1, 4, 5, 5).permute(0, 2, 3, 1)),
    "neighbor_agg": lambda: (i64(0, 2, 3), i64(0, 1, 1), f32(4, 2).t()),
}


def _emulated_launcher(op):
    """``op``'s native launcher on the emulation host, its spec's first variant bound where it takes one."""
    launcher = functools.partial(LAUNCHERS[op], EmuHost())
    if op in ("triangle", "neighbor_agg"):
        launcher = functools.partial(launcher, variant=registry.get_op(op).variants[0])
    return launcher


@pytest.mark.parametrize("op", NATIVE_OPS)
def test_non_contiguous_inputs_are_refused(op):
    # On the emulation host (CPU tensors) the device check passes and the layout check speaks.
    with pytest.raises(InputError, match=r"must be contiguous for native kernels"):
        _emulated_launcher(op)(*NON_CONTIGUOUS[op]())


LOW_PRECISION_OPS = [op for op in NATIVE_OPS if "bf16" in registry.get_op(op).precisions]


@pytest.mark.parametrize("op", LOW_PRECISION_OPS)
def test_16_bit_inputs_the_spec_accepts_are_refused_by_the_float32_kernels(op):
    # The spec validates bf16 for its bf16 implementations; a float32 kernel must not read them as float32.
    spec = registry.get_op(op)
    inputs = spec.make_inputs_at(Case(op, "t", "seed", spec.test_params[0]), 1, "cpu", "normal", "bf16")
    spec.validate(*inputs)
    with pytest.raises(InputError, match=r"native kernels take float32 tensors: \w+ is bfloat16"):
        _emulated_launcher(op)(*inputs)


def test_holds_float32_is_true_only_for_contiguous_float32_tensors_on_one_device_of_the_host():
    host, x = EmuHost(), torch.zeros(4, 4)
    assert host.holds_float32(x) and host.holds_float32(x, torch.zeros(4))
    for bad in (x.double(), x.t(), x.to("meta"), x.tolist()):
        assert not host.holds_float32(bad, x) and not host.holds_float32(x, bad)


@needs_compiler
def test_the_graph_is_validated_once_until_it_changes(monkeypatch):
    from mage.ops.neighbor_agg import native as agg

    calls = []
    original = agg.SPEC.validate_values
    monkeypatch.setattr(agg.SPEC, "validate_values", lambda *a: calls.append(1) or original(*a))
    run = functools.partial(agg.neighbor_agg, EmuHost(), variant="sum")
    rowptr, col, x = i64(0, 2, 3), i64(0, 1, 1), f32(2, 4)
    run(rowptr, col, x)
    run(rowptr, col, f32(2, 8))  # same graph, new x with as many rows: no second validation
    assert len(calls) == 1
    col[0] = 1  # in place: torch bumps col's version counter
    run(rowptr, col, x)
    assert len(calls) == 2
    with pytest.raises(InputError, match="out of range"):
        run(rowptr, col, f32(1, 4))  # fewer rows of x: checked again
    with pytest.raises(InputError, match="x must have dtype float32"):
        run(rowptr, col, x.double())  # refused by validate, before the values are read
    assert len(calls) == 3


# ---------------------------------------------------------------- launch plans


def test_layernorm_plans_keep_the_seed_and_large_rows_in_registers():
    from mage.ops.layernorm.native import plan

    assert plan(1024, 1024, True)[0].name == "layernorm_f32_warp_x4_v8"
    kernel, grid, block = plan(65536, 4096, True)
    assert (kernel.name, grid, block) == ("layernorm_f32_block256_x4", (65536, 1, 1), (256, 1, 1))
    assert plan(7, 33, False)[0].name == "layernorm_f32_warp_v2"
    assert plan(3, 1030, False)[0].name == "layernorm_f32_looped"
    assert plan(3, 70000, True)[0].name == "layernorm_f32_looped"


# ---------------------------------------------------------------- kernels under the CPU emulation

EMULATED = {
    "bias_gelu": [{"rows": 5, "cols": 37}, {"rows": 9, "cols": 64}, {"rows": 1, "cols": 1024}],
    # One shape per kernel: float4 rows up to 128·V (warp) and 16·threads (block), scalar rows
    # up to 32·V (warp), then the looped kernel.
    "layernorm": [
        {"rows": 6, "cols": 12},
        {"rows": 2, "cols": 200},
        {"rows": 2, "cols": 400},
        {"rows": 5, "cols": 1024},
        {"rows": 1, "cols": 2048},
        {"rows": 3, "cols": 4096},
        {"rows": 1, "cols": 8000},
        {"rows": 1, "cols": 16384},
        {"rows": 3, "cols": 31},
        {"rows": 7, "cols": 33},
        {"rows": 2, "cols": 65},
        {"rows": 2, "cols": 255},
        {"rows": 2, "cols": 511},
        {"rows": 2, "cols": 999},
        {"rows": 2, "cols": 1030},
        {"rows": 5, "cols": 4099},  # the slice strategy's plans at their widest (4099: rows at every alignment)
        {"rows": 2, "cols": 8195},
        {"rows": 2, "cols": 16387},
        {"rows": 1, "cols": 20000},
    ],
    # One shape per kernel: a warp per row up to 32·V columns, then the slice (the default hands it 3000 and 9000)
    # and online kernels (20000: the emulation runs no cluster); then the slice strategy's plans at their widest.
    "softmax": [{"rows": r, "cols": c} for r, c in ((5, 37), (3, 200), (6, 1000), (2, 3000), (1, 9000), (2, 20000),
                                                    (5, 4099), (2, 8195), (2, 16387))],
    "matmul": [
        {"m": 17, "k": 31, "n": 9},
        {"m": 1, "k": 64, "n": 1},
        {"m": 70, "k": 36, "n": 68},
        {"m": 300, "k": 21, "n": 260},
        {"m": 260, "k": 20, "n": 300},
        {"m": 5, "k": 0, "n": 4},
    ],
    "triangle": [
        {"batch": 2, "n": 9, "c": 5},
        {"batch": 1, "n": 16, "c": 12},
        {"batch": 1, "n": 70, "c": 16},
        {"batch": 1, "n": 66, "c": 13},
        {"batch": 1, "n": 9, "c": 6},  # scalar rows on 32-tiles for 4 channels a block too (native.c4)
    ],
    "neighbor_agg": [
        {"graph": "uniform", "nodes": 64, "degree": 4, "features": 8, "index": "int32"},
        {"graph": "powerlaw", "nodes": 1024, "edges": 8192, "features": 16, "index": "int64"},
        {"graph": "powerlaw", "nodes": 600, "edges": 40000, "features": 260, "index": "int32"},
        {"graph": "rmat", "nodes": 512, "scale": 9, "edge_factor": 8, "features": 7, "index": "int32"},
        {"graph": "powerlaw", "nodes": 300, "edges": 30000, "features": 3, "index": "int64"},
        # a hub above the default's HUB_ROW: its pieces and their arrival counters (half the edges in the hub keeps
        # the emulation's work small)
        {"graph": "hub", "nodes": 1024, "edges": 18000, "share": 0.5, "features": 12, "index": "int64"},
    ],
}
# Strategies the emulation cannot run: it runs blocks one after another, and a thread-block cluster's CTAs
# must be resident together. Their kernels (named <op>_f32_<strategy>…) are compiled here and checked on
# the GPU (tests/test_reduce_wide*.py, tests/test_reduce_pipe*.py, tests/test_reduce_resident*.py,
# tests/test_reduce_pair*.py and tests/test_reduce_deep*.py, whose plan of one CTA the emulation runs there).
NOT_EMULATED = ("cluster", "pipe", "smem", "resident", "pair", "deep")
# Strategies other than the default run on these cases only (the emulation costs a thread per CUDA
# thread): together they reach every index dtype, float4 and scalar rows, and the hub.
STRATEGY_CASES = {"neighbor_agg": (0, 3, 4, 5)}
# Of those, the cases that take a study strategy tens of seconds under the emulation (block: a CUDA block, so
# hundreds of threads, a row): the slow tier's (tests/tiers.py); the champion and the default run them here.
LARGE_CASES = {"neighbor_agg": (4, 5)}


def _takes(op: str, strategy: str, params: dict) -> bool:
    """Whether ``op``'s native ``strategy`` holds a case of ``params`` (the slice strategy, 1024 to 16387 columns)."""
    return next(i for i in registry.implementations(op) if i.family == "native" and i.strategy == strategy
                and i.precision == "ieee").case_skip_reason(params) is None


EMULATED_RUNS = [
    pytest.param(op, strategy, params, variant, 100 + n, id=f"{op}-{strategy}-{n}-{variant}",
                 marks=slow_for_studies(op, "native", strategy) if n in LARGE_CASES.get(op, ()) else ())
    for op, cases in EMULATED.items()
    for strategy in STRATEGIES[op]
    if strategy not in NOT_EMULATED
    for n, params in enumerate(cases)
    if strategy == "default" or n in STRATEGY_CASES.get(op, range(len(cases)))
    if _takes(op, strategy, params)
    for variant in registry.get_op(op).variants
]



def _emulated(op: str, variant: str, host: EmuHost, strategy: str = "default") -> registry.Implementation:
    launcher = functools.partial(native.LAUNCHERS[(op, strategy)], host)
    if len(registry.get_op(op).variants) > 1:
        launcher = functools.partial(launcher, variant=variant)
    return registry.Implementation(op=op, family="native-emu", strategy=strategy, variant=variant, precision="ieee",
                                   fn=launcher)


def _eager(op: str, variant: str) -> registry.Implementation:
    return registry.baseline_for(op, variant, "ieee")


class _ChoosingHost(EmuHost):
    """The emulation host that records which kernel each launch chooses, with its grid, and runs none of them:
    the choice is the launcher's, made before any kernel runs."""

    def launch(self, kernel, grid, block, *args, shared=0):
        self.launches.append((kernel.name, tuple(grid), tuple(block)))


# Kernels launched by each emulated run, by run id (filled by the contract test, or on demand).
_LAUNCHED: dict[tuple, set[str]] = {}


@needs_compiler
@pytest.mark.parametrize("op, strategy, params, variant, seed", EMULATED_RUNS)
def test_kernels_pass_their_contract_under_emulation(op, strategy, params, variant, seed):
    host = EmuHost()
    case = Case(op, "emulated", "seed", params, seed=seed)
    impl = _emulated(op, variant, host, strategy)
    result = check(impl, _eager(op, variant), registry.get_op(op), case, "cpu", seed=seed)
    assert result.passed, result.reason
    assert host.launches, "the launcher returned without launching"
    _LAUNCHED[(op, strategy, seed, variant)] = {name for name, _, _ in host.launches}


@needs_compiler
def test_emulated_cases_reach_every_kernel():
    """The emulated shapes above that the fast tier runs exercise every kernel the launchers declare."""
    reached = set()
    for run in (run for run in EMULATED_RUNS if pytest.mark.slow.mark not in run.marks):
        op, strategy, params, variant, seed = run.values
        if (op, strategy, seed, variant) not in _LAUNCHED:  # its contract ran in another worker, or not at all
            host = _ChoosingHost()
            inputs = registry.get_op(op).make_inputs(Case(op, "e", "seed", params, seed=seed), seed, "cpu")
            _emulated(op, variant, host, strategy).fn(*inputs)
            _LAUNCHED[(op, strategy, seed, variant)] = {name for name, _, _ in host.launches}
        reached |= _LAUNCHED[(op, strategy, seed, variant)]
    declared = {k.name for op in NATIVE_OPS for k in op_kernels(op) if k.file == "native.cu"
                and not any(f"_{strategy}" in k.name for strategy in NOT_EMULATED)}
    assert declared <= reached, sorted(declared - reached)


@needs_compiler
def test_long_rows_are_summed_by_the_whole_block_in_a_fixed_order():
    """A hub above LONG_ROW edges, empty rows at both ends, and repeated edges; twice, same bits."""
    from mage.ops.neighbor_agg.native import LONG_ROW

    degrees = [0, 3, LONG_ROW + 1, 0, 1000, 2, 0]
    rowptr = torch.tensor([0] + list(torch.tensor(degrees).cumsum(0)), dtype=torch.int64)
    gen = torch.Generator().manual_seed(3)
    col = torch.randint(0, 50, (int(rowptr[-1]),), generator=gen)
    col[:2] = 7  # a repeated edge
    x = torch.randn(50, 20, generator=gen)
    host = EmuHost()
    for variant in ("sum", "mean"):
        fn = _emulated("neighbor_agg", variant, host).fn
        out = fn(rowptr, col, x)
        ref = registry.get_op("neighbor_agg").reference((rowptr, col, x.double()), variant)
        assert torch.allclose(out.double(), ref, rtol=1e-5, atol=1e-5)
        assert torch.equal(out, fn(rowptr, col, x))
        assert torch.equal(out[[0, 3, 6]], torch.zeros(3, 20))
