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
from mage.ops.matmul import cubecl as matmul
from mage.ops.neighbor_agg import cubecl as neighbor_agg
from mage.ops.softmax import cubecl as softmax
from mage.ops.triangle import cubecl as triangle

KERNELS = [bias_gelu.SCALAR, bias_gelu.VECTOR, *layernorm.KERNELS.values(), *matmul.KERNELS.values(), matmul.TF32_KERNEL,
           *triangle.KERNELS.values(), *neighbor_agg.KERNELS.values(), softmax.KERNEL]
OPS = ("bias_gelu", "layernorm", "matmul", "triangle", "neighbor_agg", "softmax")
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


def test_the_manifest_s_shared_memory_is_what_each_source_declares():
    # CubeCL places every shared array in one dynamic buffer and comments each one's size.
    for kernel in KERNELS:
        declared = sum(int(b) for b in re.findall(r"// Shared array size: \d+, (\d+) bytes", native.source(kernel.op, kernel.file)))
        assert cubecl.shared_bytes(kernel) == declared, kernel.file
    assert cubecl.shared_bytes(triangle.KERNELS[("outgoing", 64)]) == 2 * 2 * 4 * 8 * 68 * 4


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


@needs_nvrtc
@pytest.mark.parametrize("kernel, ffmas_a_read", [(matmul.KERNELS[128], 16), (matmul.KERNELS[64], 8),
                                                  *((k, 16) for k in triangle.KERNELS.values())], ids=lambda k: getattr(k, "file", k))
def test_the_micro_tile_reads_shared_memory_four_floats_at_a_time_as_native_does(kernel, ffmas_a_read):
    # CubeCL writes each shared read as one float; NVRTC merges 4 consecutive rows (columns) into
    # one 16-byte read, which keeps the FFMAs per read at native's: an 8 × 8 micro-tile from four
    # float4s (16 each), a 4 × 4 one from two (8).
    text = ptx(native.source(kernel.op, kernel.file))
    vector_reads, scalar_reads = len(re.findall(r"\bld\.shared\.v4\.f32\b", text)), len(re.findall(r"\bld\.shared\.f32\b", text))
    assert vector_reads > 0 and scalar_reads == 0
    assert len(re.findall(r"\bfma\.rn\.f32\b", text)) == ffmas_a_read * vector_reads


@needs_nvrtc
def test_the_tf32_matmul_runs_tensor_core_mmas_on_operands_rounded_to_tf32():
    text = ptx(native.source("matmul", matmul.TF32_KERNEL.file))
    # 4 k-steps a slice × 8 fragments a warp, the loop over slices not unrolled.
    assert text.count("wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32") == 32
    assert text.count("cvt.rna.tf32.f32") == 32  # each unit's 16 + 16 floats of a slice, rounded to nearest


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

    def __init__(self, sms: int = 132):
        self.launches = []
        self.sms = sms

    def sm_count(self, device) -> int:
        return self.sms

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
    for op in OPS:
        impls = [i for i in registry.implementations(op) if i.family == "cubecl"]
        assert {i.strategy for i in impls} == ({"default", "warp"} if op == "neighbor_agg" else {"default"})
        assert impls and {i.precision for i in impls} == ({"ieee", "tf32"} if op == "matmul" else {"ieee"})
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


@pytest.mark.parametrize("m, n, tile", [(2048, 2048, 128), (1024, 1024, 64), (1000, 70, 64)])
def test_matmul_picks_native_s_tile_and_covers_c_with_it(m, n, tile):
    # 128-tiles once they give each of the 132 SMs a block (16 × 16 = 256 at 2048²; 64 at 1024²).
    host = RecordingHost()
    a, b = torch.randn(m, 3), torch.randn(3, n)
    out = matmul.matmul(host, a, b)
    [(kernel, grid, block, args, shared)] = host.launches
    assert kernel is matmul.KERNELS[tile] and f"__launch_bounds__(256)matmul_kernel_t{tile}" in native.source("matmul", kernel.file)
    assert grid == (-(-n // tile), -(-m // tile), 1) and block == (256, 1, 1)
    assert shared == cubecl.shared_bytes(kernel) > 0
    assert args[3] == cubecl.pack_info(kernel, uint32=(m, n, 3)) and out.shape == (m, n)


@pytest.mark.parametrize("variant", ["outgoing", "incoming"])
def test_triangle_picks_native_s_tile_per_variant(variant):
    host = RecordingHost()
    x = torch.randn(1, 512, 512, 24)  # 64 tiles of 64² × 3 channel groups ≥ 132 SMs
    triangle.triangle(host, x, x, variant)
    small = torch.randn(1, 128, 128, 8)  # 4 tiles of 64²: too few, so 32
    triangle.triangle(host, small, small, variant)
    (big_kernel, big_grid, big_block, big_args, _), (kernel, grid, block, _, shared) = host.launches
    assert big_kernel is triangle.KERNELS[(variant, 64)] and big_grid == (64, 3, 1) and big_block == (512, 1, 1)
    assert big_args[3] == cubecl.pack_info(big_kernel, uint32=(512, 24))
    assert kernel is triangle.KERNELS[(variant, 32)] and grid == (16, 1, 1) and block == (128, 1, 1)
    assert shared == cubecl.shared_bytes(kernel)


def csr(degrees, dtype):
    rowptr = torch.tensor([0, *torch.tensor(degrees).cumsum(0).tolist()], dtype=dtype)
    return rowptr, torch.zeros(int(rowptr[-1]), dtype=dtype)


@pytest.mark.parametrize("features, aligned_x, width, group", [(128, True, 4, 32), (16, True, 4, 4), (7, True, 1, 8),
                                                                (64, False, 1, 32)])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_neighbor_agg_picks_float4_or_scalar_and_the_index_kernel(features, aligned_x, width, group, dtype):
    rowptr, col = csr([3, 0, 5, 1], dtype)
    x = torch.randn(2, features) if aligned_x else misaligned(2, features)
    host = RecordingHost()
    neighbor_agg.neighbor_agg(host, rowptr, col, x, "mean")
    [(kernel, grid, block, args, shared)] = host.launches
    index = "i32" if dtype == torch.int32 else "i64"
    assert kernel is neighbor_agg.KERNELS[("mean", index, width)]
    assert f"const {'int32' if dtype == torch.int32 else 'int64'}* __restrict__ buffer_0" in native.source("neighbor_agg", kernel.file)
    assert (grid, block, shared) == ((1, 1, 1), (256, 1, 1), 4 * width * 256)  # 4 rows; phase 2's partials
    assert args[4] == cubecl.pack_info(kernel, uint32=(4, features, group, neighbor_agg.NO_LONG_ROWS))  # degrees ≤ 5


@pytest.mark.parametrize("strategy, long_row", [("default", 128), ("warp", neighbor_agg.NO_LONG_ROWS)])
def test_neighbor_agg_sends_long_rows_to_the_block_only_where_a_graph_has_one(strategy, long_row):
    from mage.ops.neighbor_agg.native import LONG_ROW

    rowptr, col = csr([3, LONG_ROW + 1, 0], torch.int32)
    host = RecordingHost()
    impl = next(i for i in registry.implementations("neighbor_agg")
                if i.family == "cubecl" and i.strategy == strategy and i.variant == "sum")
    impl.fn.func(host, rowptr, col, torch.randn(1, 8), **impl.fn.keywords)  # the registered launcher, on this host
    [(kernel, _, _, args, _)] = host.launches
    assert args[4] == cubecl.pack_info(kernel, uint32=(3, 8, 2, long_row))


def test_neighbor_agg_group_is_the_rust_launcher_s():
    assert [neighbor_agg.group_size(v) for v in (0, 1, 2, 3, 16, 17, 32, 66)] == [1, 1, 2, 4, 16, 32, 32, 32]


def test_neighbor_agg_refuses_a_graph_that_indexes_past_x_before_any_launch():
    rowptr, col = csr([2], torch.int64)
    col[1] = 5
    host = RecordingHost()
    with pytest.raises(InputError, match="col"):
        neighbor_agg.neighbor_agg(host, rowptr, col, torch.randn(3, 4), "sum")
    assert host.launches == []


def test_softmax_launches_a_block_per_row():
    host = RecordingHost()
    softmax.softmax(host, torch.randn(5, 1000))
    [(kernel, grid, block, args, shared)] = host.launches
    assert (kernel, grid, block, shared) == (softmax.KERNEL, (5, 1, 1), (256, 1, 1), 4 * 256)
    assert args[2] == cubecl.pack_info(kernel, uint32=(5, 1000))
    assert f"__launch_bounds__({softmax.THREADS})softmax_kernel" in native.source("softmax", kernel.file)


def test_new_ops_refuse_bad_inputs_by_name():
    host = RecordingHost()
    with pytest.raises(InputError, match="b"):
        matmul.matmul(host, torch.randn(4, 3), torch.randn(4, 3))
    with pytest.raises(InputError, match="b"):
        triangle.triangle(host, torch.randn(1, 4, 4, 2), torch.randn(1, 4, 4, 3), "outgoing")
    with pytest.raises(InputError, match="x"):
        softmax.softmax(host, torch.randn(4, 3).double())
    assert host.launches == []


def test_outputs_past_32_bit_indexing_are_refused_before_allocating():
    with pytest.raises(InputError, match="the output has 4294967296 elements"):
        cubecl.output((2**16, 2**16), like=torch.randn(1))
