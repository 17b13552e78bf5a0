"""The cubecl family without a GPU: the CUDA C++ CubeCL generated from cubecl/src/kernels.rs
compiles for sm_90 with NVRTC (the float4 kernels to 16-byte loads and stores), its scalar struct is
packed as declared, inputs are refused by name, the launchers choose float4 or scalar kernels as the
native one does, and every cube size the launcher can pick has its source. (The kernels' arithmetic
runs on the CPU in `cargo test` in cubecl/, through CubeCL's wgpu runtime on lavapipe; on the GPU,
in the run.)"""

import ctypes
import json
import re
import struct

import pytest
import torch

from ci import required
from mage import registry
from mage.backends import cubecl, native
from mage.backends.cuda_libs import preload_nvrtc
from mage.errors import InputError
from mage.ops.bias_gelu import cubecl as bias_gelu
from mage.ops.bias_gelu import native as bias_gelu_native
from mage.ops.layernorm import cubecl as layernorm
from mage.ops.layernorm.spec import EPS

KERNELS = [bias_gelu.SCALAR, bias_gelu.VECTOR, *layernorm.KERNELS.values()]
needs_nvrtc = required(preload_nvrtc() is None, "no libnvrtc here (install nvidia-cuda-nvrtc)")


def test_every_generated_source_has_a_kernel():
    generated = {path.relative_to(native.OPS_DIR).as_posix()
                 for path in native.OPS_DIR.glob(f"*/{cubecl.GENERATED}/*.cu")}
    assert generated == {f"{k.op}/{k.file}" for k in KERNELS}


def test_the_manifest_names_each_generated_file_s_kernel_and_parameters():
    for op in {k.op for k in KERNELS}:
        manifest = json.loads((native.OPS_DIR / op / cubecl.GENERATED / "manifest.json").read_text())
        assert manifest["generator"].startswith("cargo run --release --bin generate-cuda")
        listed = {f"{cubecl.GENERATED}/{entry['file']}": entry for entry in manifest["files"]}
        launched = [k for k in KERNELS if k.op == op]
        assert set(listed) == {k.file for k in launched}
        for kernel in launched:
            entry = listed[kernel.file]
            assert entry["kernel"] == kernel.name
            assert entry["vector"] == (4 if kernel.name.endswith("_x4") else 1)
            assert f"__launch_bounds__({entry['cube']}){kernel.name} (" in native.source(op, kernel.file)


@needs_nvrtc
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: f"{k.op}/{k.file}")
def test_generated_sources_compile_for_hopper(kernel):
    cubin = native.cubin(kernel.op, 90, kernel.file)
    assert cubin[:4] == b"\x7fELF" and kernel.name.encode() + b"\0" in cubin


def ptx(source: str) -> str:
    """``source`` compiled by NVRTC to PTX for compute_90 (the extension makes only cubins)."""
    nvrtc = ctypes.CDLL(preload_nvrtc())
    program = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"cubecl.cu", 0, None, None) == 0
    options = (ctypes.c_char_p * 2)(b"--gpu-architecture=compute_90", b"-std=c++17")
    try:
        assert nvrtc.nvrtcCompileProgram(program, 2, options) == 0
        size = ctypes.c_size_t()
        assert nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size)) == 0
        text = ctypes.create_string_buffer(size.value)
        assert nvrtc.nvrtcGetPTX(program, text) == 0
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return text.value.decode()


@needs_nvrtc
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: f"{k.op}/{k.file}")
def test_float4_kernels_move_16_bytes_per_global_load_and_store(kernel):
    accesses = re.findall(r"\b(ld|st)\.global(?:\.nc)?(\.v4)?\.f32\b", ptx(native.source(kernel.op, kernel.file)))
    assert {kind for kind, _ in accesses} == {"ld", "st"}
    widths = {vector for _, vector in accesses}
    assert widths == ({".v4"} if kernel.file.endswith("_x4.cu") else {""}), accesses


def test_the_layernorm_cube_size_is_the_one_its_source_was_generated_for():
    for cols in range(1, 5000):
        for width in (1, layernorm.VECTOR):
            if cols % width == 0:
                block = layernorm.cube_size(cols // width)
                kernel = layernorm.KERNELS[(block, width)]
                assert f"__launch_bounds__({block})" in native.source("layernorm", kernel.file)
    for kernel in (bias_gelu.SCALAR, bias_gelu.VECTOR):
        assert f"__launch_bounds__({bias_gelu_native.THREADS})" in native.source("bias_gelu", kernel.file)


def test_info_struct_is_packed_in_the_declared_layout():
    kernel = layernorm.KERNELS[(256, layernorm.VECTOR)]
    assert cubecl.info_fields(kernel) == (("float", "scalars_float", 2), ("uint32", "scalars_uint32", 2),
                                          ("uint32", "static_meta", 8))
    packed = cubecl.pack_info(kernel, uint32=(65536, 4096), float=(1e-5,))
    assert len(packed) == 48
    assert struct.unpack_from("<2f2I", packed) == (pytest.approx(1e-5), 0.0, 65536, 4096)
    assert packed[16:] == bytes(32)
    with pytest.raises(ValueError, match="3 uint32 scalars for 2 slots"):
        cubecl.pack_info(kernel, uint32=(1, 2, 3))
    # The float4 and scalar variants of a kernel take the same struct: the vector size is compiled
    # in, not passed.
    assert cubecl.info_fields(bias_gelu.VECTOR) == cubecl.info_fields(bias_gelu.SCALAR) == (
        ("uint32", "scalars_uint32", 2), ("uint32", "static_meta", 6))
    for block in layernorm.BLOCKS:
        assert cubecl.info_fields(layernorm.KERNELS[(block, 1)]) == cubecl.info_fields(kernel)


class RecordingHost(native.Host):
    """Takes CPU tensors and records each launch instead of running it: what a launcher chose."""

    device_type = "cpu"

    def __init__(self):
        self.launches = []

    def holds(self, t) -> bool:
        return isinstance(t, torch.Tensor) and t.device.type == "cpu"

    def launch(self, kernel, grid, block, *args, shared=0):
        self.launches.append((kernel, grid, block, args, shared))


def misaligned(rows: int, cols: int) -> torch.Tensor:
    """A contiguous rows x cols tensor whose data starts 4 bytes past a 16-byte boundary."""
    t = torch.randn(rows * cols + 4)[1:rows * cols + 1].view(rows, cols)
    assert t.data_ptr() % 16 == 4
    return t


@pytest.mark.parametrize("cols, x_aligned, vector", [(64, True, True), (66, True, False), (64, False, False)])
def test_bias_gelu_chooses_float4_or_scalar_as_the_native_launcher_does(cols, x_aligned, vector):
    rows = 9
    x = torch.randn(rows, cols) if x_aligned else misaligned(rows, cols)
    bias = torch.randn(cols)
    host = RecordingHost()
    bias_gelu.bias_gelu(host, x, bias)
    bias_gelu_native.bias_gelu(host, x, bias)
    (kernel, grid, block, args, _), (native_kernel, native_grid, native_block, _, _) = host.launches
    assert kernel is (bias_gelu.VECTOR if vector else bias_gelu.SCALAR)
    assert native_kernel is (bias_gelu_native.VECTOR if vector else bias_gelu_native.SCALAR)
    assert grid == native_grid == (1, 3, 1) and block == native_block == (256, 1, 1)  # 4 rows a thread
    assert args[3] == cubecl.pack_info(kernel, uint32=(rows, cols))


def test_bias_gelu_grid_counts_float4_groups_of_columns():
    host = RecordingHost()
    bias_gelu.bias_gelu(host, torch.randn(2, 2048), torch.randn(2048))
    bias_gelu.bias_gelu(host, torch.randn(2, 2050), torch.randn(2050))
    chosen = [(kernel, grid) for kernel, grid, *_ in host.launches]
    assert chosen == [(bias_gelu.VECTOR, (2, 1, 1)), (bias_gelu.SCALAR, (9, 1, 1))]  # 512 float4s, 2050 floats


@pytest.mark.parametrize("cols, weight_aligned, block, width", [
    (4096, True, 256, 4),  # 1024 float4s: 256 threads, four each
    (128, True, 32, 4),  # 32 float4s: one warp
    (132, True, 64, 4),
    (130, True, 256, 1),  # not whole float4s
    (128, False, 128, 1),  # weight 4 bytes off a 16-byte boundary
])
def test_layernorm_chooses_float4_or_scalar_and_sizes_the_cube_for_it(cols, weight_aligned, block, width):
    rows = 3
    weight = torch.randn(cols) if weight_aligned else misaligned(1, cols)[0]
    host = RecordingHost()
    layernorm.layernorm(host, torch.randn(rows, cols), weight, torch.randn(cols))
    [(kernel, grid, launched_block, args, shared)] = host.launches
    assert kernel is layernorm.KERNELS[(block, width)]
    assert (grid, launched_block, shared) == ((rows, 1, 1), (block, 1, 1), 4 * block)
    assert args[4] == cubecl.pack_info(kernel, uint32=(rows, cols), float=(EPS,))


def test_a_source_without_the_struct_is_refused():
    with pytest.raises(ValueError, match="declares no info_st"):
        cubecl.info_fields(native.Kernel("layernorm", "layernorm_f32_looped", "pppplif"))


def test_registered_for_the_rust_host_only_and_unavailable_on_the_cpu():
    for op in ("bias_gelu", "layernorm"):
        impls = [i for i in registry.implementations(op) if i.family == "cubecl"]
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


def test_two_hosts_cannot_share_one_family():
    with pytest.raises(ValueError, match="exactly one host"):
        native.register("bias_gelu", family="x")


def test_sizes_past_32_bit_indexing_are_refused_before_allocating():
    big = torch.empty(1).expand(2**16, 2**15 + 1)  # numel past 2³¹ - 1, one float behind it
    with pytest.raises(InputError, match="index with 32 bits"):
        cubecl.output_like(big)
    assert cubecl.output_like(torch.randn(3, 5)).shape == (3, 5)
