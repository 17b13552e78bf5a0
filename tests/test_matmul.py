"""Matmul's Triton kernels beyond the generic tests: tf32x3 split in the load path (one launch), the
16-bit persistent path, the deep-K accuracy cases. Under TRITON_INTERPRET=1 (the interpreter emulates
tensor descriptors, so aligned shapes take the persistent path; its tf32 dots are float32, so these
check the indexing and the splitting, and tests/test_triton.py compiles the kernels for sm_90)."""

import pytest
import torch

from mage import registry
from mage.backends import triton as triton_backend
from mage.check import check
from mage.spec import Case

registry.load()
matmul_triton = pytest.importorskip("mage.ops.matmul.triton")
ALIGNED = {"m": 132, "k": 72, "n": 264}  # rows of K and N a multiple of 16 bytes at 16 bits too: the descriptor path
ODD = {"m": 33, "k": 47, "n": 65}  # the tile kernel


def _impl(name):
    return next(i for i in registry.implementations("matmul") if i.name == name)


def _launches(monkeypatch) -> list[str]:
    """Names of the kernels that run, in order, once the test calls a matmul."""
    ran = []
    kernels = [*matmul_triton._TILE_KERNELS.items(), ("persistent", matmul_triton._matmul_persistent_kernel)]
    for name, kernel in kernels:
        monkeypatch.setattr(kernel, "run", lambda *a, _run=kernel.run, _name=name, **kw: (ran.append(_name), _run(*a, **kw))[1])
    split = matmul_triton._split_tf32
    monkeypatch.setattr(matmul_triton, "_split_tf32", lambda *a, **kw: (ran.append("split"), split(*a, **kw))[1])
    return ran


def _contract(impl, params):
    case = Case("matmul", "test", "seed", params, seed=11)
    return check(impl, registry.baseline_of(impl), registry.get_op("matmul"), case, "cpu", seed=5)


def test_tf32x3_in_one_launch_splits_in_the_load_path(monkeypatch):
    ran = _launches(monkeypatch)
    result = _contract(_impl("triton.onelaunch/default/tf32x3"), ALIGNED)
    assert result.passed, result.reason
    assert set(ran) == {"persistent"}  # no split kernel before it, no other kernel after


def test_tf32x3_split_beforehand_takes_three_launches(monkeypatch):
    ran = _launches(monkeypatch)
    a, b = torch.randn(ALIGNED["m"], ALIGNED["k"]), torch.randn(ALIGNED["k"], ALIGNED["n"])
    _impl("triton/default/tf32x3").fn(a, b)
    assert ran == ["split", "split", "persistent"]


def test_tf32x3_in_one_launch_sums_its_three_products_to_ieee_accuracy_on_heavy_tails():
    """The interpreter's dots are float32: the small·big and big·small terms carry what big·big lost."""
    g = torch.Generator().manual_seed(3)
    a = torch.randn(128, 96, generator=g) / torch.randn(128, 96, generator=g).abs().clamp_min(0.05)
    b = torch.randn(96, 64, generator=g)
    out = _impl("triton.onelaunch/default/tf32x3").fn(a, b)
    ref = a.double() @ b.double()
    assert ((out.double() - ref).norm() / ref.norm()) < 1e-6


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
@pytest.mark.parametrize("params, kernel", [(ALIGNED, "persistent"), (ODD, "tile")], ids=["descriptors", "tile"])
def test_16_bit_matmul_takes_and_returns_its_dtype_on_both_paths(monkeypatch, precision, params, kernel):
    ran = _launches(monkeypatch)
    result = _contract(_impl(f"triton/default/{precision}"), params)
    assert result.passed, result.reason
    assert set(ran) == {"persistent" if kernel == "persistent" else precision}
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    a, b = (torch.randn(*shape).to(dtype) for shape in ((params["m"], params["k"]), (params["k"], params["n"])))
    assert _impl(f"triton/default/{precision}").fn(a, b).dtype == dtype


def test_16_bit_persistent_configs_take_k_steps_that_fp32_cannot_afford(monkeypatch):
    monkeypatch.setattr(triton_backend, "INTERPRETED", False)
    configs = matmul_triton._persistent_configs()
    shapes = {p: {(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"], c.num_stages)
                  for c in matmul_triton._prune_persistent(configs, {}, PRECISION=p)} for p in ("tf32", "bf16")}
    assert (128, 256, 64, 3) in shapes["bf16"] and (128, 256, 64, 3) not in shapes["tf32"]


def test_the_deep_k_cases_are_in_the_sweep_and_beyond_the_cpu():
    spec = registry.get_op("matmul")
    deep = [spec.case(name) for name in ("1024x8192x1024", "1024x32768x1024")]
    assert [c.suite for c in deep] == ["sweep", "sweep"]
    assert [c.params["k"] for c in deep] == [8192, 32768]
    from mage.plan import skip_reason

    assert skip_reason(spec, deep[1], _impl("eager/default/ieee"), "cpu")  # 6.9e10 flops+bytes: GPU work only



def test_the_deep_k_cases_run_first_in_the_sweep_so_a_cut_sweep_has_stored_them():
    sweep = [c.params["k"] for c in registry.get_op("matmul").cases() if c.suite == "sweep"]
    assert sweep[:2] == [8192, 32768] and len(sweep) > 2
