"""Native kernels on a CUDA device: every contract, CUDA graph capture, non-default streams, and
CUDA errors raised as Python exceptions. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_native_gpu.py`` (add ``-k "not large"``
to leave out the large cases, which take most of the time).
"""

from __future__ import annotations

import pytest
import torch

from mage import registry
from mage.backends import native
from mage.check import check
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

HOSTS = ("native", "native-py")


def IDS(impl) -> str:
    return f"{impl.op}:{impl.name}"


def _case(impl, suite: str) -> Case:
    return next(c for c in registry.get_op(impl.op).cases() if c.suite == suite)


def _check(impl, case: Case, seed: int = 2024):
    result = check(impl, registry.baseline_of(impl), registry.get_op(impl.op), case, "cuda", seed=seed)
    assert result.passed, result.reason
    return result


# Edge shapes: primes, one row or column, widths that change the kernel choice, tails in every
# dimension, empty rows and hubs.
ODD = {
    "bias_gelu": [{"rows": 5, "cols": 37}, {"rows": 1, "cols": 1024}, {"rows": 300000, "cols": 4}, {"rows": 3, "cols": 1001}],
    "layernorm": [
        {"rows": 7, "cols": 33}, {"rows": 1, "cols": 128}, {"rows": 3, "cols": 2048}, {"rows": 5, "cols": 4096},
        {"rows": 2, "cols": 8000}, {"rows": 2, "cols": 16384}, {"rows": 3, "cols": 1030}, {"rows": 2, "cols": 20000},
        {"rows": 9, "cols": 999}, {"rows": 2, "cols": 65537}, {"rows": 2, "cols": 262150},
    ],
    # The default hands 1025 to 16387 columns to the slice kernels and wider rows to the cluster kernels, up to
    # 262147 columns (mage.backends.rows.handed_on): 262150 takes the looped and online kernels.
    "softmax": [{"rows": r, "cols": c} for r, c in ((7, 33), (5, 1000), (3, 1024), (3, 4099), (2, 16384), (2, 16385),
                                                    (2, 65537), (2, 262150))],
    "matmul": [
        {"m": 17, "k": 31, "n": 9}, {"m": 1, "k": 64, "n": 1}, {"m": 129, "k": 257, "n": 131},
        {"m": 2048, "k": 12, "n": 2052}, {"m": 1000, "k": 1001, "n": 999}, {"m": 5, "k": 0, "n": 4},
    ],
    "triangle": [
        {"batch": 2, "n": 9, "c": 5}, {"batch": 1, "n": 16, "c": 3}, {"batch": 1, "n": 129, "c": 12},
        {"batch": 3, "n": 200, "c": 16}, {"batch": 1, "n": 257, "c": 7},
    ],
    "neighbor_agg": [
        {"graph": "uniform", "nodes": 64, "degree": 4, "features": 8, "index": "int32"},
        {"graph": "powerlaw", "nodes": 1024, "edges": 8192, "features": 16, "index": "int64"},
        {"graph": "rmat", "nodes": 512, "scale": 9, "edge_factor": 8, "features": 7, "index": "int32"},
        {"graph": "powerlaw", "nodes": 20000, "edges": 1 << 20, "features": 130, "index": "int64"},
        {"graph": "powerlaw", "nodes": 5000, "edges": 200000, "features": 1, "index": "int32"},
    ],
}


def _takes_narrow_shapes(impl) -> bool:
    return all(impl.case_skip_reason(params) is None for params in (_case(impl, "seed").params, *ODD[impl.op]))


# Strategies for wide rows only (the slice, cluster, pipe and smem: 1024 columns or more; the columns, resident, pair
# and deep: 16384) refuse the narrow seed and edge shapes: tests/test_reduce_*_gpu.py check them at their widths.
NATIVE = [
    impl
    for op in sorted(registry.ops())
    for impl in registry.implementations(op)
    if impl.family in HOSTS and _takes_narrow_shapes(impl)
]


# ---------------------------------------------------------------- contracts


@pytest.mark.parametrize("impl", NATIVE, ids=IDS)
def test_contract_on_the_seed_cases(impl):
    assert impl.unavailable_reason("cuda") is None
    for case in registry.get_op(impl.op).cases():
        if case.suite == "seed":
            _check(impl, case)


@pytest.mark.parametrize("impl", NATIVE, ids=IDS)
def test_contract_on_edge_shapes(impl):
    for index, params in enumerate(ODD[impl.op]):
        _check(impl, Case(impl.op, f"odd-{index}", "seed", params, seed=500 + index), seed=7 + index)


@pytest.mark.parametrize("impl", [i for i in NATIVE if i.backend == "native"], ids=IDS)
def test_contract_on_the_large_cases(impl):
    _check(impl, _case(impl, "large"))


@pytest.mark.parametrize("impl", [i for i in NATIVE if i.backend == "native"], ids=IDS)
def test_both_host_paths_give_identical_bits(impl):
    twin = next(
        i for i in registry.implementations(impl.op)
        if i.backend == "native-py" and i.variant == impl.variant and i.precision == impl.precision
    )
    inputs = registry.get_op(impl.op).make_inputs_at(_case(impl, "seed"), 3, "cuda", "heavy", impl.precision)
    assert torch.equal(impl.fn(*inputs), twin.fn(*inputs))


# ---------------------------------------------------------------- streams and graphs


def _float_input(inputs: tuple) -> int:
    return next(i for i, t in enumerate(inputs) if t.is_floating_point())


@pytest.mark.parametrize("impl", NATIVE, ids=IDS)
def test_a_captured_launch_replays_to_the_same_output(impl):
    spec = registry.get_op(impl.op)
    case = _case(impl, "seed")
    inputs = spec.make_inputs_at(case, 11, "cuda", "normal", impl.precision)
    expected = impl.fn(*inputs)  # compiles, loads and validates outside the capture
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        impl.fn(*inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = impl.fn(*inputs)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, expected)
    # The graph holds the kernel, not a copy of its result: new input values, new output.
    fresh = spec.make_inputs_at(case, 12, "cuda", "normal", impl.precision)
    f = _float_input(inputs)
    inputs[f].copy_(fresh[f])
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, impl.fn(*inputs))
    assert not torch.equal(out, expected)


@pytest.mark.parametrize("impl", NATIVE, ids=IDS)
def test_launches_follow_the_current_stream(impl):
    """On a side stream that is still busy writing the input, the kernel must wait for it."""
    spec = registry.get_op(impl.op)
    case = _case(impl, "seed")
    inputs = spec.make_inputs_at(case, 21, "cuda", "normal", impl.precision)
    f = _float_input(inputs)
    new = spec.make_inputs_at(case, 22, "cuda", "normal", impl.precision)[f]
    expected = impl.fn(*(new if i == f else t for i, t in enumerate(inputs)))
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(20_000_000)  # ~10 ms of GPU time before the copy lands
        inputs[f].copy_(new)
        out = impl.fn(*inputs)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    assert torch.equal(out, expected)


# ---------------------------------------------------------------- the extension on a device


def test_the_device_arch_and_the_disk_cache():
    ext = native.extension()
    arch = ext.device_arch(torch.cuda.current_device())
    major, minor = torch.cuda.get_device_capability()
    assert arch == major * 10 + minor
    from pathlib import Path

    key = ext.cache_key(native.source("layernorm"), arch)
    x = torch.randn(4, 8, device="cuda")
    registry.implementations("layernorm")  # loads the ops
    next(i for i in registry.implementations("layernorm") if i.backend == "native").fn(x, x[0], x[0])
    assert (Path(ext.cache_dir()) / f"{key}.cubin").is_file()


def test_cuda_errors_are_python_exceptions_with_the_cuda_name():
    from mage.ops.bias_gelu.native import SCALAR

    x = torch.randn(4, 8, device="cuda")
    for host in native.HOSTS:
        # 512 threads where the kernel's launch bounds allow 256: the driver refuses the launch.
        with pytest.raises(native.extension().CudaError, match="CUDA_ERROR_(INVALID_VALUE|LAUNCH_OUT_OF_RESOURCES)"):
            host.launch(SCALAR, (1, 1, 1), (512, 1, 1), x, x[0], x, 4, 8)
    torch.cuda.synchronize()  # the context is still usable
    kernel = native.extension().load_kernel(native.source("bias_gelu"), "bias_gelu_f32", "pppli", x.device.index)
    with pytest.raises(ValueError, match="takes 5 arguments"):
        kernel.launch((1, 1, 1), (256, 1, 1), 0, 0, x.data_ptr())
    with pytest.raises(ValueError, match="out of range for int32"):
        kernel.launch((1, 1, 1), (256, 1, 1), 0, 0, x.data_ptr(), x.data_ptr(), x.data_ptr(), 4, 1 << 40)
    with pytest.raises(ValueError, match="at least 1 in every dimension"):
        kernel.launch((0, 1, 1), (256, 1, 1), 0, 0, x.data_ptr(), x.data_ptr(), x.data_ptr(), 4, 8)
    with pytest.raises(native.extension().CudaError, match="CUDA_ERROR_NOT_FOUND"):
        native.extension().load_kernel(native.source("bias_gelu"), "no_such_kernel", "p", x.device.index)
