"""The kernels written in Rust with CubeCL (family ``cubecl``) on a CUDA device: every contract on the
seed cases and on the native kernels' edge shapes (tails in every dimension, both tile sizes, float4
and scalar paths, int32 and int64 graphs with empty rows and hubs), CUDA graph capture, the current
stream, and neighbor_agg's bits the same from call to call. Skipped where no CUDA device is visible.

Run on the GPU machine with ``pytest -m gpu tests/test_cubecl_gpu.py``.
The checks and the stream and graph tests are test_native_gpu's, run on these implementations.
"""

from __future__ import annotations

import pytest
import torch

import test_native_gpu as native_gpu
from mage import registry
from mage.spec import Case

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device"),
]

CUBECL = [impl for op in sorted(registry.ops()) for impl in registry.implementations(op) if impl.family == "cubecl"]


def test_every_op_has_a_cubecl_implementation():
    assert {impl.op for impl in CUBECL} == set(registry.ops())


@pytest.mark.parametrize("impl", CUBECL, ids=native_gpu.IDS)
def test_contract_on_the_seed_cases(impl):
    native_gpu.test_contract_on_the_seed_cases(impl)


@pytest.mark.parametrize("impl", CUBECL, ids=native_gpu.IDS)
def test_contract_on_edge_shapes(impl):
    native_gpu.test_contract_on_edge_shapes(impl)


@pytest.mark.parametrize("impl", CUBECL, ids=native_gpu.IDS)
def test_a_captured_launch_replays_to_the_same_output(impl):
    native_gpu.test_a_captured_launch_replays_to_the_same_output(impl)


@pytest.mark.parametrize("impl", CUBECL, ids=native_gpu.IDS)
def test_launches_follow_the_current_stream(impl):
    native_gpu.test_launches_follow_the_current_stream(impl)


@pytest.mark.parametrize("impl", [i for i in CUBECL if i.op == "neighbor_agg"], ids=native_gpu.IDS)
def test_neighbor_agg_gives_the_same_bits_every_call(impl):
    # A hub-heavy graph: no atomics, so the summation order and the bits are fixed.
    params = {"graph": "hub", "nodes": 4096, "edges": 1 << 18, "share": 0.2, "features": 64, "index": "int32"}
    inputs = registry.get_op("neighbor_agg").make_inputs(Case("neighbor_agg", "hub", "seed", params, seed=3), 5, "cuda")
    first = impl.fn(*inputs)
    assert all(torch.equal(first, impl.fn(*inputs)) for _ in range(5))


@pytest.mark.parametrize("impl", [i for i in CUBECL if i.op in ("matmul", "triangle", "neighbor_agg", "softmax")],
                         ids=native_gpu.IDS)
def test_contract_on_the_large_cases(impl):
    native_gpu._check(impl, native_gpu._case(impl, "large"))
