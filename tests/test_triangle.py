"""Triangle's layouts and sweep cases, and ``triton.channel`` (one 2-D dot per channel, any layout),
under the Triton interpreter: one config, 64 × 64 × 32 tiles, so the first shape below spans 2 × 2 tiles
and three k steps with ragged edges. The interpreter's dot is float32 whatever its input_precision: tf32x3 here checks
indexing, not rounding (tests/test_triangle_gpu.py checks the GPU's)."""

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by mage or by this file

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import registry  # noqa: E402
from mage.check import check  # noqa: E402
from mage.errors import InputError  # noqa: E402
from mage.ops.triangle import triton_cblock, triton_channel  # noqa: E402
from mage.ops.triangle.spec import CHANNEL_LAST, LAYOUTS, SPEC  # noqa: E402
from mage.spec import Case  # noqa: E402
from test_triton import _compile_for_hopper, needs_ptxas  # noqa: E402

SHAPES = {
    "ragged-tiles-and-channels": {"batch": 1, "n": 70, "c": 5},
    "batch-2": {"batch": 2, "n": 17, "c": 3},
    "one-pair": {"batch": 1, "n": 1, "c": 1},
}
CHANNEL = [i for i in registry.implementations("triangle") if i.backend == "triton.channel"]


def _case(params: dict, layout: str, name: str = "test") -> Case:
    return Case("triangle", name, "seed", {**params, "layout": layout}, seed=19)


# ---------------------------------------------------------------- layouts and cases


@pytest.mark.parametrize("layout", LAYOUTS)
def test_each_layout_holds_the_channel_last_values_in_its_own_memory_order(layout):
    params = {"batch": 2, "n": 5, "c": 3}
    a, b = SPEC.make_inputs(_case(params, layout), 7, "cpu", "heavy")
    plain_a, plain_b = SPEC.make_inputs(_case(params, CHANNEL_LAST), 7, "cpu", "heavy")
    assert torch.equal(a, plain_a) and torch.equal(b, plain_b)
    # Memory order, outermost first: strides fall along LAYOUTS[layout].
    for t in (a, b):
        strides = [t.stride(d) for d in LAYOUTS[layout]]
        assert strides == sorted(strides, reverse=True) and strides[-1] == 1


def test_channel_first_layouts_make_k_contiguous_for_one_variant_each():
    a, _ = SPEC.make_inputs(_case({"batch": 1, "n": 4, "c": 3}, "channel-first"), 1, "cpu")
    assert a.stride(2) == 1  # outgoing's k (a[b, i, k, c])
    a, _ = SPEC.make_inputs(_case({"batch": 1, "n": 4, "c": 3}, "channel-first-transposed"), 1, "cpu")
    assert a.stride(1) == 1  # incoming's k (a[b, k, i, c])


def test_the_sweep_reaches_n_768_and_1024_and_repeats_the_large_case_in_each_layout():
    large = SPEC.case("B1-N512-C128")
    for name, n in (("B1-N768-C128", 768), ("B1-N1024-C128", 1024)):
        case = SPEC.case(name)
        assert case.suite == "sweep"
        assert SPEC.flops(case, "outgoing") == 2 * n**3 * 128
        assert SPEC.bytes(case, "incoming") == 4 * 3 * n**2 * 128
    for layout in ("channel-first", "channel-first-transposed"):
        case = SPEC.case(f"B1-N512-C128-{layout}")
        assert case.suite == "sweep" and case.params["layout"] == layout and case.seed == large.seed
        assert SPEC.flops(case, "outgoing") == SPEC.flops(large, "outgoing")
    assert "layout" not in large.params  # channel-last cases keep their names and params


def test_channel_last_kernels_skip_the_layout_cases_with_the_reason():
    case = SPEC.case("B1-N512-C128-channel-first")
    any_layout = ("triton.channel", "triton.relayout", "triton.relayout3")  # they read every layout's strides
    for impl in registry.implementations("triangle"):
        reason = impl.case_skip_reason(case.params)
        if impl.backend not in any_layout and impl.family in ("triton", "native", "native-py"):
            assert reason and "channel-last inputs only" in reason and "channel-first" in reason, impl.name
            assert impl.case_skip_reason(SPEC.case("B1-N512-C128").params) is None
        else:
            assert reason is None, impl.name


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("variant", SPEC.variants)
def test_eager_meets_the_reference_on_every_layout(layout, variant):
    eager = registry.baseline_for("triangle", variant, "ieee")
    result = check(eager, eager, SPEC, _case(SHAPES["batch-2"], layout), "cpu", 3)
    assert result.passed and result.rel_error < 1e-6, result.reason


# ---------------------------------------------------------------- triton.channel


def test_triton_channel_declares_ieee_tf32_and_tf32x3_for_both_variants():
    assert {(i.variant, i.precision) for i in CHANNEL} == {
        (v, p) for v in SPEC.variants for p in ("ieee", "tf32", "tf32x3")}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("impl", [i for i in CHANNEL if i.precision != "tf32"], ids=lambda i: i.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_triton_channel_contract_on_every_layout(shape, impl, layout):
    result = check(impl, registry.baseline_of(impl), SPEC, _case(SHAPES[shape], layout), "cpu", 11)
    assert result.passed, result.reason


def test_triton_channel_variants_are_not_interchangeable():
    a, b = SPEC.make_inputs(_case(SHAPES["batch-2"], CHANNEL_LAST), 5, "cpu")
    out = {i.variant: i.fn(a, b) for i in CHANNEL if i.precision == "ieee"}
    torch.testing.assert_close(out["outgoing"], torch.einsum("bikc,bjkc->bijc", a, b), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out["incoming"], torch.einsum("bkic,bkjc->bijc", a, b), rtol=1e-5, atol=1e-5)
    assert not torch.allclose(out["outgoing"], out["incoming"])


@pytest.mark.parametrize("layout, channel_fastest", [("channel-last", True), ("channel-first", False),
                                                     ("channel-first-transposed", False)])
def test_triton_channel_orders_programs_for_the_layout(monkeypatch, layout, channel_fastest):
    """Channel-last: the channels of a tile side by side (they share DRAM sectors); channel-first:
    a channel's tiles together (they share its row panels)."""
    seen = []
    kernel = triton_channel._triangle_channel_kernel

    class Recording:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                seen.append(kwargs["CHANNEL_FASTEST"])
                return kernel[grid](*args, **kwargs)
            return launch

    monkeypatch.setattr(triton_channel, "_triangle_channel_kernel", Recording())
    impl = next(i for i in CHANNEL if (i.variant, i.precision) == ("incoming", "ieee"))
    a, b = SPEC.make_inputs(_case(SHAPES["batch-2"], layout), 5, "cpu")
    torch.testing.assert_close(impl.fn(a, b), torch.einsum("bkic,bkjc->bijc", a, b), rtol=1e-5, atol=1e-5)
    assert seen == [channel_fastest]


_SM90_LAYOUTS = r'''
from sm90_compile import compile_for_hopper, products
from mage import registry
from mage.ops.triangle.spec import LAYOUTS, SPEC
from mage.spec import Case

launched = compile_for_hopper()
for layout in LAYOUTS:
    case = Case("triangle", "sm90", "seed", {"batch": 1, "n": 64, "c": 16, "layout": layout}, seed=1)
    for impl in registry.implementations("triangle"):
        if impl.backend == "triton.channel":
            launched.clear()
            impl.fn(*SPEC.make_inputs(case, 1, "cpu"))
            for kernel in launched:
                print("compiled", f"{impl.name}@{layout}", kernel.name, "products:", products(kernel), flush=True)
'''


@needs_ptxas
def test_triton_channel_reaches_wgmma_for_tf32_on_every_layout():
    """Each layout compiles a kernel of its own (strides of 1 are specialized): every tf32 and tf32x3 one
    runs its 2-D dots on Hopper's wgmma, whichever index is contiguous."""
    compiled = _compile_for_hopper("-c", _SM90_LAYOUTS)["_triangle_channel_kernel"]
    assert {name for name, _ in compiled} == {f"{i.name}@{layout}" for i in CHANNEL for layout in LAYOUTS}
    for name, product in compiled:
        assert product == ("mma.sync" if "/ieee@" in name else "wgmma"), name  # ieee's dot stays tt.dot (FMA)


# ---------------------------------------------------------------- triton.cblock

CBLOCK = [i for i in registry.implementations("triangle") if i.backend == "triton.cblock"]
# Both products at tiles smaller than the shapes below: 32 × 32 tiles and k steps of 16 leave ragged
# edges in i, j and k at N 37, and eight channels a slab leave C 11's second slab three wide.
CBLOCK_SHAPES = {"ragged-tiles-and-channels": {"batch": 1, "n": 37, "c": 11}, "batch-2": {"batch": 2, "n": 17, "c": 3}}
CBLOCK_PRODUCTS = {"batched": {"PRODUCT": "batched", "BLOCK_C": 4}, "split": {"PRODUCT": "split", "BLOCK_C": 8}}


@pytest.fixture(params=CBLOCK_PRODUCTS, ids=str)
def cblock_product(request, monkeypatch):
    """Each product in turn, as the one config of both kernels (the interpreter never autotunes)."""
    import triton

    for kernel in triton_cblock._KERNELS.values():
        config = triton.Config({**kernel.configs[0].kwargs, "BLOCK_I": 32, "BLOCK_J": 32, "BLOCK_K": 16, "GROUP_I": 2,
                                **CBLOCK_PRODUCTS[request.param]}, num_warps=4, num_stages=1)
        monkeypatch.setattr(kernel, "configs", [config])
    return request.param


def test_triton_cblock_declares_every_precision_for_both_variants_on_channel_last_only():
    assert {(i.variant, i.precision) for i in CBLOCK} == {(v, p) for v in SPEC.variants for p in SPEC.precisions}
    for impl in CBLOCK:
        assert impl.case_skip_reason(SPEC.case("B1-N512-C128").params) is None
        assert "channel-last inputs only" in impl.case_skip_reason(SPEC.case("B1-N512-C128-channel-first").params)


@pytest.mark.parametrize("impl", [i for i in CBLOCK if i.precision in ("ieee", "bf16", "fp16")], ids=lambda i: i.name)
@pytest.mark.parametrize("shape", CBLOCK_SHAPES, ids=str)
def test_triton_cblock_contract_with_each_product(cblock_product, shape, impl):
    """Against float64 through the contract (normal and heavy-tailed inputs, poisoned output): every
    channel of every ragged tile and slab lands where it belongs, at fp32 and 16-bit."""
    result = check(impl, registry.baseline_of(impl), SPEC, _case(CBLOCK_SHAPES[shape], CHANNEL_LAST), "cpu", 13)
    assert result.passed, result.reason


@pytest.mark.parametrize("precision, dtype", [("bf16", torch.bfloat16), ("fp16", torch.float16)])
def test_triton_cblock_16_bit_returns_its_input_dtype(cblock_product, precision, dtype):
    impl = next(i for i in CBLOCK if (i.variant, i.precision) == ("incoming", precision))
    a, b = SPEC.make_inputs_at(_case(CBLOCK_SHAPES["batch-2"], CHANNEL_LAST), 5, "cpu", "normal", precision)
    out = impl.fn(a, b)
    assert out.dtype == dtype and out.shape == a.shape
    expected = torch.einsum("bkic,bkjc->bijc", a.double(), b.double())
    torch.testing.assert_close(out.double(), expected, rtol=2e-2, atol=2e-2 * expected.abs().max().item())


def test_triton_cblock_refuses_mixed_dtypes_in_one_line():
    impl = next(i for i in CBLOCK if i.precision == "bf16")
    a, b = SPEC.make_inputs_at(_case(CBLOCK_SHAPES["batch-2"], CHANNEL_LAST), 5, "cpu", "normal", "bf16")
    with pytest.raises(InputError, match=r"b must have a's dtype bfloat16, got float32"):
        impl.fn(a, b.float())


_SM90_CBLOCK = r'''
import os, re, subprocess, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from sm90_compile import products
from mage.ops.triangle import triton_cblock

tools = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
for element_bytes, dtype in ((4, "fp32"), (2, "bf16")):
    kernel = triton_cblock._KERNELS[element_bytes]
    pointers = {name: f"*{dtype}" for name in ("a_ptr", "b_ptr", "out_ptr")}
    scalars = {name: "i32" for name in ("N", "C", "a_sb", "a_si", "a_sk", "b_sb", "b_sj", "b_sk")}
    signature = {**pointers, **scalars}
    for config in kernel.configs:
        constexprs = {"PRECISION": "tf32", **config.kwargs}
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
        print("compiled", f"{dtype}/{config.kwargs['PRODUCT']}/stack={stack}", compiled.name, "products:",
              products(compiled), flush=True)
'''


@needs_ptxas
def test_triton_cblock_configs_compile_for_hopper_without_spills_and_reach_the_product_they_name():
    """Every autotune config of both widths, compiled for sm_90: the split product on wgmma, the batched
    one on mma.sync (Triton has no batched wgmma), and none with a stack frame (ptxas spills to it)."""
    compiled = _compile_for_hopper("-c", _SM90_CBLOCK)["_triangle_cblock_kernel"]
    counts = {}
    for name, product in compiled:
        dtype, chosen, stack = name.split("/")
        assert product == {"batched": "mma.sync", "split": "wgmma"}[chosen], name
        assert stack == "stack=0", name
        counts[dtype, chosen] = counts.get((dtype, chosen), 0) + 1
    assert set(counts) == {(d, p) for d in ("fp32", "bf16") for p in CBLOCK_PRODUCTS}
