"""What every Triton implementation shares: where it can run, its autotune lists, and small helpers.

Kernels are decorated when their op's ``triton.py`` is imported, and Triton decides then whether
they are compiled or interpreted: TRITON_INTERPRET=1 must be set before that import for them to
run on the CPU. The interpreter executes each program in numpy and cannot time configs, so
under it every autotune list shrinks to one config, chosen large enough that the ops' seed cases
run in seconds (interpreter cost is per program and per op, not per element); tests then pick
shapes that span several blocks with ragged edges.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import torch
import triton
import triton.language as tl
from triton import knobs

from mage.backends.precision import cuda_only

# Decided once, like the kernels themselves (they are decorated after this module is imported).
INTERPRETED = bool(knobs.runtime.interpret)

# Autotune timings persist in Triton's disk cache (keyed by the kernel's source, its configs, the tuning key
# and the GPU's architecture), so a later process re-uses an earlier one's choice instead of re-timing every
# config at every new shape: most of a warm main job's contract time was that re-timing. The choice is still
# recorded with each result; TRITON_CACHE_AUTOTUNING=0 re-times in every process.
if "TRITON_CACHE_AUTOTUNING" not in os.environ:
    knobs.autotuning.cache = True
AUTOTUNE_CACHED = bool(knobs.autotuning.cache) and not INTERPRETED

# Persistent kernels launch this many programs under the interpreter: few enough that each
# walks several tiles of a small test shape.
INTERPRETER_SMS = 3


def triton_available(device: str) -> str | None:
    """Availability rule of every Triton implementation: CUDA, or the CPU under the interpreter."""
    if device == "cuda":
        return None if torch.cuda.is_available() else "no CUDA device is visible"
    if device == "cpu":
        if INTERPRETED:
            return None
        return "Triton runs on the CPU only under its interpreter: set TRITON_INTERPRET=1 before importing mage"
    return f"Triton kernels here target CUDA, not {device!r}"


def triton_tf32_available(device: str) -> str | None:
    """tf32 kernels: Triton's rule, and the interpreter's dot is float32, so tf32 needs CUDA."""
    return triton_available(device) or cuda_only("tf32")(device)


def pick_configs(configs: list[triton.Config], interpreter: list[triton.Config]) -> list[triton.Config]:
    """The full autotune list on a GPU; under the interpreter, its one-config list (never timed)."""
    return interpreter if INTERPRETED else configs


def prune_wider_than(meta: str, limit):
    """An ``early_config_prune`` that drops configs whose ``meta`` block exceeds ``limit(args)``.

    A block wider than the (power-of-two rounded) extent it tiles only adds masked lanes. The
    narrowest config survives even if all are too wide, since the autotuner needs one.
    """

    def prune(configs, named_args, **kwargs):
        bound = limit({**named_args, **kwargs})
        kept = [c for c in configs if c.kwargs[meta] <= bound]
        return kept or [min(configs, key=lambda c: c.kwargs[meta])]

    return prune


def autotune_no_wider(configs: list[triton.Config], key: list[str], block: str, extent: str, least: int = 1):
    """``triton.autotune`` over ``configs`` (retuned when ``key``'s arguments change) that tries only
    configs whose ``block`` is no wider than the argument ``extent`` rounded up to a power of two,
    and at least ``least`` (see prune_wider_than)."""
    limit = lambda args: max(least, triton.next_power_of_2(args[extent]))
    return triton.autotune(configs=configs, key=key, prune_configs_by={"early_config_prune": prune_wider_than(block, limit)})


def unit_last_stride(t: torch.Tensor) -> torch.Tensor:
    """``t`` itself when its last dimension is contiguous, whatever its other strides (kernels take
    those as arguments), else a contiguous copy: loads along the last dimension then vectorize."""
    return t if t.stride(-1) == 1 else t.contiguous()


@functools.lru_cache(maxsize=None)
def _sm_count(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


def num_sms(device: torch.device) -> int:
    """Programs a persistent kernel launches: one per SM on a GPU."""
    if device.type != "cuda":
        return INTERPRETER_SMS
    return _sm_count(device.index if device.index is not None else torch.cuda.current_device())


@functools.lru_cache(maxsize=None)
def _capability(index: int) -> tuple[int, int]:
    return torch.cuda.get_device_capability(index)


def tma_ready(*tensors: torch.Tensor) -> bool:
    """Whether host-built tensor descriptors (TMA on Hopper) can address these 2-D tensors.

    TMA needs a 16-byte aligned base, 16-byte aligned row strides, a unit inner stride and
    non-empty extents. The interpreter emulates descriptors, so the same path is tested there.
    """
    for t in tensors:
        if t.dim() != 2 or t.numel() == 0 or t.stride(1) != 1:
            return False
        if t.data_ptr() % 16 or (t.stride(0) * t.element_size()) % 16:
            return False
    if INTERPRETED:
        return True
    device = tensors[0].device
    if device.type != "cuda":
        return False
    index = device.index if device.index is not None else torch.cuda.current_device()
    return _capability(index)[0] >= 9


def use_descriptor_workspace(device: torch.device) -> None:
    """Give Triton the allocator it calls at launch for the global memory that device-made tensor
    descriptors (``tl.make_tensor_descriptor``) keep their 128-byte records in."""
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=device))


@triton.jit
def rounded_div(numerator, denominator):
    """``numerator / denominator`` rounded as IEEE division is (div.rn.f32). Triton's ``/`` on float32 compiles to
    div.full.f32, up to 2 ulp off: for a mean that is harmless until the row's spread is near an ulp of its mean
    (a bf16 row of mean 1e4 rounds to one value), where every centred value becomes ±2 ulp of the mean and the
    normalized row a full-scale error. Rounded division keeps a constant row's mean exact. The interpreter
    divides exactly either way, so only the compiled kernels (and the sm_90 compile test) tell them apart."""
    return tl.math.div_rn(numerator, denominator * 1.0)


@triton.jit
def grouped_tile(tile_id, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    """(pid_m, pid_n) of ``tile_id`` when GROUP_M row-tiles sweep the columns together.

    Consecutive programs then share GROUP_M rows of A and a few columns of B, which stay in L2.
    """
    tiles_per_group = GROUP_M * num_pid_n
    first_m = (tile_id // tiles_per_group) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile_id % tiles_per_group) % group_m
    pid_n = (tile_id % tiles_per_group) // group_m
    return pid_m, pid_n


@triton.jit
def row_major_tile(n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """(row offsets, column offsets) of this program's BLOCK_R × BLOCK_C tile of a matrix
    ``n_cols`` wide, on a 1-D grid whose column blocks vary fastest: consecutive programs
    stream consecutive addresses."""
    col_blocks = tl.cdiv(n_cols, BLOCK_C)
    pid = tl.program_id(0)
    rows = (pid // col_blocks) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % col_blocks) * BLOCK_C + tl.arange(0, BLOCK_C)
    return rows, cols


def _patch_interpreter_for_numpy_2_4() -> None:
    """Let the Triton 3.6 interpreter run loops with tensor bounds under numpy >= 2.4.

    The interpreter holds scalars as one-element arrays and turns them into Python ints with
    ``int(array)``, which numpy 2.4 rejects for arrays with ndim > 0 (``range(0, K)`` in a
    kernel then fails). This re-installs ``__index__`` with ``.item()`` after the interpreter
    installs its own, inside the same scope, so it is undone with the interpreter's patches.
    """
    try:
        int(np.ones(1, dtype=np.int32))
        return
    except TypeError:
        pass
    from triton.runtime import interpreter

    if getattr(interpreter._patch_lang_tensor, "_mage_numpy_fix", False):
        return
    original = interpreter._patch_lang_tensor

    def patch_lang_tensor(tensor, scope):
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.item()))

    patch_lang_tensor._mage_numpy_fix = True
    interpreter._patch_lang_tensor = patch_lang_tensor


def _patch_interpreter_bf16_dot() -> None:
    """Let the Triton 3.6 interpreter's tl.dot multiply bf16 tiles.

    The interpreter holds bf16 values as their raw uint16 bits, and its dot multiplies those
    integers (a product off by 1e10). Widened to float32 first (exact: bf16 is float32's top half),
    the operands multiply as a bf16 tensor core's do, into a float32 accumulator.
    """
    from triton.runtime import interpreter

    original = interpreter.InterpreterBuilder.create_dot
    if getattr(original, "_mage_bf16_fix", False):
        return

    def widened(handle):
        if handle.dtype != tl.bfloat16:
            return handle
        return interpreter.TensorHandle((handle.data.astype(np.uint32) << 16).view(np.float32), tl.float32)

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return original(self, widened(a), widened(b), d, input_precision, max_num_imprecise_acc)

    create_dot._mage_bf16_fix = True
    interpreter.InterpreterBuilder.create_dot = create_dot


def _patch_interpreter_bf16_rounding() -> None:
    """Let the Triton 3.6 interpreter round float32 to bf16 to nearest even, as compiled kernels do.

    It truncates (its cast drops the low 16 bits): 0.99999 stored into a bf16 tensor is 0.99609375, not 1.0,
    one unit in the last place off where a compiled kernel's store rounds. Rounded here as the native
    kernels' CPU emulation rounds (mage/backends/native_half.cuh), NaN kept a NaN.
    """
    from triton.runtime import interpreter

    original = interpreter.InterpreterBuilder.cast_impl
    if getattr(original, "_mage_bf16_fix", False):
        return

    def cast_impl(self, src, dst_type):
        if (src.dtype.scalar, dst_type.scalar) != (tl.float32, tl.bfloat16):
            return original(self, src, dst_type)
        bits = np.ascontiguousarray(src.data, dtype=np.float32).view(np.uint32)
        rounded = ((bits + np.uint32(0x7FFF) + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        nan = (bits & 0x7FFFFFFF) > 0x7F800000
        return interpreter.TensorHandle(np.where(nan, np.uint16(0x7FC0), rounded), dst_type.scalar)

    cast_impl._mage_bf16_fix = True
    interpreter.InterpreterBuilder.cast_impl = cast_impl


if INTERPRETED:
    _patch_interpreter_for_numpy_2_4()
    _patch_interpreter_bf16_dot()
    _patch_interpreter_bf16_rounding()
