"""Fused implementations of a block (mage.context.fusion, mage/context/fused/) on the CPU: how they are registered
and measured beside the per-op assignments, cuEquivariance's registration, skip and argument mapping, and Mage's
own fused triangle update held to the block's contract under Triton's interpreter.

The interpreter's dot is float32 whatever its input_precision, so tf32 and tf32x3 here check indexing, the
LayerNorms, gates and layouts, not rounding; their rounding on an H200: tests/test_context_fused_gpu.py."""

import os
from types import SimpleNamespace

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported, by mage or by this file

import pytest  # noqa: E402
import torch  # noqa: E402

from mage import check  # noqa: E402
from mage.backends.peers import CUEQUIVARIANCE  # noqa: E402
from mage.context import blocks, fusion, measure, trimul  # noqa: E402
from mage.context.block import BlockSpec, block_implementation  # noqa: E402
from mage.context.fused import trimul_cuequivariance, trimul_triton  # noqa: E402
from mage.measure.device import Timer  # noqa: E402
from mage.measure.method import Method  # noqa: E402
from mage.ops.triangle import triton_relayout  # noqa: E402
from sm90_compile import needs_ptxas, run_compiled  # noqa: E402

QUICK = Method(budget_s=0.02, min_samples=3, rounds=1, kernel_calls=3, warmup_calls=1, refresh_sets=2)
MAGE_FUSED = "fused(triton.pairformer)"
RESIDENT = "fused(triton.pairformer-resident)"
CUBLAS = "fused(triton.pairformer-cublas)"
PEER = "fused(cuequivariance)"
SM90_SHARED_BYTES = 227 * 1024  # what one program may hold on an H100 or H200


def _request(**changes) -> measure.Request:
    fields = dict(blocks=["trimul/outgoing-tiny"], precisions=["ieee"], device="cpu", method=QUICK, size="tiny",
                  compile_modes=())
    return measure.Request(**(fields | changes))


@pytest.fixture
def sized(monkeypatch):
    """Build a trimul block of any (variant, N, C), registered for the test alone."""

    def build(variant: str, n: int, c: int) -> trimul.TriangleUpdate:
        monkeypatch.setitem(trimul.TINY, f"{variant}-{n}x{c}", (variant, n, c))
        return trimul.TriangleUpdate(f"{variant}-{n}x{c}", "cpu")

    return build


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles smaller than the shapes below, as the one config of each kernel (the interpreter's own are large):
    several pair tiles with ragged edges, two steps of output channels, ragged GEMM tiles and channel groups."""
    import triton

    tile = triton.Config({"BLOCK_RUN": 16, "BLOCK_ACROSS": 8, "BLOCK_OUT": 16}, num_warps=4)
    for kernel in (trimul_triton._trimul_project_kernel, trimul_triton._trimul_output_kernel):
        monkeypatch.setattr(kernel, "configs", [tile])
        monkeypatch.setattr(kernel, "cache", {})
    # The resident kernels' programs (three under the interpreter) then take several tiles each.
    for kernel in (trimul_triton._trimul_project_resident_kernel, trimul_triton._trimul_output_resident_kernel):
        monkeypatch.setattr(kernel, "configs", [triton.Config({"BLOCK_RUN": 8, "BLOCK_ACROSS": 4, "STAGES": 2},
                                                              num_warps=4)])
        monkeypatch.setattr(kernel, "cache", {})
    for kernel in triton_relayout.GEMM_KERNELS.values():
        config = triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "CHANNEL_GROUP": 4, "GROUP_M": 4},
                               num_warps=4, num_stages=1)
        monkeypatch.setattr(kernel, "configs", [config])
        monkeypatch.setattr(kernel, "cache", {})


# Registration and the ways they are measured


def test_the_trimul_block_has_mage_s_fused_update_and_cuequivariance_s_at_each_precision():
    labels = {(impl.label, impl.precision) for impl in fusion.implementations("trimul")}
    assert labels == {(MAGE_FUSED, "tf32"), (MAGE_FUSED, "ieee"), (MAGE_FUSED, "bf16"), (RESIDENT, "bf16"),
                      (CUBLAS, "tf32"), (CUBLAS, "bf16"), (PEER, "tf32"), (PEER, "ieee"), (PEER, "bf16")}
    assert fusion.implementations("mlp") == []
    assert all(not impl.sites for impl in fusion.implementations("trimul"))  # each replaces the whole block


def test_cuequivariance_is_a_peer_skipped_with_its_reason_where_it_cannot_run():
    block = blocks.build("trimul/outgoing-tiny", "cpu")
    (peer,) = [impl for impl in fusion.implementations("trimul", "ieee") if impl.family == CUEQUIVARIANCE.family]
    assert peer.skip_reason(block, "cpu") == "cuEquivariance's kernels run on CUDA devices only"
    if CUEQUIVARIANCE.missing():  # a CUDA device without the library: the reason names what to install
        assert peer.skip_reason(block, "cuda").startswith("cuequivariance-torch is not installed")
    assert peer.takes(SimpleNamespace(c=trimul.CHANNELS)) is None
    assert "multiples of 32, not 4" in peer.takes(block)


def test_a_fused_way_runs_the_block_and_a_partial_one_leaves_its_other_sites_to_the_best_assignment(monkeypatch):
    monkeypatch.setattr(fusion, "_FUSED", list(fusion._FUSED))
    fusion.fused("trimul", family="test", strategy="output", sites=("layernorm#1",))(lambda block, z: block(z))
    measured = measure.BlockMeasurement(blocks.build("trimul/outgoing-tiny", "cpu"), "ieee", _request(),
                                        Timer("cpu"), lambda step: None)
    ways = {way.label: way for way in measured.fused_ways({"layernorm": "triton", "triangle": "native"})}
    assert set(ways) == {MAGE_FUSED, PEER, "fused(test.output),layernorm=triton,triangle=native"}
    assert ways[MAGE_FUSED].selectors == {} and ways[MAGE_FUSED].kind == "fused" and ways[MAGE_FUSED].skip is None
    assert ways[PEER].skip == "cuEquivariance's kernels run on CUDA devices only"
    # layernorm#0 is still the block's own: the partial one keeps layernorm's best beside the triangle's.
    assert ways["fused(test.output),layernorm=triton,triangle=native"].selectors == {"layernorm": "triton",
                                                                                    "triangle": "native"}
    assert measure.BlockMeasurement(blocks.build("trimul/outgoing-tiny", "cpu"), "ieee", _request(fused=False),
                                    Timer("cpu"), lambda step: None).fused_ways({}) == []


@pytest.mark.parametrize("precision, dtype", [("ieee", torch.float32), ("bf16", torch.bfloat16)])
def test_the_probes_build_the_block_and_inputs_a_context_run_times(precision, dtype):
    """scripts/ncu_block.py and range_capture_probe.py take blocks.build_as_timed: the block at the precision's
    input dtype, and the very inputs a context run's timed calls get."""
    block, inputs = blocks.build_as_timed("trimul/outgoing-tiny", precision, "cpu")
    assert all(p.dtype == dtype for p in block.parameters()) and inputs[0].dtype == dtype
    measured = measure.BlockMeasurement(block, precision, _request(precisions=[precision]), Timer("cpu"),
                                        lambda step: None)
    timed = measured.spec.make_inputs_at(measured.case, measured.case.seed, "cpu", "normal", precision)
    assert all(torch.equal(a, b) for a, b in zip(inputs, timed, strict=True))


def test_a_run_measures_the_fused_update_beside_the_per_op_assignments_without_a_prediction():
    results, shares = next(measure.run(_request(assign={"layernorm": "triton"})))
    single = {r.assignment: r for r in results if r.path == "single"}
    mine = single[MAGE_FUSED]
    assert mine.kind == "fused" and mine.status == "pass", mine.reason
    assert mine.rel_error < 1e-5 and mine.span_median_us > 0 and mine.predicted_speedup is None
    assert mine.measured_speedup == pytest.approx(single["eager"].span_median_us / mine.span_median_us)
    assert single[PEER].status == "skip" and "CUDA devices only" in single[PEER].reason
    assert single["layernorm=triton"].predicted_speedup is not None  # the per-op prediction stays beside it
    assert {s.assignment for s in shares} == {"eager", "layernorm=triton"}  # a fused call has no sites to attribute


# cuEquivariance's arguments


def _cuequivariance_forward(x, direction, mask, norm_in_weight, norm_in_bias, p_in_weight, p_in_bias, g_in_weight,
                            g_in_bias, norm_out_weight, norm_out_bias, p_out_weight, p_out_bias, g_out_weight,
                            g_out_bias, eps):
    """cuEquivariance's triangle_multiplicative_update as its reference code states it (cuequivariance_jax's
    triangle module: layer_norm_transpose, sigmoid_gated_dual_gemm, the split into a and b, the einsum, and
    sigmoid_gated_dual_gemm_dual_x on the normalized input and the normalized product), in float64 torch."""
    assert mask is None
    D = x.shape[-1]
    x_in = torch.nn.functional.layer_norm(x, (D,), norm_in_weight, norm_in_bias, eps)
    ab = torch.sigmoid(x_in @ g_in_weight.T + g_in_bias) * (x_in @ p_in_weight.T + p_in_bias)
    a, b = ab[..., :D], ab[..., D:]
    equation = "bikd,bjkd->bijd" if direction == "outgoing" else "bkid,bkjd->bijd"
    x_out = torch.nn.functional.layer_norm(torch.einsum(equation, a, b), (D,), norm_out_weight, norm_out_bias, eps)
    return torch.sigmoid(x_in @ g_out_weight.T + g_out_bias) * (x_out @ p_out_weight.T + p_out_bias)


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
def test_the_block_s_weights_map_onto_cuequivariance_s_arguments_exactly(variant, sized):
    block = sized(variant, 9, 32).to(torch.float64)
    z = torch.randn(1, 9, 9, 32, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    arguments = trimul_cuequivariance.arguments(block, "tf32")
    assert arguments["p_in_weight"].shape == arguments["g_in_weight"].shape == (64, 32)
    assert arguments["eps"] == 1e-5 and arguments["direction"] == variant
    ours = _cuequivariance_forward(z, **arguments)
    assert torch.allclose(ours, block.reference(z), rtol=1e-12, atol=1e-12)
    assert trimul_cuequivariance.arguments(block, "tf32")["p_in_weight"] is arguments["p_in_weight"]  # made once


# Mage's fused update under the interpreter


def _contract(block, precision: str, dot: str, resident_projection: bool = False, resident_output: bool = False,
              contraction: str = "triton", transposed_product: bool = False) -> check.ContractResult:
    """The block's contract (mage.check against its float64 reference, every distribution) for the fused update
    with its dots at ``dot`` (``resident_*``: that kernel's weights held in shared memory; ``contraction``: the
    triangle GEMM's; ``transposed_product``: the GEMM asked for t′ᵀ)."""
    spec = BlockSpec(block)
    label = RESIDENT if resident_output else CUBLAS if contraction == "cublas" else MAGE_FUSED
    fused = block_implementation(block.name, label, precision, lambda z: trimul_triton.pairformer_update(
        block, z, block.variant, dot, resident_projection, resident_output, contraction, transposed_product))
    eager = block_implementation(block.name, "eager", precision, block)
    return check.check(fused, eager, spec, spec.case(), "cpu", seed=29)


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("n, c", [(6, 4), (37, 20)])  # the tiny block; ragged pair, GEMM and channel tiles
@pytest.mark.parametrize("precision, dot", [("tf32", "tf32"), ("ieee", "tf32x3")])
def test_the_fused_update_passes_the_block_s_contract(variant, n, c, precision, dot, sized, small_tiles):
    result = _contract(sized(variant, n, c), precision, dot)
    assert result.passed, result.reason
    assert result.rel_error < 1e-5  # float32 dots: as exact as eager float32


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("n, c", [(6, 4), (37, 20)])
def test_the_fused_update_at_bf16_passes_the_block_s_contract_on_bf16_weights(variant, n, c, sized, small_tiles):
    """z, the weights, a′, b′, t′ and out bf16, the dots on bf16 operands: within bf16's ceiling of the float64
    block of those rounded weights, as eager bf16 is."""
    block = sized(variant, n, c).at_dtype(torch.bfloat16)
    result = _contract(block, "bf16", "bf16")
    assert result.passed, result.reason
    assert 1e-4 < result.rel_error < 2e-2  # bf16's rounding shows, within its ceiling
    with pytest.raises(ValueError, match="the fused update at bf16 takes one torch.bfloat16 pair representation"):
        trimul_triton.pairformer_update(block, torch.ones(1, n, n, c), variant, "bf16")


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("n, c", [(6, 4), (37, 20)])
def test_the_resident_kernels_pass_the_block_s_contract_at_bf16(variant, n, c, sized, small_tiles, monkeypatch):
    """Each program of both resident kernels holds its weights and walks several tiles, ragged ones included: the
    same contract as the per-tile kernels, with cuBLAS's triangle GEMM as the strategy runs it, and it takes bf16
    and at most 128 channels only."""
    monkeypatch.setattr(triton_relayout, "k_major_product", lambda *args: pytest.fail("the Triton GEMM ran"))
    block = sized(variant, n, c).at_dtype(torch.bfloat16)
    for output in (True, False):  # pairformer-resident's, then pairformer-cublas's at bf16
        result = _contract(block, "bf16", "bf16", resident_projection=True, resident_output=output,
                           contraction="cublas")
        assert result.passed, result.reason
        assert 1e-4 < result.rel_error < 2e-2
    z = torch.ones(1, n, n, c, dtype=torch.bfloat16)
    assert trimul_triton.update_resident(block, z, "bf16").shape == z.shape  # the strategy as registered: cuBLAS's GEMM
    for resident in ({"resident_projection": True}, {"resident_output": True}):
        with pytest.raises(ValueError, match="the resident kernels take bf16 and at most 128 channels, got tf32"):
            trimul_triton.pairformer_update(block, z.float(), variant, "tf32", **resident)
    (resident,) = [impl for impl in fusion.implementations("trimul", "bf16") if impl.label == RESIDENT]
    assert resident.takes(SimpleNamespace(c=128)) is None
    assert "do not fit one program's shared memory: at most 128" in resident.takes(SimpleNamespace(c=129))


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("n, c", [(6, 4), (37, 20)])
def test_the_fused_update_with_cublas_s_contraction_passes_the_block_s_contract(variant, n, c, sized, small_tiles,
                                                                                 monkeypatch):
    """torch.bmm on the projection's a′ and b′ in place (their padded rows as its leading dimension), t′ channel-first
    for the output kernel: the contract at float32 dots and at bf16, no Triton GEMM launched, and no tf32x3."""
    monkeypatch.setattr(triton_relayout, "k_major_product", lambda *args: pytest.fail("the Triton GEMM ran"))
    block = sized(variant, n, c)
    result = _contract(block, "tf32", "tf32", contraction="cublas")
    assert result.passed, result.reason
    assert result.rel_error < 1e-5  # float32 dots on the CPU: as exact as eager float32
    result = _contract(block.at_dtype(torch.bfloat16), "bf16", "bf16", contraction="cublas")
    assert result.passed, result.reason
    assert 1e-4 < result.rel_error < 2e-2
    with pytest.raises(ValueError, match="cuBLAS's contraction runs at tf32 or bf16, got tf32x3"):
        trimul_triton.pairformer_update(block, torch.ones(1, n, n, c), variant, "tf32x3", contraction="cublas")


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
@pytest.mark.parametrize("n, c", [(6, 4), (37, 20)])
def test_the_transposed_product_passes_the_block_s_contract_through_every_gemm_and_output_kernel(
        variant, n, c, sized, small_tiles, monkeypatch):
    """With the GEMM asked for t′ᵀ = b′·a′ᵀ, the output kernels read t′ with their tiles along i: the contract holds
    for the Triton GEMM (float32 dots), for cuBLAS's at bf16, and for the resident output kernel; and the GEMM was
    handed b′ first."""
    block = sized(variant, n, c)
    result = _contract(block, "tf32", "tf32", transposed_product=True)
    assert result.passed, result.reason
    assert result.rel_error < 1e-5
    bf16 = block.at_dtype(torch.bfloat16)
    for output in (False, True):
        result = _contract(bf16, "bf16", "bf16", resident_projection=True, resident_output=output,
                           contraction="cublas", transposed_product=True)
        assert result.passed, result.reason
        assert 1e-4 < result.rel_error < 2e-2
    handed = []
    product = triton_relayout.k_major_product
    monkeypatch.setattr(triton_relayout, "k_major_product",
                        lambda a_k, *rest: handed.append(a_k.clone()) or product(a_k, *rest))
    z = torch.randn(1, n, n, c, generator=torch.Generator().manual_seed(3))
    transposed = trimul_triton.pairformer_update(block, z, variant, "tf32", transposed_product=True)
    as_written = trimul_triton.pairformer_update(block, z, variant, "tf32")
    assert not torch.equal(handed[0], handed[1])  # b′ first, then a′
    assert torch.allclose(transposed, as_written, atol=1e-5)


@pytest.mark.parametrize("precision, channels, resident", [("bf16", 128, True), ("bf16", 129, False),
                                                           ("tf32", 128, False)])
def test_the_cublas_strategy_runs_the_resident_projection_where_it_can(precision, channels, resident, monkeypatch):
    """pairformer-cublas's projection is the resident one at bf16 within RESIDENT_CHANNELS (faster where measured),
    the per-tile one elsewhere; its output kernel is always per tile."""
    calls = []
    monkeypatch.setattr(trimul_triton, "pairformer_update", lambda *args, **kwargs: calls.append(kwargs))
    trimul_triton.update_cublas(SimpleNamespace(c=channels, variant="outgoing"), None, precision)
    assert calls == [{"resident_projection": resident, "contraction": "cublas"}]


def test_the_fused_update_writes_a_and_b_where_the_triangle_gemm_reads_them(sized, small_tiles, monkeypatch):
    """The projection stores a′[c, i, k] for both variants (incoming's pair (k, i) transposed by its strides):
    the GEMM's operands equal the block's a and b relaid by hand, and the fused call launches no relayout."""
    block = sized("incoming", 19, 16)
    z = torch.randn(1, 19, 19, 16, generator=torch.Generator().manual_seed(5))
    seen = {}
    product = triton_relayout.k_major_product

    def spy(a_k, a_rows, b_k, b_rows, *rest):
        seen["a"], seen["b"] = a_k[:, :, :19].clone(), b_k[:, :, :19].clone()
        return product(a_k, a_rows, b_k, b_rows, *rest)

    monkeypatch.setattr(triton_relayout, "k_major_product", spy)
    monkeypatch.setattr(triton_relayout, "relayout", lambda pairs: pytest.fail("the fused update relaid a tensor"))
    trimul_triton.pairformer_update(block, z, "incoming", "tf32")
    zn = torch.nn.functional.layer_norm(z, (16,), block.in_weight, block.in_bias, 1e-5)
    a = torch.sigmoid(block.gate_a(zn)) * block.proj_a(zn)  # a[b, k, i, c]
    assert torch.allclose(seen["a"], a[0].permute(2, 1, 0), atol=1e-5)  # a′[c, i, k]


SM90_COMPILE = r'''
from sm90_compile import compile_signature, products
from mage.context.fused import trimul_triton as fused

f32, i32 = "*fp32", "i32"
project = {"z_ptr": f32, "norm_w": f32, "norm_b": f32, **{n: f32 for n in (
    "ga_w", "ga_b", "pa_w", "pa_b", "gb_w", "gb_b", "pb_w", "pb_b")}, "a_ptr": f32, "b_ptr": f32,
    "N": i32, "s_c": i32, "s_p": i32, "s_q": i32, "EPS": "fp32"}
output = {"t_ptr": f32, "z_ptr": f32, **{n: f32 for n in ("in_w", "in_b", "mid_w", "mid_b", "go_w", "go_b", "po_w",
    "po_b")}, "out_ptr": f32, "N": i32, "t_sc": i32, "t_si": i32, "t_sj": i32, "EPS": "fp32"}
for kernel, signature, own, tiles in (
        (fused._trimul_project_kernel, project, {"P_FASTEST": False}, fused.PROJECT_TILES),
        (fused._trimul_output_kernel, output, {"I_FASTEST": False}, fused.OUTPUT_TILES)):
    for precision in ("tf32", "tf32x3", "bf16"):
        if precision == "bf16":  # every tensor bf16 but the scalars
            signature = {name: "*bf16" if kind == f32 else kind for name, kind in signature.items()}
        constexprs = {"PRECISION": precision, "C": 128, "BLOCK_CH": 128, **own}
        kept = kernel.early_config_prune(kernel.configs, {}, **constexprs)
        # The first config, and the one the prune counts the most shared memory for.
        largest = max(kept, key=lambda config: fused.staged_bytes(config, *tiles, precision, 128))
        for config in dict.fromkeys([kept[0], largest]):
            compiled = compile_signature(kernel, signature, constexprs, config)
            ptx = compiled.asm["ptx"]
            # The gates' sigmoid: one ex2 and one rcp, both approx.ftz, or at bf16 one tanh.approx; no ex2 with
            # denormal fix-ups.
            fast = "tanh.approx.f32" if precision == "bf16" else "rcp.approx.ftz.f32"
            sigmoid = "fast" if fast in ptx and "ex2.approx.f32" not in ptx else "slow"
            print(compiled.name, precision, products(compiled), compiled.metadata.shared, sigmoid, flush=True)
'''

RESIDENT_COMPILE = r'''
import re
from cubin_info import resources
from sm90_compile import compile_signature, products
from mage.context.fused import trimul_triton as fused

project = ("z_ptr", "norm_w", "norm_b", "ga_w", "ga_b", "pa_w", "pa_b", "gb_w", "gb_b", "pb_w", "pb_b", "a_ptr", "b_ptr")
output = ("t_ptr", "z_ptr", "in_w", "in_b", "mid_w", "mid_b", "go_w", "go_b", "po_w", "po_b", "out_ptr")
# Outgoing's projection as a launch makes it: its unit stride s_q is 1, which Triton specializes on.
for kernel, pointers, scalars, own in (
        (fused._trimul_project_resident_kernel, project, ("N", "s_c", "s_p"), {"P_FASTEST": False, "s_q": 1}),
        (fused._trimul_output_resident_kernel, output, ("N", "t_sc", "t_si"), {"I_FASTEST": False, "t_sj": 1})):
    signature = {name: "*bf16" for name in pointers} | {name: "i32" for name in scalars}
    signature |= {"EPS": "fp32", "PROGRAMS": "i32"}
    signature |= {name: "constexpr" for name in own if name.startswith(("s_", "t_"))}
    for config in kernel.configs:
        compiled = compile_signature(kernel, signature, {"C": 128, "BLOCK_CH": 128, **own}, config)
        ttgir, ptx = compiled.asm["ttgir"], compiled.asm["ptx"]
        loop = ttgir.index("scf.for")
        # The weights loaded once, before the loop over tiles: their four shared-memory copies (halves of the
        # output channels, 128 rows of input channels) made outside it.
        weights = len(re.findall(r"local_alloc %\S+ : \(tensor<128x\d+xbf16", ttgir[:loop]))
        # The next tiles' loads issued as copies into shared memory inside the loop, and the gates packed.
        in_flight = ttgir[loop:].count("async_copy_global_to_local")
        packed = ptx.count("tanh.approx.bf16x2") > 0 and "tanh.approx.f32" not in ptx
        frame = resources(compiled.asm["cubin"])[compiled.name]["frame"]
        print(compiled.name, config.kwargs["BLOCK_RUN"], products(compiled), compiled.metadata.shared, weights,
              in_flight, packed, frame, flush=True)
'''


# The projection kernel as each variant calls it: the unit stride of a′ and b′ (s_q outgoing, s_p incoming) is 1,
# which Triton specializes on, as a launch with that value does.
STORES = r'''
import re
from collections import Counter
from sm90_compile import compile_signature
from mage.context.fused import trimul_triton as fused

kernel = fused._trimul_project_kernel
for precision, tensor in (("tf32", "*fp32"), ("bf16", "*bf16")):
    for variant, unit in (("outgoing", "s_q"), ("incoming", "s_p")):
        signature = {name: tensor for name in ("z_ptr", "norm_w", "norm_b", "ga_w", "ga_b", "pa_w", "pa_b", "gb_w",
                                                "gb_b", "pb_w", "pb_b", "a_ptr", "b_ptr")}
        signature |= {"N": "i32", "s_c": "i32", "s_p": "i32", "s_q": "i32", "EPS": "fp32"}
        signature[unit] = "constexpr"
        constexprs = {"PRECISION": precision, "C": 128, "BLOCK_CH": 128, "P_FASTEST": variant == "incoming", unit: 1}
        for config in kernel.early_config_prune(kernel.configs, {}, **constexprs)[:2]:
            ptx = compile_signature(kernel, signature, constexprs, config).asm["ptx"]
            stores = Counter(re.findall(r"st\.global(?:\.v\d)?\.b\d+", ptx))
            print(precision, variant, " ".join(f"{kind}={count}" for kind, count in sorted(stores.items())), flush=True)
'''


# The output kernel as each orientation of t′ calls it: its unit stride (t_sj as written, t_si transposed) is 1.
PRODUCT_LOADS = r'''
import re
from collections import Counter
from sm90_compile import compile_signature
from mage.context.fused import trimul_triton as fused

kernel = fused._trimul_output_kernel
for precision, tensor in (("tf32", "*fp32"), ("bf16", "*bf16")):
    for orientation, unit in (("as-written", "t_sj"), ("transposed", "t_si")):
        signature = {name: tensor for name in ("t_ptr", "z_ptr", "in_w", "in_b", "mid_w", "mid_b", "go_w", "go_b",
                                                "po_w", "po_b", "out_ptr")}
        signature |= {"N": "i32", "t_sc": "i32", "t_si": "i32", "t_sj": "i32", "EPS": "fp32"}
        signature[unit] = "constexpr"
        constexprs = {"PRECISION": precision, "C": 128, "BLOCK_CH": 128, "I_FASTEST": orientation == "transposed",
                      unit: 1}
        for config in kernel.early_config_prune(kernel.configs, {}, **constexprs)[:2]:
            ptx = compile_signature(kernel, signature, constexprs, config).asm["ptx"]
            loads = Counter(re.findall(r"ld\.global(?:\.[a-z_]+)*(?:\.v\d)?\.b\d+", ptx))
            print(precision, config.kwargs["BLOCK_RUN"], config.num_warps, orientation,
                  " ".join(f"{kind}={count}" for kind, count in sorted(loads.items())), flush=True)
'''


@needs_ptxas
def test_the_fused_kernels_compile_for_hopper_to_wgmma_within_shared_memory():
    """The interpreter accepts what Triton's compiler may refuse: each kernel at C 128, each dot precision (bf16 on
    bf16 tensors), its first configs that the shared-memory prune keeps, compiled for sm_90 without a GPU, its
    gates' sigmoid two MUFU instructions, one at bf16 (the interpreter runs tl.sigmoid instead)."""
    done = run_compiled("-c", SM90_COMPILE)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines()]
    assert {(name, precision) for name, precision, *_ in lines} == {
        (kernel, precision) for kernel in ("_trimul_project_kernel", "_trimul_output_kernel")
        for precision in ("tf32", "tf32x3", "bf16")}
    assert all(product == "wgmma" and int(shared) <= SM90_SHARED_BYTES and sigmoid == "fast"
               for _, _, product, shared, sigmoid in lines), lines


@needs_ptxas
def test_the_resident_kernels_hold_their_weights_in_shared_memory_with_the_next_tiles_in_flight():
    """Compiled for sm_90, every config of both resident kernels copies its four weight operands to shared memory
    once, before its loop over tiles, loads the next tiles into shared memory (cp.async) inside the loop, runs
    wgmma, gates bf16 pairs (tanh.approx.bf16x2, no float32 tanh) and fits one program's shared memory; the
    64-pair tiles without a spill."""
    done = run_compiled("-c", RESIDENT_COMPILE)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines()]
    assert {line[0] for line in lines} == {"_trimul_project_resident_kernel", "_trimul_output_resident_kernel"}
    assert len(lines) >= 4  # the full config lists (this process, interpreted, sees the interpreter's one)
    for name, pairs, product, shared, weights, in_flight, packed, frame in lines:
        assert (product, weights, packed) == ("wgmma", "4", "True"), (name, pairs, product, weights, packed)
        assert int(shared) <= SM90_SHARED_BYTES and int(in_flight) > 0, (name, pairs, shared, in_flight)
        assert pairs != "64" or frame == "0", (name, pairs, frame)


@needs_ptxas
def test_both_variants_store_a_and_b_in_16_byte_pieces():
    """a′ and b′ are contiguous in q outgoing and in p incoming: the tile's rows run along that index, so each
    variant's stores are 16-byte vectors (incoming's were 2- and 4-byte scalars before the rows ran along p)."""
    done = run_compiled("-c", STORES)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line.split() for line in done.stdout.splitlines()]
    assert {(precision, variant) for precision, variant, *_ in lines} == {
        (precision, variant) for precision in ("tf32", "bf16") for variant in ("outgoing", "incoming")}
    for precision, variant, *stores in lines:
        assert stores and all(kind.startswith("st.global.v4.") for kind in (s.split("=")[0] for s in stores)), (
            precision, variant, stores)


@needs_ptxas
def test_the_output_kernel_reads_a_transposed_product_in_the_same_pieces():
    """t′ stored transposed (i contiguous) is read with the tiles' rows along i: compiled for sm_90, each config loads
    in the same vector widths and counts as it does for t′ as written (j contiguous)."""
    done = run_compiled("-c", PRODUCT_LOADS)
    assert done.returncode == 0, done.stderr[-3000:]
    by_orientation = {}
    for precision, run, warps, orientation, *loads in (line.split() for line in done.stdout.splitlines()):
        by_orientation.setdefault((precision, run, warps), {})[orientation] = loads
    assert {precision for precision, *_ in by_orientation} == {"tf32", "bf16"}
    for config, loads in by_orientation.items():
        assert loads["as-written"] == loads["transposed"], (config, loads)
        assert any(kind.startswith("ld.global.v4") for kind in loads["transposed"]), (config, loads)
