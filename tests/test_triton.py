"""Triton implementations under the interpreter: contracts on awkward shapes, and the checker's teeth.

The interpreter runs each program in numpy with one autotune config per kernel (see
mage.backends.triton), so shapes here are chosen against those blocks: matmul 128 × 128 × 32,
bias_gelu 16 × 256, layernorm 16 rows (chunks of 16 columns), triangle 32 × 32 × 32 with 8
channels, neighbor_agg 16 rows × 8 edge slots × 64 features (rows longer than 32 edges take the
one-row tail loop). The interpreter computes every tl.dot in float32, whatever its
input_precision: tf32 and tf32x3 results here check indexing, not their rounding.
"""

import functools
import time
import inspect
import os
import sys

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by mage or by this file

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.runtime.autotuner import Autotuner, Heuristics  # noqa: E402
from triton.runtime.interpreter import InterpretedFunction  # noqa: E402

from mage import registry  # noqa: E402
from mage.backends import triton as triton_backend  # noqa: E402
from mage.backends import tuning  # noqa: E402
from mage.check import check  # noqa: E402
from mage.measure.method import Method  # noqa: E402
from mage.ops.neighbor_agg.spec import NeighborAggSpec  # noqa: E402
from mage.plan import Planned, Request  # noqa: E402
from mage.runner import Runner  # noqa: E402
from mage.spec import Case, draw, generator  # noqa: E402
from mage.store import Store  # noqa: E402
from sm90_compile import TESTS, needs_ptxas, run_compiled  # noqa: E402

registry.load()
TRITON = [impl for op in sorted(registry.ops()) for impl in registry.implementations(op) if impl.family == "triton"]


def _impl(op, variant, precision, backend="triton"):
    return next(
        i for i in registry.implementations(op) if (i.backend, i.variant, i.precision) == (backend, variant, precision)
    )


def _eager(impl):
    """The eager baseline at the precision the contract compares with (tf32x3 meets ieee's)."""
    return registry.baseline_of(impl)


def _passes(impl, params, seed=11, spec=None):
    spec = spec or registry.get_op(impl.op)
    case = Case(impl.op, "test", "seed", params, seed=seed)
    result = check(impl, _eager(impl), spec, case, "cpu", seed)
    assert result.passed, result.reason
    return result


# --- where the implementations can run ---------------------------------------------------


def test_the_interpreter_was_chosen_before_the_kernels_were_decorated():
    from mage.ops.matmul import triton as matmul_triton

    assert triton_backend.INTERPRETED
    assert type(matmul_triton._matmul_persistent_kernel.fn).__name__ == "InterpretedFunction"


@pytest.mark.parametrize("impl", TRITON, ids=lambda i: f"{i.op}:{i.name}")
def test_every_triton_implementation_runs_on_the_cpu_except_tf32(impl):
    reason = impl.unavailable_reason("cpu")
    if impl.precision == "tf32":
        assert reason and "CUDA" in reason
    elif impl.strategy == "lagged":  # a GPU strategy: tests/test_reduction.py runs it small on the CPU
        assert reason and "interpreter takes minutes" in reason
    else:
        assert reason is None


def test_without_the_interpreter_the_cpu_is_refused_with_the_remedy(monkeypatch):
    monkeypatch.setattr(triton_backend, "INTERPRETED", False)
    assert "TRITON_INTERPRET=1" in triton_backend.triton_available("cpu")
    assert triton_backend.triton_available("mps")


def test_every_op_has_triton_implementations_for_all_its_variants():
    for op, spec in registry.ops().items():
        assert {i.variant for i in TRITON if i.op == op} == set(spec.variants), op
    assert {i.precision for i in TRITON if i.op == "matmul"} == {"ieee", "tf32", "tf32x3", "bf16", "fp16"}
    assert {i.precision for i in TRITON if i.op == "triangle"} == {"ieee", "tf32", "tf32x3", "bf16", "fp16"}


@triton.jit
def _dot_probe_kernel(a_ptr, b_ptr, out_ptr, PRECISION: tl.constexpr):
    offs = tl.arange(0, 16)
    a = tl.load(a_ptr + offs[:, None] * 16 + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * 16 + offs[None, :])
    tl.store(out_ptr + offs[:, None] * 16 + offs[None, :], tl.dot(a, b, input_precision=PRECISION))


def _tf32(x):
    """Round float32 to TF32 (10 explicit mantissa bits), to nearest, as tensor cores read it."""
    bits = x.view(torch.int32)
    return ((bits + 0x1000) & ~0x1FFF).view(torch.float32)


def test_the_interpreter_computes_tf32_dots_in_float32():
    """Why tf32 kernels are unavailable on the CPU and their checks here only check indexing."""
    g = generator(3)
    a, b = draw((16, 16), g, "normal"), draw((16, 16), g, "normal")
    out = {p: torch.empty(16, 16) for p in ("tf32", "tf32x3", "ieee")}
    for precision, o in out.items():
        _dot_probe_kernel[(1,)](a, b, o, PRECISION=precision)
    assert torch.equal(out["tf32"], out["ieee"]) and torch.equal(out["tf32x3"], out["ieee"])
    assert not torch.allclose(out["tf32"], _tf32(a) @ _tf32(b), rtol=0, atol=1e-6)


# --- matmul --------------------------------------------------------------------------------

MATMUL_SHAPES = {
    "odd": {"m": 33, "k": 47, "n": 65},
    "primes-multi-tile": {"m": 131, "k": 67, "n": 257},
    "aligned-ragged-tiles": {"m": 132, "k": 68, "n": 260},  # K, N % 4 == 0: the descriptor path
    "one-row": {"m": 1, "k": 300, "n": 5},
    "one-column": {"m": 70, "k": 33, "n": 1},
    "empty-k": {"m": 5, "k": 0, "n": 3},
    "empty-m": {"m": 0, "k": 4, "n": 8},
}


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "tf32"])
@pytest.mark.parametrize("shape", MATMUL_SHAPES, ids=str)
def test_matmul_contract(shape, precision):
    _passes(_impl("matmul", "default", precision), MATMUL_SHAPES[shape])


@pytest.mark.parametrize("transpose", [False, True])
def test_tf32_split_is_exact_in_tf32_and_sums_back_to_its_input(transpose):
    from mage.ops.matmul import triton as matmul_triton

    g = generator(5)
    x = draw((67, 131), g, "heavy")
    big, small = matmul_triton._split_tf32(x, transpose)
    want = x.t() if transpose else x
    assert big.shape == want.shape and big.is_contiguous()
    for part in (big, small):
        assert torch.equal(part, _tf32(part))  # 10 mantissa bits: what a tf32 product reads whole
    assert torch.equal(big, _tf32(want))
    assert ((big.double() + small.double() - want.double()).abs() <= 2.0**-21 * want.double().abs()).all()
    assert (small != 0).any()


@pytest.mark.parametrize(
    "precision, shape, kernel",
    [
        ("ieee", "aligned-ragged-tiles", "_TILE_KERNELS"),
        ("tf32", "odd", "_TILE_KERNELS"),
        ("tf32", "aligned-ragged-tiles", "_matmul_persistent_kernel"),
        ("tf32x3", "aligned-ragged-tiles", "_matmul_persistent_kernel"),
    ],
)
def test_matmul_takes_the_descriptor_path_exactly_when_it_can(monkeypatch, precision, shape, kernel):
    from mage.ops.matmul import triton as matmul_triton

    ran = []
    for name, k in [*matmul_triton._TILE_KERNELS.items(), ("persistent", matmul_triton._matmul_persistent_kernel)]:
        monkeypatch.setattr(k, "run", lambda *a, _run=k.run, _name=name, **kw: (ran.append(_name), _run(*a, **kw))[1])
    p = MATMUL_SHAPES[shape]
    a, b = torch.randn(p["m"], p["k"]), torch.randn(p["k"], p["n"])
    out = _impl("matmul", "default", precision).fn(a, b)
    torch.testing.assert_close(out, a @ b, rtol=1e-5, atol=1e-4)
    assert ran == (["persistent"] if kernel == "_matmul_persistent_kernel" else [precision])


# --- bias_gelu and layernorm ---------------------------------------------------------------

ROW_SHAPES = {
    "odd": (33, 65),
    "one-element": (1, 1),
    "one-row": (1, 300),
    "one-column": (300, 1),
    "multi-block-ragged": (37, 513),
    "no-rows": (0, 5),
}


@pytest.mark.parametrize("shape", ROW_SHAPES, ids=str)
def test_bias_gelu_contract(shape):
    rows, cols = ROW_SHAPES[shape]
    _passes(_impl("bias_gelu", "erf", "ieee"), {"rows": rows, "cols": cols})


@pytest.mark.parametrize("shape", ROW_SHAPES, ids=str)
def test_layernorm_contract(shape):
    rows, cols = ROW_SHAPES[shape]
    _passes(_impl("layernorm", "affine", "ieee"), {"rows": rows, "cols": cols})


@pytest.mark.parametrize("rows, cols", [(5, 65), (3, 200), (1, 4097)], ids=["5x65", "3x200", "1x4097"])
def test_layernorm_rows_too_wide_for_registers_stream_in_chunks(monkeypatch, rows, cols):
    from mage.ops.layernorm import triton as layernorm_triton

    monkeypatch.setattr(layernorm_triton, "MAX_FUSED_COLS", 64)
    ran = []
    run = layernorm_triton._layernorm_streaming_kernel.run
    monkeypatch.setattr(
        layernorm_triton._layernorm_streaming_kernel, "run", lambda *a, **kw: (ran.append(1), run(*a, **kw))[1]
    )
    _passes(_impl("layernorm", "affine", "ieee"), {"rows": rows, "cols": cols})
    assert ran


def test_layernorm_is_stable_for_rows_with_a_large_mean():
    """Two-pass statistics: E[x²] − E[x]² would lose every digit of the variance here."""
    x = 1e4 + torch.randn(6, 300)
    w, b = torch.ones(300), torch.zeros(300)
    out = _impl("layernorm", "affine", "ieee").fn(x, w, b)
    ref = torch.nn.functional.layer_norm(x.double(), (300,), eps=1e-5).float()
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-3)


# --- triangle ------------------------------------------------------------------------------

TRIANGLE_SHAPES = {
    "one-tile-ragged-channels": {"batch": 1, "n": 17, "c": 5},
    "batch-2-tiles-2x2": {"batch": 2, "n": 33, "c": 3},
    "one-pair": {"batch": 1, "n": 1, "c": 1},
    "two-channel-slabs": {"batch": 1, "n": 40, "c": 9},
}


@pytest.mark.parametrize("precision", ["ieee", "tf32"])
@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("shape", TRIANGLE_SHAPES, ids=str)
def test_triangle_contract(shape, variant, precision):
    _passes(_impl("triangle", variant, precision), TRIANGLE_SHAPES[shape])


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("shape", TRIANGLE_SHAPES, ids=str)
def test_triangle_channel_split_contract(shape, variant):
    """Eight channel tiles split apart and joined back: every channel lands where it belongs."""
    _passes(_impl("triangle", variant, "tf32", backend="triton.split"), TRIANGLE_SHAPES[shape])


def test_triangle_variants_are_not_interchangeable():
    g = generator(5)
    a, b = draw((1, 9, 9, 3), g, "normal"), draw((1, 9, 9, 3), g, "normal")
    outgoing = _impl("triangle", "outgoing", "ieee").fn(a, b)
    incoming = _impl("triangle", "incoming", "ieee").fn(a, b)
    torch.testing.assert_close(outgoing, torch.einsum("bikc,bjkc->bijc", a, b), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(incoming, torch.einsum("bkic,bkjc->bijc", a, b), rtol=1e-5, atol=1e-5)
    assert not torch.allclose(outgoing, incoming)


# --- neighbor_agg --------------------------------------------------------------------------

GENERATED_GRAPHS = {
    "uniform-i32": {"graph": "uniform", "nodes": 37, "degree": 5, "features": 33, "index": "int32"},
    "powerlaw-hubs-i64": {"graph": "powerlaw", "nodes": 300, "edges": 3000, "features": 16, "index": "int64"},
    "rmat-3-feature-blocks-i32": {"graph": "rmat", "nodes": 128, "scale": 7, "edge_factor": 4, "features": 130, "index": "int32"},
    "no-edges": {"graph": "uniform", "nodes": 10, "degree": 0, "features": 8, "index": "int64"},
}


class FixedGraphSpec(NeighborAggSpec):
    """neighbor_agg on a hand-written CSR graph (the generators need 4 rows and spread edges)."""

    def __init__(self, rowptr, col, n_src):
        self.rowptr, self.col, self.n_src = rowptr, col, n_src

    def make_inputs(self, case, seed, device, distribution="normal"):
        index = {"int32": torch.int32, "int64": torch.int64}[case.params["index"]]
        x = draw((self.n_src, case.params["features"]), generator(seed), distribution)
        return self.rowptr.to(device, index), self.col.to(device, index), x.to(device)


def _star(hub_degree=200):
    """Six rows: an empty row, a hub, a one-edge row, three empty rows."""
    degrees = torch.tensor([0, hub_degree, 1, 0, 0, 0])
    rowptr = torch.cat([torch.zeros(1, dtype=torch.int64), degrees.cumsum(0)])
    col = torch.randint(0, 50, (hub_degree + 1,), generator=generator(9))
    return rowptr, col, 50


FIXED_GRAPHS = {
    "star-hub-200": _star(),
    "one-row-40": (torch.tensor([0, 40]), torch.arange(40) % 7, 7),
    "no-rows": (torch.tensor([0]), torch.tensor([], dtype=torch.int64), 3),
    "empty-rows-only": (torch.zeros(8, dtype=torch.int64), torch.tensor([], dtype=torch.int64), 4),
}


@pytest.mark.parametrize("variant", ["sum", "mean"])
@pytest.mark.parametrize("graph", GENERATED_GRAPHS, ids=str)
def test_neighbor_agg_contract_on_generated_graphs(graph, variant):
    _passes(_impl("neighbor_agg", variant, "ieee"), GENERATED_GRAPHS[graph])


@pytest.mark.parametrize("index", ["int32", "int64"])
@pytest.mark.parametrize("variant", ["sum", "mean"])
@pytest.mark.parametrize("graph", FIXED_GRAPHS, ids=str)
def test_neighbor_agg_contract_on_hand_written_graphs(graph, variant, index):
    spec = FixedGraphSpec(*FIXED_GRAPHS[graph])
    _passes(_impl("neighbor_agg", variant, "ieee"), {"features": 70, "index": index}, spec=spec)


def test_neighbor_agg_is_bitwise_deterministic():
    rowptr, col, n_src = _star()
    x = draw((n_src, 70), generator(1), "heavy")
    impl = _impl("neighbor_agg", "sum", "ieee")
    assert torch.equal(impl.fn(rowptr, col, x), impl.fn(rowptr, col, x))


@pytest.mark.parametrize("graph", ["star-hub-200", "one-row-40", "no-rows", "empty-rows-only"])
def test_cusparse_peer_computes_the_sum(graph):
    """torch.sparse.mm is CUDA-only in the registry; its wrapper is checked here on the CPU."""
    impl = _impl("neighbor_agg", "sum", "ieee", backend="cusparse")
    assert impl.unavailable_reason("cpu") and impl.unavailable_reason("cuda") is None
    spec = FixedGraphSpec(*FIXED_GRAPHS[graph])
    _passes(impl, {"features": 12, "index": "int32"}, spec=spec)


# --- the checker rejects broken kernels ----------------------------------------------------

# The generic ones (half the output zeroed, the last row skipped) are test_implementations'.


def test_a_tf32_rounding_kernel_fails_the_ieee_contract(impl_like):
    """What a tf32 matmul declared as ieee (or tf32x3) would look like: rejected at 1e-5."""
    good = _impl("matmul", "default", "tf32x3")

    def rounds_to_tf32(a, b):
        return good.fn(_tf32(a), _tf32(b))

    case = Case("matmul", "test", "seed", {"m": 64, "k": 96, "n": 64}, seed=3)
    result = check(impl_like(good, rounds_to_tf32), _eager(good), registry.get_op("matmul"), case, "cpu", 3)
    assert not result.passed and result.rel_error > 1e-4


def test_numpy_rejects_what_the_interpreter_shim_works_around():
    """If numpy ever accepts int() of a 1-element array again, the shim in backends/triton is moot."""
    if tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 4):
        pytest.skip("numpy < 2.4 still converts one-element arrays")
    with pytest.raises(TypeError):
        int(np.ones(1, dtype=np.int32))


@triton.jit
def _store_probe_kernel(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + i))


def test_the_interpreter_rounds_float32_to_bf16_to_nearest_even_as_compiled_stores_do():
    """Triton 3.6's interpreter truncates (0.99999 became 0.99609375); the shim in backends/triton rounds."""
    # A carry into the exponent, ties to even both ways, just above a tie, overflow, inf, NaN, a subnormal.
    x = torch.tensor([0.99999, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, 3.4e38, float("inf"), float("nan"),
                      1e-40])
    out = torch.empty(len(x), dtype=torch.bfloat16)
    _store_probe_kernel[(1,)](x, out, N=len(x))
    torch.testing.assert_close(out, x.to(torch.bfloat16), rtol=0, atol=0, equal_nan=True)


@triton.jit
def _row_major_tile_probe_kernel(rows_ptr, cols_ptr, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r, c = triton_backend.row_major_tile(n_cols, BLOCK_R, BLOCK_C)
    pid = tl.program_id(0)
    tl.store(rows_ptr + pid * BLOCK_R + tl.arange(0, BLOCK_R), r)
    tl.store(cols_ptr + pid * BLOCK_C + tl.arange(0, BLOCK_C), c)


def test_row_major_tiles_sweep_the_column_blocks_first():
    programs, block_r, block_c = 6, 2, 4  # 10 columns: 3 column blocks, the last one ragged
    rows, cols = torch.empty(programs, block_r, dtype=torch.int32), torch.empty(programs, block_c, dtype=torch.int32)
    _row_major_tile_probe_kernel[(programs,)](rows, cols, 10, BLOCK_R=block_r, BLOCK_C=block_c)
    for pid in range(programs):
        assert rows[pid].tolist() == [(pid // 3) * block_r + i for i in range(block_r)]
        assert cols[pid].tolist() == [(pid % 3) * block_c + j for j in range(block_c)]


def test_autotune_no_wider_keeps_blocks_up_to_the_extent_rounded_up_and_at_least_the_least():
    configs = [triton.Config({"BLOCK": block}) for block in (4, 16, 64)]
    tuner = triton_backend.autotune_no_wider(configs, key=["n"], block="BLOCK", extent="n", least=16)(
        _row_major_tile_probe_kernel
    )
    assert tuner.keys == ["n"]
    kept = {n: [c.kwargs["BLOCK"] for c in tuner.early_config_prune(configs, {"n": n})] for n in (3, 17, 33)}
    assert kept == {3: [4, 16], 17: [4, 16], 33: [4, 16, 64]}


def test_unit_last_stride_copies_only_what_its_last_dimension_strides():
    rows = torch.zeros(4, 6)[:, :3]  # a row stride of 6, unit column stride
    assert triton_backend.unit_last_stride(rows) is rows
    columns = torch.arange(12.0).reshape(3, 4).t()
    copied = triton_backend.unit_last_stride(columns)
    assert copied.is_contiguous() and torch.equal(copied, columns)


# --- what the interpreter does not check ---------------------------------------------------


def test_gpu_config_lists_prune_to_sensible_configs(monkeypatch):
    """The interpreter runs one config, so the GPU lists and their pruning are checked here."""
    from mage.ops.bias_gelu import triton as bias_gelu
    from mage.ops.layernorm import triton as layernorm
    from mage.ops.matmul import triton as matmul
    from mage.ops.neighbor_agg import triton as neighbor_agg
    from mage.ops.triangle import triton as triangle

    monkeypatch.setattr(triton_backend, "INTERPRETED", False)
    prune = bias_gelu._bias_gelu_tile_kernel.early_config_prune
    for cols in (1, 33, 1024, 16384):
        kept = prune(bias_gelu._bias_gelu_configs(), {"cols": cols})
        assert kept and all(c.kwargs["BLOCK_C"] <= max(64, triton.next_power_of_2(cols)) for c in kept)
    prune = layernorm._layernorm_registers_kernel.early_config_prune
    for cols in (1, 1024, 4096, 16384):
        block_c = triton.next_power_of_2(cols)
        full = [triton.Config({"BLOCK_R": r}, num_warps=w) for r in (1, 2, 4, 8, 16) for w in (4, 8, 16)]
        kept = prune(full, {"cols": cols}, BLOCK_C=block_c)
        assert kept and all(c.kwargs["BLOCK_R"] * block_c <= max(16384, block_c) for c in kept)
    for precision in ("ieee", "tf32", "tf32x3", "bf16", "fp16"):
        assert all(c.kwargs["BLOCK_K"] >= 16 for c in matmul._tile_configs(precision))  # tl.dot's least K
    persistent = matmul._persistent_configs()
    for precision, tiles, element_bytes in (("tf32", 1, 4), ("tf32x3", 2, 4), ("bf16", 1, 2)):
        kept = matmul._prune_persistent(persistent, {}, PRECISION=precision)
        assert kept and all(matmul._shared_bytes(c, tiles, element_bytes) <= matmul.SHARED_BYTES for c in kept)
    kept = matmul._prune_persistent(persistent, {}, PRECISION="tf32x3")
    assert len(kept) < len(persistent) and all(c.kwargs["BLOCK_M"] * c.kwargs["BLOCK_N"] <= 128 * 128 for c in kept)
    assert all(c.kwargs["BLOCK_K"] >= 16 and c.num_warps <= 8 for c in triangle._triangle_configs())
    prune = triangle._triangle_slab_kernel.early_config_prune
    assert all(c.kwargs["BLOCK_C"] <= 4 for c in prune(triangle._triangle_configs(), {"C": 3}))
    prune = neighbor_agg._neighbor_agg_rows_kernel.early_config_prune
    assert {c.kwargs["BLOCK_F"] for c in prune(neighbor_agg._neighbor_agg_configs(), {"F": 64})} == {64}
    assert {c.kwargs["BLOCK_F"] for c in prune(neighbor_agg._neighbor_agg_configs(), {"F": 128})} == {64, 128}
    assert prune(neighbor_agg._neighbor_agg_configs(), {"F": 7})  # the narrowest survives


# Compiled for sm_90 in a process without the interpreter: the interpreter accepts code that
# Triton's compiler refuses (non-constexpr globals, dots with K < 16). Every registered Triton
# implementation is compiled on its spec's test cases by tests/sm90_compile.py; the TMA kernels of
# matmul's persistent path, which CPU tensors never reach, are compiled here from their signatures.
_SM90_TMA_COMPILE = r'''
import triton
from mage.ops.matmul import triton as matmul
from sm90_compile import compile_signature, products

def compile_first(kernel, signature, constexprs, config=None):
    compiled = compile_signature(kernel, signature, constexprs, config)
    print("compiled", "tma/" + "/".join(str(constexprs.get(k)) for k in ("PRECISION", "SPLIT_IN_LOAD")), compiled.name,
          "products:", products(compiled), flush=True)

f32 = "*fp32"
# (precision, split in the load, b read transposed, element type): every way _matmul launches it.
for precision, split_in_load, b_transposed, dtype in (("tf32", False, True, "fp32"), ("tf32x3", False, True, "fp32"),
                                                      ("tf32x3", True, False, "fp32"), ("bf16", False, False, "bf16"),
                                                      ("fp16", False, False, "fp16")):
    config = matmul._prune_persistent(matmul._matmul_persistent_kernel.configs, {}, PRECISION=precision)[0]
    bm, bn, bk = (config.kwargs[k] for k in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
    c_block = [bm, bn // 2] if config.kwargs["EPILOGUE_SUBTILE"] else [bm, bn]
    a_block = f"tensordesc<{dtype}[{bm}, {bk}]>"
    b_block = f"tensordesc<{dtype}[{bn}, {bk}]>" if b_transposed else f"tensordesc<{dtype}[{bk}, {bn}]>"
    desc = {"a_desc": a_block, "b_desc": b_block, "a_small_desc": a_block, "b_small_desc": b_block,
            "c_desc": f"tensordesc<{dtype}{c_block}>", "M": "i32", "N": "i32", "K": "i32"}
    compile_first(matmul._matmul_persistent_kernel, desc, {
        "NUM_SMS": 132, "PRECISION": precision, "DOT_PRECISION": matmul.DOT_PRECISION.get(precision, precision),
        "B_TRANSPOSED": b_transposed, "SPLIT_IN_LOAD": split_in_load}, config)
split = {"x_ptr": f32, "big_ptr": f32, "small_ptr": f32, "R": "i32", "C": "i32", "stride_r": "i32", "stride_c": "i32"}
for transpose in (False, True):
    compile_first(matmul._split_tf32_kernel, split, {"TRANSPOSE": transpose, "BLOCK_R": 64, "BLOCK_C": 64},
                  triton.Config({}, num_warps=4, num_stages=1))
# triton.persistent: its descriptors are made on the device, from pointers.
from mage.ops.matmul import triton_persistent as persistent
tma = {"a_ptr": f32, "bt_ptr": f32, "a_small_ptr": f32, "bt_small_ptr": f32, "c_ptr": f32, "M": "i32", "N": "i32",
       "K": "i32", "stride_am": "i32", "stride_btn": "i32"}
for precision, kernel in persistent.TMA_KERNELS.items():
    compile_first(kernel, tma, {"NUM_SMS": 132, "TF32X3": precision == "tf32x3"})
operands = {"a_ptr": f32, "b_ptr": f32, "a_big_ptr": f32, "a_small_ptr": f32, "bt_big_ptr": f32, "bt_small_ptr": f32,
            "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32"}
compile_first(persistent._split_operands_kernel, operands, {"BLOCK": persistent.SPLIT_BLOCK},
              triton.Config({}, num_warps=4, num_stages=1))
# triton.k3, triton.k3map and triton.swap: device-made descriptors too.
from mage.ops.matmul import triton_k3 as k3, triton_swap as swap
split_k3 = {"a_ptr": f32, "b_ptr": f32, "a3_ptr": f32, "bt3_ptr": f32, "M": "i32", "N": "i32", "K": "i32",
            "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32"}
for segments, (a_small, b_small) in k3.SMALL_SEGMENTS.items():
    compile_first(k3._split_k3_kernel, split_k3, {"SEGMENTS": segments, "A_SMALL": a_small, "B_SMALL": b_small,
                  "CHUNK": k3.CHUNK, "BLOCK": k3.SPLIT_BLOCK}, triton.Config({}, num_warps=4, num_stages=1))
for mapped in (False, True):
    compile_first(k3._matmul_k3_kernel, {"a3_ptr": f32, "bt3_ptr": f32, "c_ptr": f32, "M": "i32", "N": "i32",
                                         "K_PADDED": "i32"}, {"MAPPED": mapped, "CHUNK": k3.CHUNK})
compile_first(swap._matmul_swap_kernel, {"a_ptr": f32, "b_ptr": f32, "c_ptr": f32, "M": "i32", "N": "i32", "K": "i32",
                                         "stride_am": "i32", "stride_bk": "i32"}, {"NUM_SMS": 132})
'''


def _compile_for_hopper(*command) -> dict[str, set[str]]:
    """{kernel: {implementation, …}} from the "compiled IMPL KERNEL products: …" lines of ``command``."""
    done = run_compiled(*command)
    assert done.returncode == 0, done.stderr[-3000:]
    compiled = {}
    for line in done.stdout.splitlines():
        _, impl, kernel, _, products = line.split()
        compiled.setdefault(kernel, set()).add((impl, products))
    return compiled


def _module_of(impl):
    fn = impl.fn
    while isinstance(fn, functools.partial):  # the registry binds variant and precision
        fn = fn.func
    return sys.modules[fn.__module__]


def _triton_kernels(module) -> set[str]:
    """Names of the @triton.jit kernels (autotuned or not, interpreted here) that ``module`` defines
    and launches: its jit helpers, called from another of its kernels, are compiled inside them."""
    jitted = {}
    for value in vars(module).values():
        for kernel in value.values() if isinstance(value, dict) else (value,):
            while isinstance(kernel, (Autotuner, Heuristics)):
                kernel = kernel.fn
            if isinstance(kernel, (triton.runtime.JITFunction, InterpretedFunction)) and \
                    kernel.fn.__module__ == module.__name__:
                jitted[kernel.fn.__name__] = inspect.getsource(kernel.fn)
    return {name for name in jitted
            if not any(f"{name}(" in source for other, source in jitted.items() if other != name)}


@needs_ptxas
def test_every_triton_kernel_compiles_for_hopper_without_a_gpu():
    compiled = _compile_for_hopper(os.path.join(TESTS, "sm90_compile.py"))
    compiled_tma = _compile_for_hopper("-c", _SM90_TMA_COMPILE)
    reached = {impl for uses in compiled.values() for impl, _ in uses}
    assert reached == {i.name for i in TRITON}, "every Triton implementation launches a kernel on its test cases"
    defined = set().union(*(_triton_kernels(module) for module in {_module_of(i) for i in TRITON}))
    assert "_layernorm_streaming_kernel" in defined  # the kernels are found, interpreted as they are here
    missing = defined - set(compiled) - set(compiled_tma)
    assert not missing, f"never compiled: {sorted(missing)} (add a spec test case that reaches them)"
    # Why triton.split exists: its per-channel dots reach Hopper's wgmma; the 3-D dot of triton.py does not.
    assert {p for _, p in compiled["_triangle_channel_split_kernel"]} == {"wgmma"}
    assert {p for _, p in compiled["_triangle_slab_kernel"]} == {"mma.sync"}
    assert {p for _, p in compiled_tma["_matmul_persistent_kernel"]} == {"wgmma"}
    assert {p for _, p in compiled_tma["_matmul_tma_kernel"]} == {"wgmma"}
    assert {p for _, p in compiled_tma["_matmul_k3_kernel"]} == {p for _, p in compiled_tma["_matmul_swap_kernel"]} == {"wgmma"}


def test_the_autotuned_configuration_is_stored_with_each_result(tmp_path, layernorm):
    spec, eager, case = layernorm
    tuned = next(i for i in registry.implementations("layernorm") if i.name == "triton/affine/ieee")
    quick = Method(span_samples=3, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1)
    runner = Runner(Store(tmp_path / "mage.db"), Request(suites=["seed"], device="cpu", paths=["single", "batch"],
                                                         method=quick), "pytest")
    runner.run([Planned(spec, case, [eager, tuned])])
    tuning = {(r["impl"], r["path"]): r["tuning"] for r in Store(tmp_path / "mage.db").rows(runner.run_id)}
    assert tuning[("eager/affine/ieee", "single")] is None  # nothing autotuned
    for path in ("single", "batch"):
        assert tuning[("triton/affine/ieee", path)].startswith("_layernorm_rows_kernel: BLOCK_R: ")


def test_recording_tunings_leaves_the_autotuner_as_it_was():
    before = triton.runtime.autotuner.Autotuner.run
    with pytest.raises(RuntimeError), tuning.recorded_tunings():
        raise RuntimeError("a failing call")
    assert triton.runtime.autotuner.Autotuner.run is before


def test_on_the_cpu_a_call_whose_sample_floor_takes_too_long_is_skipped_after_its_contract(tmp_path, layernorm,
                                                                                             impl_like):
    """Its floor of samples would take minutes (fp16 matmul on a CPU takes seconds a call); its contract still runs."""
    spec, eager, case = layernorm

    def slow(*inputs):
        time.sleep(0.05)
        return eager.fn(*inputs)

    quick = Method(budget_s=0.02, min_samples=2, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=1,
                   cpu_floor_limit_s=0.08)
    runner = Runner(Store(tmp_path / "mage.db"), Request(suites=["seed"], device="cpu", method=quick), "pytest")
    runner.run([Planned(spec, case, [eager, impl_like(eager, slow)])])
    rows = {r["impl"]: r for r in Store(tmp_path / "mage.db").rows(runner.run_id)}
    skipped = rows["fixture/affine/ieee"]
    assert skipped["status"] == "skip" and skipped["contract"] == "pass" and skipped["rel_error"] is not None
    assert skipped["reason"].startswith("one call takes") and "samples alone would take" in skipped["reason"]
    assert skipped["reason"].endswith("more than 0.08 s")
    assert rows["eager/affine/ieee"]["status"] == "pass"
