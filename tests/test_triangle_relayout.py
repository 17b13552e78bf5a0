"""``triton.relayout`` and ``triton.relayout3`` under the Triton interpreter: the relayout copy (8 × 16 × 8
boxes here), the batched TMA GEMM (32 × 32 tiles, k steps of 16, channel groups of 4), both epilogues,
every layout, through the contract against float64. N 37 leaves ragged i, j and k tiles and unaligned
rows (the copies pad them to 48); C 11 leaves a part-full channel group (11 = 2 · 4 + 3) and a part-full
relayout box (8 channels). The interpreter's dot is float32 whatever its input_precision, so tf32x3 here
checks indexing, not rounding, and tf32 (CUDA only) is checked by tests/test_triangle_relayout_gpu.py."""

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by mage or by this file

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import registry  # noqa: E402
from mage.check import check  # noqa: E402
from mage.errors import InputError  # noqa: E402
from mage.ops.triangle import triton_relayout  # noqa: E402
from mage.ops.triangle.spec import CHANNEL_LAST, LAYOUTS, SPEC, laid_out  # noqa: E402
from mage.spec import Case  # noqa: E402
from test_triton import _compile_for_hopper, needs_ptxas  # noqa: E402

STRATEGIES = ("triton.relayout", "triton.relayout3")
RELAYOUT = {(i.backend, i.variant, i.precision): i for i in registry.implementations("triangle")
            if i.backend in STRATEGIES}
RAGGED = {"batch": 1, "n": 37, "c": 11}
EQUATIONS = {"outgoing": "bikc,bjkc->bijc", "incoming": "bkic,bkjc->bijc"}


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Blocks smaller than the shapes below, as the one config of every kernel (the interpreter's own are
    large, for the seed case's speed): ragged edges in every dimension of the copy and the product."""
    import triton

    monkeypatch.setattr(triton_relayout._triangle_relayout_kernel, "configs",
                        [triton.Config({"BLOCK_R": 8, "BLOCK_K": 16, "BLOCK_C": 8}, num_warps=4)])
    for kernel in triton_relayout.GEMM_KERNELS.values():
        config = triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "CHANNEL_GROUP": 4, "GROUP_M": 4},
                               num_warps=4, num_stages=1)
        monkeypatch.setattr(kernel, "configs", [config])


def _case(params: dict, layout: str = CHANNEL_LAST) -> Case:
    return Case("triangle", "test", "seed", {**params, "layout": layout}, seed=23)


def _contract(impl, params: dict, layout: str = CHANNEL_LAST):
    result = check(impl, registry.baseline_of(impl), SPEC, _case(params, layout), "cpu", 29)
    assert result.passed, result.reason
    return result


def test_both_strategies_declare_every_precision_for_both_variants_and_take_every_layout():
    assert set(RELAYOUT) == {(s, v, p) for s in STRATEGIES for v in SPEC.variants for p in SPEC.precisions}
    for impl in RELAYOUT.values():
        for layout in LAYOUTS:
            name = "B1-N512-C128" if layout == CHANNEL_LAST else f"B1-N512-C128-{layout}"
            assert impl.case_skip_reason(SPEC.case(name).params) is None, (impl.name, layout)


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "bf16", "fp16"])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_relayout_contract_on_ragged_tiles_and_channels(variant, precision):
    _contract(RELAYOUT["triton.relayout", variant, precision], RAGGED)


@pytest.mark.parametrize("variant", SPEC.variants)
def test_relayout3_contract_on_ragged_tiles_and_channels_over_two_batches(variant):
    """The channel-first product and its copy back, and the epilogue's batch index (g // C)."""
    _contract(RELAYOUT["triton.relayout3", variant, "ieee"], {"batch": 2, "n": 21, "c": 3})
    _contract(RELAYOUT["triton.relayout3", variant, "bf16"], RAGGED)


@pytest.mark.parametrize("layout", [layout for layout in LAYOUTS if layout != CHANNEL_LAST])
@pytest.mark.parametrize("variant", SPEC.variants)
def test_relayout_contract_on_the_channel_first_layouts(variant, layout):
    """Unaligned rows (N 37): every channel-first layout goes through the copy, from its own strides."""
    _contract(RELAYOUT["triton.relayout", variant, "ieee"], RAGGED, layout)


@pytest.fixture
def relayout_launches(monkeypatch):
    """The relayout launches of each call: (grid's operand count, source strides)."""
    seen = []
    kernel = triton_relayout._triangle_relayout_kernel

    class Recording:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                meta = {"BLOCK_R": 8, "BLOCK_K": 16, "BLOCK_C": 8}
                seen.append((grid(meta)[1], tuple(args[7:11])))
                return kernel[grid](*args, **kwargs)
            return launch

    monkeypatch.setattr(triton_relayout, "_triangle_relayout_kernel", Recording())
    return seen


# (variant, a's layout, b's layout): the relayout launches and how many operands each copies. K-major
# inputs (channel-first with k contiguous, N 40: 16-byte rows) go to the GEMM as they are.
LAUNCHES = [
    ("outgoing", CHANNEL_LAST, CHANNEL_LAST, [2]),
    ("incoming", CHANNEL_LAST, CHANNEL_LAST, [2]),
    ("outgoing", "channel-first", "channel-first", []),
    ("incoming", "channel-first-transposed", "channel-first-transposed", []),
    ("incoming", "channel-first", "channel-first", [2]),
    ("outgoing", "channel-first-transposed", CHANNEL_LAST, [1, 1]),  # strides differ: a launch each
    ("outgoing", "channel-first", CHANNEL_LAST, [1]),  # a is K-major already
]


@pytest.mark.parametrize("variant, a_layout, b_layout, operands", LAUNCHES, ids=str)
def test_relayout_copies_only_operands_that_are_not_k_major(relayout_launches, variant, a_layout, b_layout, operands):
    a, b = torch.randn(1, 40, 40, 3), torch.randn(1, 40, 40, 3)
    expected = torch.einsum(EQUATIONS[variant], a.double(), b.double())
    impl = RELAYOUT["triton.relayout", variant, "ieee"]
    out = impl.fn(laid_out(a, a_layout), laid_out(b, b_layout))
    torch.testing.assert_close(out.double(), expected, rtol=1e-5, atol=1e-4)
    assert [count for count, _ in relayout_launches] == operands


def test_relayout3_copies_the_product_back_in_one_more_launch(relayout_launches):
    a, b = (laid_out(torch.randn(1, 40, 40, 3), "channel-first") for _ in range(2))
    out = RELAYOUT["triton.relayout3", "outgoing", "ieee"].fn(a, b)
    torch.testing.assert_close(out, torch.einsum(EQUATIONS["outgoing"], a, b), rtol=1e-5, atol=1e-4)
    # The channel-first product (B × C × N × N, rows padded to 48 for its TMA stores) read as (batch, i, j,
    # channel).
    assert relayout_launches == [(1, (3 * 40 * 48, 48, 1, 40 * 48))]
    assert out.is_contiguous()


@pytest.mark.parametrize("dims", [(0, 1, 2, 3), (0, 2, 1, 3), (3, 0, 2, 1)], ids=str)
def test_the_relayout_kernel_copies_any_strides_exactly(dims):
    """Both pairs of one launch, bit for bit, from permuted sources into a padded destination."""
    sources = [torch.randn(17, 2, 9, 13).permute(dims) for _ in range(2)]
    destinations = [torch.full((*s.shape[:3], 24), float("nan"))[..., : s.shape[3]] for s in sources]
    triton_relayout.relayout(list(zip(sources, destinations)))
    for s, d in zip(sources, destinations):
        assert torch.equal(s, d)


def test_relayout_refuses_mixed_dtypes_in_one_line():
    a, b = SPEC.make_inputs_at(_case(RAGGED), 5, "cpu", "normal", "bf16")
    with pytest.raises(InputError, match=r"b must have a's dtype bfloat16, got float32"):
        RELAYOUT["triton.relayout", "outgoing", "bf16"].fn(a, b.float())


def test_empty_pairs_return_an_empty_output_without_a_launch(relayout_launches):
    out = RELAYOUT["triton.relayout", "incoming", "ieee"].fn(torch.randn(1, 0, 0, 4), torch.randn(1, 0, 0, 4))
    assert out.shape == (1, 0, 0, 4) and relayout_launches == []


_SM90_GEMM = r'''
import os, re, subprocess, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from sm90_compile import products
from mage.ops.triangle import triton_relayout

tools = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
names = ["a_ptr", "b_ptr", "out_ptr", "N", "C", "G", "a_rows", "b_rows", "o_sb", "o_sc", "o_si", "o_sj"]
# (kind, dtype, input_precision, epilogue): the channel-last epilogue has o_sc 1 (specialized), the
# channel-first one o_sj 1.
for kind, dtype, precision, unit in (("tf32", "fp32", "tf32", "o_sc"), ("tf32", "fp32", "tf32", "o_sj"),
                                     ("tf32x3", "fp32", "tf32x3", "o_sc"), ("16-bit", "bf16", "tf32", "o_sc"),
                                     ("ieee", "fp32", "ieee", "o_sc")):
    kernel = triton_relayout.GEMM_KERNELS[kind]
    signature = {n: f"*{dtype}" if n.endswith("ptr") else "i32" for n in names if n != unit}
    for config in kernel.configs:
        constexprs = {"NUM_SMS": 132, "PRECISION": precision, "TMA_EPILOGUE": unit == "o_sj", unit: 1, **config.kwargs}
        attrs = {(list(signature).index(n),): [["tt.divisibility", 16]] for n in signature}
        src = ASTSource(kernel.fn, {**signature, **{k: "constexpr" for k in constexprs}}, constexprs, attrs)
        compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": config.num_warps, "num_stages": config.num_stages})
        with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
            cubin.write(compiled.asm["cubin"])
            cubin.flush()
            usage = subprocess.run([os.path.join(tools, "cuobjdump"), "--dump-resource-usage", cubin.name],
                                   capture_output=True, text=True, check=True).stdout
        stack = re.search(r"STACK:(\d+)", usage).group(1)
        tma_store = re.search(r"cp\.async\.bulk\.tensor\.\dd\.global\.shared", compiled.asm["ptx"]) is not None
        shape = f"warps={config.num_warps}/smem={compiled.metadata.shared}"
        print("compiled", f"{kind}/{unit}/stack={stack}/tma_store={tma_store}/{shape}", compiled.name, "products:",
              products(compiled), flush=True)
'''


@needs_ptxas
def test_every_gemm_config_compiles_for_hopper_without_spills_on_the_tensor_cores_it_names():
    """Every autotune config of every GEMM kind and epilogue, compiled for sm_90: tf32, tf32x3 and 16-bit on
    wgmma (ieee's fp32 dot stays a tt.dot, FMA), none with a stack frame (ptxas spills to it); the
    channel-first epilogue (o_sj 1) stores through TMA, the channel-last one does not, and tf32's has
    two-warpgroup configs inside sm_90's 227 KiB of shared memory beside its TMA store buffers."""
    compiled = _compile_for_hopper("-c", _SM90_GEMM)["_triangle_gemm_kernel"]
    seen, fitting_two_warpgroups = set(), 0
    for name, product in compiled:
        kind, epilogue, stack, tma_store, warps, smem = name.split("/")
        assert product == ("mma.sync" if kind == "ieee" else "wgmma"), name
        assert stack == "stack=0", name
        assert tma_store == f"tma_store={epilogue == 'o_sj'}", name
        fitting_two_warpgroups += (kind, epilogue, warps) == ("tf32", "o_sj", "warps=8") and int(smem[5:]) <= 227 * 1024
        seen.add((kind, epilogue))
    assert seen == {("tf32", "o_sc"), ("tf32", "o_sj"), ("tf32x3", "o_sc"), ("16-bit", "o_sc"), ("ieee", "o_sc")}
    assert fitting_two_warpgroups >= 3


_SM90_RELAYOUT = r'''
import os, re, subprocess, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from mage.ops.triangle import triton_relayout

kernel = triton_relayout._triangle_relayout_kernel
tools = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
names = ["src0_ptr", "dst0_ptr", "src1_ptr", "dst1_ptr", "R", "K", "C", "s_b", "s_r", "s_k", "s_c", "d_b", "d_r",
         "d_k", "d_c"]
# The unit strides (specialized) of channel-last to K-major (the operands) and channel-first to channel-last
# (the product back).
for units in (("s_c", "d_k"), ("s_k", "d_c")):
    signature = {n: "*fp32" if n.endswith("ptr") else "i32" for n in names if n not in units}
    for config in kernel.configs:
        constexprs = {**{unit: 1 for unit in units}, **config.kwargs}
        attrs = {(list(signature).index(n),): [["tt.divisibility", 16]] for n in signature}
        src = ASTSource(kernel.fn, {**signature, **{k: "constexpr" for k in constexprs}}, constexprs, attrs)
        compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": config.num_warps})
        with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
            cubin.write(compiled.asm["cubin"])
            cubin.flush()
            usage = subprocess.run([os.path.join(tools, "cuobjdump"), "--dump-resource-usage", cubin.name],
                                   capture_output=True, text=True, check=True).stdout
        usage = "/".join(re.search(rf"{key}:(\d+)", usage).group(0) for key in ("REG", "STACK"))
        print("compiled", f"{'-'.join(units)}/warps={config.num_warps}/{usage}", compiled.name, "products: none")
'''


@needs_ptxas
def test_every_relayout_config_compiles_for_hopper_without_spills_and_some_fit_four_programs_an_sm():
    """Both stride patterns, every config: no stack frame, and for each pattern 8-warp configs of at most 64
    registers a thread (65536 registers an SM: four programs of 256 threads), the occupancy run 65's choice
    (123 registers, two programs) lacked."""
    compiled = _compile_for_hopper("-c", _SM90_RELAYOUT)["_triangle_relayout_kernel"]
    four_an_sm = {}
    for name, _ in compiled:
        units, warps, registers, stack = name.split("/")
        assert stack == "STACK:0", name
        fits = warps == "warps=8" and int(registers[4:]) <= 64
        four_an_sm[units] = four_an_sm.get(units, 0) + fits
    assert set(four_an_sm) == {"s_c-d_k", "s_k-d_c"} and min(four_an_sm.values()) >= 1, four_an_sm
