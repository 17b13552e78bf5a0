"""The rust-cubecl backend without a GPU: the CUDA C++ CubeCL generated from cubecl/src/kernels.rs
compiles for sm_90 with NVRTC, its scalar struct is packed as declared, inputs are refused by name,
and every cube size the launcher can pick has its source. (The kernels' arithmetic runs on the CPU
in `cargo test` in cubecl/, through CubeCL's wgpu runtime on lavapipe; on the GPU, in the run.)"""

import struct

import pytest
import torch

from mage import registry
from mage.backends import cubecl, native
from mage.backends.cuda_libs import preload_nvrtc
from mage.errors import InputError
from mage.ops.bias_gelu import cubecl as bias_gelu
from mage.ops.layernorm import cubecl as layernorm

KERNELS = [bias_gelu.KERNEL, *layernorm.KERNELS.values()]


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: f"{k.op}/{k.file}")
def test_generated_sources_compile_for_hopper(kernel):
    if preload_nvrtc() is None:
        pytest.skip("no libnvrtc here (install nvidia-cuda-nvrtc)")
    cubin = native.cubin(kernel.op, 90, kernel.file)
    assert cubin[:4] == b"\x7fELF" and kernel.name.encode() + b"\0" in cubin


def test_the_layernorm_cube_size_is_the_one_its_source_was_generated_for():
    for cols in range(1, 5000):
        block = layernorm.cube_size(cols)
        assert block in layernorm.KERNELS
        assert f"__launch_bounds__({block})" in native.source("layernorm", layernorm.KERNELS[block].file)
    assert f"__launch_bounds__({bias_gelu.THREADS})" in native.source("bias_gelu", "cubecl.cu")


def test_info_struct_is_packed_in_the_declared_layout():
    kernel = layernorm.KERNELS[256]
    assert cubecl.info_fields(kernel) == (("float", "scalars_float", 2), ("uint32", "scalars_uint32", 2),
                                          ("uint32", "static_meta", 8))
    packed = cubecl.pack_info(kernel, uint32=(65536, 4096), float=(1e-5,))
    assert len(packed) == 48
    assert struct.unpack_from("<2f2I", packed) == (pytest.approx(1e-5), 0.0, 65536, 4096)
    assert packed[16:] == bytes(32)
    with pytest.raises(ValueError, match="3 uint32 scalars for 2 slots"):
        cubecl.pack_info(kernel, uint32=(1, 2, 3))


def test_a_source_without_the_struct_is_refused():
    with pytest.raises(ValueError, match="declares no info_st"):
        cubecl.info_fields(native.Kernel("layernorm", "layernorm_f32_looped", "pppplif"))


def test_registered_for_the_rust_host_only_and_unavailable_on_the_cpu():
    for op in ("bias_gelu", "layernorm"):
        impls = [i for i in registry.implementations(op) if i.backend == "rust-cubecl"]
        assert [i.precision for i in impls] == ["ieee"]
        assert impls[0].unavailable_reason("cpu") == "native kernels need a CUDA device, not 'cpu'"


def test_bad_inputs_are_refused_by_name_before_any_launch():
    x, bias = torch.randn(4, 8), torch.randn(8)
    with pytest.raises(InputError, match="native kernels run on cuda tensors"):
        bias_gelu.bias_gelu(native.RUST_HOST, x, bias)
    with pytest.raises(InputError, match="bias"):
        bias_gelu.bias_gelu(native.RUST_HOST, x, torch.randn(7))
    with pytest.raises(InputError, match="weight"):
        layernorm.layernorm(native.RUST_HOST, x, torch.randn(5), bias)


def test_two_host_backends_cannot_share_one_name():
    with pytest.raises(ValueError, match="exactly one host"):
        native.register("bias_gelu", backend="x")


def test_sizes_past_32_bit_indexing_are_refused_before_allocating():
    big = torch.empty(1).expand(2**16, 2**15 + 1)  # numel past 2³¹ - 1, one float behind it
    with pytest.raises(InputError, match="index with 32 bits"):
        cubecl.output_like(big)
    assert cubecl.output_like(torch.randn(3, 5)).shape == (3, 5)
