"""triton.k3 and triton.k3map (tf32x3 as one tf32 GEMM over K' = 3K) and triton.swap (tf32 as cᵀ = bᵀ·aᵀ),
python/mage/ops/matmul/triton_k3.py and triton_swap.py, under TRITON_INTERPRET=1: the split prologue's pieces
and layout, the K' pairing, the contracts on ragged tiles and over several chunks, the launches; and, compiled
for sm_90 without a GPU, what Triton makes of the two product loops (one async wgmma chain, a register operand)."""

import subprocess

import pytest
import torch
import triton

from mage import registry
from mage.check import check
from mage.spec import Case, draw, generator
from sm90_compile import PTXAS, needs_ptxas, run_compiled

registry.load()
k3 = pytest.importorskip("mage.ops.matmul.triton_k3")
swap = pytest.importorskip("mage.ops.matmul.triton_swap")
tile_path = pytest.importorskip("mage.ops.matmul.triton")

# K and N multiples of 4 (16-byte rows, what TMA needs), none a multiple of a block; K 300 spans three chunks.
RAGGED = [{"m": 100, "k": 300, "n": 76}, {"m": 1, "k": 68, "n": 4}, {"m": 130, "k": 4, "n": 72}]
STRATEGIES = ["triton.k3/default/tf32x3", "triton.k3map/default/tf32x3"]
LONG_CHUNK_STRATEGIES = ["triton.k3chunk256/default/tf32x3", "triton.k3chunk512/default/tf32x3"]
# Each tf32x3 strategy's chunk (columns of K between two round-to-nearest adds).
CHUNKS = {"triton.k3/default/tf32x3": 128, "triton.k3map/default/tf32x3": 128, "triton.k3chunk256/default/tf32x3": 256,
          "triton.k3chunk512/default/tf32x3": 512}


def _impl(name):
    return next(i for i in registry.implementations("matmul") if i.name == name)


def _launches(monkeypatch) -> list[str]:
    """Names of the kernels that run, in order, once the test calls a matmul."""
    ran = []
    kernels = [("split", k3._split_k3_kernel), ("k3", k3._matmul_k3_kernel), ("swap", swap._matmul_swap_kernel),
               *(("tile", k) for k in tile_path._TILE_KERNELS.values())]
    for name, kernel in kernels:
        monkeypatch.setattr(kernel, "run", lambda *a, _run=kernel.run, _name=name, **kw: (ran.append(_name), _run(*a, **kw))[1])
    return ran


def _tf32(x):
    """x rounded to TF32 (10 explicit mantissa bits), to nearest."""
    return ((x.view(torch.int32) + 0x1000) & ~0x1FFF).view(torch.float32)


def _rel_error(out, ref):
    return float((out.double() - ref).norm() / ref.norm())


def _segments(x: torch.Tensor, stored: int, chunk: int = k3.CHUNK) -> list[torch.Tensor]:
    """x (rows × stored·Kp) cut into its `stored` segments, each rows × Kp: segment s of every chunk, in order."""
    rows, width = x.shape
    chunks = width // (stored * chunk)
    pieces = x.reshape(rows, chunks, stored, chunk)
    return [pieces[:, :, s, :].reshape(rows, chunks * chunk) for s in range(stored)]


def _padded(x: torch.Tensor, width: int) -> torch.Tensor:
    return torch.nn.functional.pad(x, (0, width - x.shape[1]))


@pytest.mark.parametrize("segments, chunk", [(3, 128), (2, 128), (3, 256), (3, 512)])
def test_the_split_writes_both_operands_parts_chunk_by_chunk_in_one_launch(monkeypatch, segments, chunk):
    ran = _launches(monkeypatch)
    g = generator(7)
    a, b = draw((70, 300), g, "heavy"), draw((300, 67), g, "heavy")  # ragged against the 64-blocks and the chunks
    a3, bt3 = k3.split_k3(a, b, segments, chunk)
    assert ran == ["split"]
    kp = triton.cdiv(300, chunk) * chunk  # 300 rounded up to the chunk
    assert a3.shape == (70, segments * kp) and bt3.shape == (67, segments * kp) and a3.is_contiguous()
    for x, parts, small_bits in ((a, a3, k3.SMALL_SEGMENTS[segments][0]), (b.t(), bt3, k3.SMALL_SEGMENTS[segments][1])):
        big, small = _padded(_tf32(x), kp), None
        for s, segment in enumerate(_segments(parts, segments, chunk)):
            if small_bits >> s & 1:
                small = segment
            else:
                assert torch.equal(segment, big)  # the big part: x rounded to TF32, the pad zero
        assert torch.equal(small, _tf32(small)) and (small != 0).any()  # the small part TF32-representable too
        assert not small[:, 300:].any()
        padded = _padded(x, kp).double()
        assert ((big.double() + small.double() - padded).abs() <= 2.0**-22 * padded.abs()).all()


def test_the_three_segments_pair_to_big_big_plus_both_cross_terms():
    """Σ over K' of A'·B'ᵀ is exactly a_big·b_big + a_big·b_small + a_small·b_big (float64 sums of TF32 products)."""
    g = generator(3)
    a, b = draw((33, 300), g, "heavy"), draw((300, 20), g, "heavy")
    a3, bt3 = k3.split_k3(a, b, 3)
    kp = 3 * k3.CHUNK
    a_big, b_big = _padded(_tf32(a), kp).double(), _padded(_tf32(b.t()), kp).double().t()
    a_small, b_small = _padded(a, kp).double() - a_big, _padded(b.t(), kp).double().t() - b_big
    a_small, b_small = _tf32(a_small.float()).double(), _tf32(b_small.float()).double()
    expected = a_big @ b_big + a_big @ b_small + a_small @ b_big
    assert torch.allclose(a3.double() @ bt3.double().t(), expected, rtol=1e-13, atol=0)
    # Segment by segment, in the order the product sums them: small terms first, big·big last.
    (a0, a1, a2), (b0, b1, b2) = _segments(a3.double(), 3), _segments(bt3.double(), 3)
    assert torch.equal(a0, a_big) and torch.equal(b0.t(), b_small)
    assert torch.equal(a1, a_small) and torch.equal(b1.t(), b_big)
    assert torch.equal(a2, a_big) and torch.equal(b2.t(), b_big)


@pytest.mark.parametrize("params", RAGGED, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
@pytest.mark.parametrize("name", CHUNKS)
def test_k3_takes_two_launches_and_passes_the_ieee_contract_on_ragged_tiles(monkeypatch, name, params):
    ran = _launches(monkeypatch)
    impl = _impl(name)
    result = check(impl, registry.baseline_of(impl), registry.get_op("matmul"), Case("matmul", "t", "seed", params, 3),
                   "cpu", seed=5)
    assert result.passed, result.reason
    assert result.rel_error <= 1e-5  # the ieee ceiling the contract holds tf32x3 to
    assert set(ran) == {"split", "k3"} and ran.count("split") == ran.count("k3")


@pytest.mark.parametrize("name", CHUNKS)
def test_k3_sums_every_chunk_and_the_small_terms_to_ieee_accuracy_on_heavy_tails(name):
    """Big·big alone errs by TF32's 1e-3; over two to eight chunks with both small terms the interpreter's float32
    dots reach 1e-6 (a chunk dropped or stored alone would err by its share of the sum)."""
    g = generator(3)
    a, b = draw((96, 1024), g, "heavy"), draw((1024, 64), g, "heavy")
    ref = a.double() @ b.double()
    assert _rel_error(_tf32(a) @ _tf32(b), ref) > 1e-4
    assert _rel_error(_impl(name).fn(a, b), ref) < 1e-6


@pytest.mark.parametrize("params", [{"m": 33, "k": 47, "n": 65}, {"m": 16, "k": 64, "n": 30}, {"m": 8, "k": 0, "n": 8}],
                         ids=["odd-k", "odd-n", "empty-k"])
def test_shapes_tma_cannot_address_take_the_tile_kernel(monkeypatch, params):
    ran = _launches(monkeypatch)
    impl = _impl("triton.k3/default/tf32x3")
    result = check(impl, registry.baseline_of(impl), registry.get_op("matmul"), Case("matmul", "t", "seed", params, 3),
                   "cpu", seed=5)
    assert result.passed, result.reason
    assert "split" not in ran and "k3" not in ran


@pytest.mark.parametrize("name", CHUNKS)
def test_each_k3_strategy_flushes_at_its_chunk(monkeypatch, name):
    """The chunk reaches the split (its layout) and the product (its flushes) as one constexpr; K 300 pads to it."""
    launched = []

    def recording(kernel, label):
        run = kernel.run
        monkeypatch.setattr(kernel, "run",
                            lambda *args, **kw: (launched.append((label, kw["CHUNK"])), run(*args, **kw))[1])

    recording(k3._split_k3_kernel, "split")
    recording(k3._matmul_k3_kernel, "k3")
    g = generator(1)
    a, b = draw((40, 300), g, "normal"), draw((300, 24), g, "normal")
    out = _impl(name).fn(a, b)
    chunk = CHUNKS[name]
    assert launched == [("split", chunk), ("k3", chunk)]
    assert _rel_error(out, a.double() @ b.double()) < 1e-6


def test_k3_configs_fit_in_shared_memory_and_keep_both_accumulators_in_registers():
    for shape in k3.K3_SHAPES:
        bm, bn, bk, _, _, _, programs = shape
        assert programs * (k3.shared_bytes(shape) + 1024) <= tile_path.SHARED_BYTES, shape
        assert bm * bn <= 128 * 128 and all(chunk % bk == 0 for chunk in CHUNKS.values()), shape
    assert all(chunk % k3.SPLIT_BLOCK == 0 for chunk in CHUNKS.values())  # a split block never straddles two chunks


@pytest.mark.parametrize("params", RAGGED, ids=lambda p: f"{p['m']}x{p['k']}x{p['n']}")
def test_swap_reads_a_strided_a_and_b_as_it_is_in_one_launch(monkeypatch, params):
    """tf32 needs CUDA as a registered implementation; its launcher runs here with float32 dots, b rounded to TF32
    in registers (the rounding that makes it the wgmma's register operand), a as it is."""
    ran = _launches(monkeypatch)
    m, k, n = params["m"], params["k"], params["n"]
    a = torch.randn(m, k + 8)[:, :k]  # rows 16-byte aligned but not contiguous: the descriptor takes the stride
    b = torch.randn(k, n)
    out = swap._matmul(a, b)
    assert _rel_error(out, a.double() @ _tf32(b).double()) < 1e-6
    assert _rel_error(out, a.double() @ b.double()) > 1e-5  # b was rounded: the product is a TF32 one
    assert ran == ["swap"]


def test_swap_launches_a_given_config_as_it_is_over_several_tiles_a_program(monkeypatch):
    """The GPU checks launch each config by name, the autotuner bypassed; 100 × 76 in 32 × 32 tiles is 12 tiles for
    the interpreter's 3 programs, so each program's later tiles are checked too."""
    ran = _launches(monkeypatch)
    a, b = torch.randn(100, 68), torch.randn(68, 76)
    out = swap._matmul(a, b, swap.swap_config(32, 32, 32, 4, 1, 2))
    assert _rel_error(out, a.double() @ _tf32(b).double()) < 1e-6
    assert ran == []  # not through the autotuner


_SWAP_CONFIGS_COMPILE = r'''
import sys
from mage.ops.matmul import triton_swap
from sm90_compile import compile_signature

signature = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
             "stride_am": "i32", "stride_bk": "i32"}
for shape in triton_swap.SWAP_SHAPES + triton_swap.REFUSED_SHAPES:
    ptx = compile_signature(triton_swap._matmul_swap_kernel, signature, {"NUM_SMS": 132},
                            triton_swap.swap_config(*shape)).asm["ptx"]
    shapes = sorted({word for word in ptx.split() if word.startswith("wgmma.mma_async")})
    print(repr(shape), " ".join(shapes), sep="\t")
'''


def test_every_swap_config_issues_n128_wgmmas_the_shape_the_h200_got_right():
    """Runs 66-67 refused swap where the autotuner chose BLOCK_M 256 (wgmma m64n256k8, its register operand read
    for twice as long while the next one is loaded: see triton_swap's docstring). Every registered config compiles
    to m64n128k8 wgmmas, each refused one to m64n{BLOCK_M}k8: the BLOCK_M 256 ones to n256, and the one refused
    later for its second epilogue slice to n128, the wgmma of the configs that are right."""
    done = run_compiled("-c", _SWAP_CONFIGS_COMPILE)
    assert done.returncode == 0, done.stderr[-3000:]
    wgmmas = dict(line.split("\t") for line in done.stdout.strip().splitlines() if line.startswith("("))
    for shape in swap.SWAP_SHAPES:
        assert wgmmas[repr(shape)] == "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32", shape
    for shape in swap.REFUSED_SHAPES:
        assert wgmmas[repr(shape)] == f"wgmma.mma_async.sync.aligned.m64n{shape[0]}k8.f32.tf32.tf32", shape


_SM90_COMPILE = r'''
import sys
from mage.ops.matmul import triton_k3, triton_swap
from sm90_compile import compile_signature

f32 = "*fp32"
k3_signature = {"a3_ptr": f32, "bt3_ptr": f32, "c_ptr": f32, "M": "i32", "N": "i32", "K_PADDED": "i32"}
swap_signature = {"a_ptr": f32, "b_ptr": f32, "c_ptr": f32, "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32",
                  "stride_bk": "i32"}
kernels = {
    "k3": compile_signature(triton_k3._matmul_k3_kernel, k3_signature, {"MAPPED": False, "CHUNK": triton_k3.CHUNK}),
    "k3map": compile_signature(triton_k3._matmul_k3_kernel, k3_signature, {"MAPPED": True, "CHUNK": triton_k3.CHUNK}),
    "swap": compile_signature(triton_swap._matmul_swap_kernel, swap_signature, {"NUM_SMS": 132}),
}
for name, kernel in kernels.items():
    with open(f"{sys.argv[1]}/{name}.ttgir", "w") as f:
        f.write(kernel.asm["ttgir"])
    with open(f"{sys.argv[1]}/{name}.ptx", "w") as f:
        f.write(kernel.asm["ptx"])
'''


@pytest.fixture(scope="module")
def hopper(tmp_path_factory):
    """The k3, k3map and swap products (first config) compiled for sm_90: {name: (ttgir, ptx)}."""
    folder = tmp_path_factory.mktemp("sm90")
    done = run_compiled("-c", _SM90_COMPILE, str(folder))
    assert done.returncode == 0, done.stderr[-3000:]
    return {name: ((folder / f"{name}.ttgir").read_text(), (folder / f"{name}.ptx").read_text())
            for name in ("k3", "k3map", "swap")}


def _waits(ptx: str) -> list[str]:
    return [line.split()[-1].rstrip(";") for line in ptx.splitlines() if "wgmma.wait_group" in line]


@pytest.mark.parametrize("name", ["k3", "k3map"])
def test_k3_issues_one_async_wgmma_chain_and_waits_for_it_only_at_a_chunk_end(hopper, name):
    """triton.persistent's tf32x3 waits for each of its three dots a K step; here the K' loop keeps one wgmma in
    flight (wait_group 1) and the full waits are the chunk's drain and the kernel's end."""
    ttgir, ptx = hopper[name]
    assert ttgir.count("ttng.warp_group_dot ") == 1 and "isAsync = true" in ttgir
    assert _waits(ptx).count("1") == 1 and _waits(ptx).count("0") == 2
    drain = ttgir[ttgir.index("pendings = 0"):]
    assert "arith.addf" in drain.split("scf.yield")[0]  # the round-to-nearest add follows the chunk's drain


def test_swap_feeds_b_to_the_wgmma_from_registers_and_a_from_shared_memory(hopper):
    ttgir, ptx = hopper["swap"]
    dots = [line for line in ttgir.splitlines() if "ttng.warp_group_dot " in line]
    assert dots and all(": tensor<" in line and "opIdx = 0" in line and "!ttg.memdesc<" in line for line in dots)
    assert "memdesc_trans %bt" not in ttgir  # b's tile never goes back to shared memory transposed
    assert "3" in _waits(ptx)  # several wgmmas in flight, not a full wait after each


@needs_ptxas
@pytest.mark.parametrize("name", ["k3", "k3map", "swap"])
def test_ptxas_keeps_the_wgmmas_pipelined_without_spilling(hopper, tmp_path, name):
    (tmp_path / "kernel.ptx").write_text(hopper[name][1])
    done = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(tmp_path / "kernel.ptx"), "-o", str(tmp_path / "kernel.cubin")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "C7515" not in done.stderr and "C7514" not in done.stderr, done.stderr  # wgmmas serialized
    assert "0 bytes spill stores" in done.stderr, done.stderr
