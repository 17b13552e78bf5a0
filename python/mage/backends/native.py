"""Native CUDA C++ kernels: what every op's ``native.py`` shares.

Each op keeps its kernels in ``ops/<op>/native.cu`` and a launcher in ``ops/<op>/native.py``
that validates its inputs, allocates the output with ``empty_output``, picks the kernel and
its geometry, and calls ``host.launch``. ``register`` registers that one launcher under two
host paths, which launch the very same cubin:

- ``native``: the Rust extension ``mage._native`` loads the cubin into torch's primary context
  and calls ``cuLaunchKernel`` from Rust;
- ``native-py``: cuda-python's driver bindings (``cuda.bindings.driver``) load the same cubin
  bytes and launch them from Python.

Both compile through the extension (``_native.compile_to_cubin``): NVRTC for the device's
compute capability, cached in memory and on disk, keyed by source, target and options. A
kernel is compiled and loaded on its first launch on a device, which the measurement's warm-up
absorbs: no timed call compiles. Launches go on torch's current stream, with no copy and no
synchronization, so they are ordered with torch's work and captured by CUDA graphs.
"""

from __future__ import annotations

import ctypes
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import torch

from mage.errors import InputError
from mage.identity import DEFAULT_STRATEGY
from mage.registry import CaseRule, implementation
from mage.spec import dtype_name

OPS_DIR = Path(__file__).resolve().parents[1] / "ops"
# An op's bf16/fp16 kernels: a source of their own (it includes native.cu for its templates), so that
# compiling them at their first launch costs nothing to the float32 kernels' users.
SIXTEEN_BIT_SOURCE = "native16.cu"
SIXTEEN_BIT_TAGS = {"bf16": "bf16", "fp16": "f16"}  # precision -> the dtype in its kernels' names
# A kernel launched with more dynamic shared memory than this must opt in first (both hosts do).
DEFAULT_DYNAMIC_SHARED_BYTES = 48 * 1024
# A kernel whose compiled cluster size is past this must opt in to it before it launches (both hosts do).
PORTABLE_CLUSTER_SIZE = 8
ARG_KINDS = "pilfb"  # pointer (a tensor), int32, int64, float32, a struct by value (its bytes)


@dataclass(frozen=True, eq=False)  # hashed by identity: kernels are module constants
class Kernel:
    """One ``extern "C"`` kernel of ``ops/<op>/<file>`` and its parameters, one letter each:
    ``p`` a tensor (passed as its device pointer), ``i`` int32, ``l`` int64, ``f`` float32, ``b``
    a struct passed by value (given as its bytes). The first parameter is a tensor: it says
    which device the launch is for."""

    op: str
    name: str
    signature: str
    file: str = "native.cu"
    # Launched cooperatively (cuLaunchCooperativeKernel): its CTAs wait on each other, so the driver must make them
    # all resident at once or refuse the launch.
    cooperative: bool = False
    pointers: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if not self.signature.startswith("p") or set(self.signature) - set(ARG_KINDS):
            raise ValueError(f"kernel {self.name}: signature {self.signature!r} must start with p and use only {ARG_KINDS}")
        object.__setattr__(self, "pointers", tuple(i for i, k in enumerate(self.signature) if k == "p"))

    def values(self, args: Sequence) -> list:
        """``args`` with every tensor replaced by its device pointer."""
        if len(args) != len(self.signature):
            raise TypeError(f"{self.name} takes {len(self.signature)} arguments ({self.signature}), got {len(args)}")
        values = list(args)
        for i in self.pointers:
            values[i] = values[i].data_ptr()
        return values


def row_kernels(op: str, name: str, signature: str, plans: tuple, sixteen_bit_plans: tuple) -> dict:
    """precision -> {plan: kernel} of a row strategy (slice, cluster), narrowest plan first: ``name`` formatted
    with the dtype tag (f32, bf16, f16) and the plan; the float32 kernels in native.cu, the 16-bit ones in
    SIXTEEN_BIT_SOURCE with plans of their own (mage.backends.rows.SIXTEEN_BIT_CLUSTER_PLANS)."""
    kernels = {"ieee": {plan: Kernel(op, name.format("f32", *plan), signature) for plan in plans}}
    for precision, tag in SIXTEEN_BIT_TAGS.items():
        kernels[precision] = {plan: Kernel(op, name.format(tag, *plan), signature, SIXTEEN_BIT_SOURCE)
                              for plan in sixteen_bit_plans}
    return kernels


def float_kernels(op: str, name: str, signature: str, plans: tuple) -> dict:
    """A float32-only row strategy's kernels (smem) in native.cu, keyed as row_kernels keys them:
    {"ieee": {plan: kernel}}, ``name`` formatted with the plan."""
    return {"ieee": {plan: Kernel(op, name.format(*plan), signature) for plan in plans}}


@functools.lru_cache(maxsize=None)
def source(op: str, file: str = "native.cu") -> str:
    """A CUDA C++ source of ``op`` (``ops/<op>/native.cu`` unless another file is named), with
    its local includes pasted in: NVRTC is given one self-contained source, and the compile
    cache, keyed by that text, sees a change of a shared header."""
    return _with_includes(OPS_DIR / op / file)


# `#include "path"`, the path relative to the including file as a C++ compiler reads it (the
# CPU emulation in the tests compiles the files themselves); `<...>` includes are NVRTC's own.
_LOCAL_INCLUDE = re.compile(r'^#include "([^"]+)"[ \t]*$', re.MULTILINE)


def _with_includes(path: Path) -> str:
    return _LOCAL_INCLUDE.sub(lambda m: _with_includes(path.parent / m.group(1)), path.read_text())


def sources() -> dict[str, str]:
    """Every op's native source, by op name."""
    return {path.parent.name: source(path.parent.name) for path in sorted(OPS_DIR.glob("*/native.cu"))}


def extension():
    """The Rust extension, with libnvrtc preloaded for it (see cuda_libs)."""
    from mage.backends.cuda_libs import preload_nvrtc

    preload_nvrtc()
    from mage import _native

    return _native


def cubin(op: str, arch: int, file: str = "native.cu") -> bytes:
    """The cubin of an ``op`` source for ``sm_<arch>``, from the extension's caches or NVRTC."""
    return extension().compile_to_cubin(source(op, file), arch, name=f"{op}-{file}")


# ---------------------------------------------------------------- device facts


@functools.lru_cache(maxsize=None)
def _sm_count(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


@functools.lru_cache(maxsize=None)
def _has_clusters(index: int) -> bool:
    return torch.cuda.get_device_capability(index)[0] >= 9


def _raw_stream_function() -> Callable[[int], int]:
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw
    return lambda index: torch.cuda.current_stream(index).cuda_stream


def aligned(*tensors: torch.Tensor) -> bool:
    """Whether every tensor's data starts on a 16-byte boundary (for float4 loads)."""
    bits = 0
    for t in tensors:
        bits |= t.data_ptr()
    return bits % 16 == 0


def vector_rows(cols: int, *tensors: torch.Tensor) -> bool:
    """Whether rows ``cols`` elements wide can be moved as 16-byte vectors (4 float32, or 8 bf16 or
    fp16: the first tensor's element size) in every one of ``tensors``: whole vectors a row and
    16-byte aligned data."""
    return cols % (16 // tensors[0].element_size()) == 0 and aligned(*tensors)



# ---------------------------------------------------------------- host paths


class Host:
    """Where and how kernels are launched. Launchers use only what is defined here."""

    family: str = ""
    device_type: str = "cuda"

    def available(self, device: str) -> str | None:
        raise NotImplementedError

    def holds(self, t) -> bool:
        """Whether ``t`` is a tensor on this host's device type (the launchers' fast path)."""
        return isinstance(t, torch.Tensor) and t.is_cuda

    def holds_float32(self, first, *others) -> bool:
        """Whether all are contiguous float32 tensors on one device of this host's type: the part
        of a launcher's ready test (see check_inputs) that the float ops share."""
        return self.holds_dtype(torch.float32, first, *others)

    def holds_dtype(self, dtype: torch.dtype, first, *others) -> bool:
        """``holds_float32`` for the kernels of another dtype (bf16, fp16)."""
        if not (self.holds(first) and first.dtype == dtype and first.is_contiguous()):
            return False
        device = first.get_device()
        for t in others:
            if not (self.holds(t) and t.dtype == dtype and t.get_device() == device and t.is_contiguous()):
                return False
        return True

    # The dynamic shared memory a CTA may take (sm_90: 227 KB a block, opted in past 48 KB by both hosts).
    block_shared_bytes: int = 227 * 1024

    def sm_count(self, device: torch.device) -> int:
        return _sm_count(device.index)

    def has_clusters(self, device: torch.device) -> bool:
        """Whether ``device`` launches thread-block clusters of more than one CTA (sm_90 on): before it, the cluster
        kernels compile with their cluster functions trapping."""
        return _has_clusters(device.index)

    def resident_ctas(self, device: torch.device) -> int:
        """How many CTAs of a kernel that fills an SM (1024 threads, or all its shared memory) run at once: the
        grid of a cooperative kernel whose CTAs wait on each other (Kernel.cooperative)."""
        return self.sm_count(device)

    def launch(self, kernel: Kernel, grid: tuple[int, int, int], block: tuple[int, int, int], *args, shared: int = 0):
        raise NotImplementedError

    def max_active_clusters(self, kernel: Kernel, device: torch.device, cluster: int, block: tuple[int, int, int],
                            shared: int = 0) -> int:
        """How many clusters of ``cluster`` CTAs of ``kernel`` (its cluster size compiled in) ``device`` holds at
        once with ``block`` threads and ``shared`` bytes of dynamic shared memory a CTA: what a persistent grid
        of clusters may ask for. The driver's count (cuOccupancyMaxActiveClusters): an estimate from the SM
        count cannot know how many SMs each GPC of this device has. Asked once per kernel and shape."""
        counts = self.__dict__.setdefault("_cluster_counts", {})
        key = (kernel, device.index, cluster, tuple(block), shared)
        if key not in counts:
            counts[key] = self._query_clusters(kernel, device, cluster, tuple(block), shared)
        return counts[key]

    def _query_clusters(self, kernel: Kernel, device: torch.device, cluster: int, block: tuple[int, int, int],
                        shared: int) -> int:
        raise NotImplementedError


def _cuda_reason(device: str) -> str | None:
    if device != "cuda":
        return f"native kernels need a CUDA device, not {device!r}"
    if not torch.cuda.is_available():
        return "native kernels need a CUDA device, and none is visible"
    try:
        extension().nvrtc_version()
    except ImportError as error:
        return f"the native extension mage._native is not built: {error}"
    except Exception as error:  # noqa: BLE001 - the reason is reported, not raised
        return f"NVRTC is not usable: {error}"
    return None


class RustHost(Host):
    """Launches through the Rust extension (``Kernel.launch`` in ``mage._native``)."""

    family = "native"

    def __init__(self):
        self._kernels: dict[tuple[Kernel, int], object] = {}
        self._stream = _raw_stream_function()

    def available(self, device: str) -> str | None:
        return _cuda_reason(device)

    def _load(self, kernel: Kernel, index: int):
        loaded = extension().load_kernel(source(kernel.op, kernel.file), kernel.name, kernel.signature, index)
        self._kernels[(kernel, index)] = loaded
        return loaded

    def launch(self, kernel, grid, block, *args, shared=0):
        index = args[0].device.index
        loaded = self._kernels.get((kernel, index)) or self._load(kernel, index)
        loaded.launch(grid, block, shared, self._stream(index), *kernel.values(args), cooperative=kernel.cooperative)

    def _query_clusters(self, kernel, device, cluster, block, shared):
        loaded = self._kernels.get((kernel, device.index)) or self._load(kernel, device.index)
        return loaded.max_active_clusters(cluster, block, shared)


_CTYPES = {"p": ctypes.c_uint64, "i": ctypes.c_int32, "l": ctypes.c_int64, "f": ctypes.c_float,
           "b": lambda data: (ctypes.c_char * len(data)).from_buffer_copy(data)}


class CudaPythonHost(Host):
    """Launches the same cubins through cuda-python's driver bindings.

    Mirrors the Rust path step for step: the module is loaded in the device's primary context
    (torch's), that context is made current if another one is, arguments are packed into an
    array of pointers, and ``cuLaunchKernel`` gets torch's current stream.
    """

    family = "native-py"

    def __init__(self):
        self._kernels: dict[tuple[Kernel, int], tuple[object, object]] = {}
        self._modules: dict[tuple[str, str, int], object] = {}
        self._contexts: dict[int, object] = {}
        self._stream = _raw_stream_function()

    def available(self, device: str) -> str | None:
        reason = _cuda_reason(device)
        if reason:
            return reason
        try:
            from cuda.bindings import driver  # noqa: F401
        except ImportError as error:
            return f"cuda-python (cuda.bindings) is not installed: {error}"
        return None

    @staticmethod
    def _check(result, call: str):
        from cuda.bindings import driver

        error, *values = result if isinstance(result, tuple) else (result,)
        if error != driver.CUresult.CUDA_SUCCESS:
            raise extension().CudaError(f"{call} failed with {driver.CUresult(error).name} (cuda-python host path)")
        return values[0] if len(values) == 1 else values

    def _context(self, index: int):
        from cuda.bindings import driver

        if index not in self._contexts:
            self._check(driver.cuInit(0), "cuInit")
            device = self._check(driver.cuDeviceGet(index), "cuDeviceGet")
            self._contexts[index] = self._check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
        return self._contexts[index]

    def _in_context(self, context, call: Callable[[], object]):
        from cuda.bindings import driver

        current = self._check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if int(current) == int(context):
            return call()
        if int(current) == 0:
            self._check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
            return call()
        self._check(driver.cuCtxPushCurrent(context), "cuCtxPushCurrent")
        try:
            return call()
        finally:
            self._check(driver.cuCtxPopCurrent(), "cuCtxPopCurrent")

    def _load(self, kernel: Kernel, index: int):
        from cuda.bindings import driver

        context = self._context(index)
        where = (kernel.op, kernel.file, index)
        if where not in self._modules:
            major, minor = torch.cuda.get_device_capability(index)
            image = cubin(kernel.op, major * 10 + minor, kernel.file)
            self._modules[where] = self._in_context(
                context, lambda: self._check(driver.cuModuleLoadData(image), "cuModuleLoadData")
            )
        module = self._modules[where]
        function = self._check(driver.cuModuleGetFunction(module, kernel.name.encode()), f"cuModuleGetFunction({kernel.name})")
        self._in_context(context, lambda: self._allow_compiled_cluster_size(kernel, function))
        self._kernels[(kernel, index)] = (function, context)
        return function, context

    def launch(self, kernel, grid, block, *args, shared=0):
        from cuda.bindings import driver

        index = args[0].device.index
        function, context = self._kernels.get((kernel, index)) or self._load(kernel, index)
        values = [_CTYPES[k](v) for k, v in zip(kernel.signature, kernel.values(args))]
        pointers = (ctypes.c_void_p * len(values))(*(ctypes.addressof(v) for v in values))
        stream = driver.CUstream(self._stream(index))

        def enqueue():
            self._opt_in_shared(kernel, function, shared)
            if kernel.cooperative:
                self._check(driver.cuLaunchCooperativeKernel(function, *grid, *block, shared, stream,
                                                             ctypes.addressof(pointers)),
                            f"cuLaunchCooperativeKernel({kernel.name})")
                return
            self._check(
                driver.cuLaunchKernel(function, *grid, *block, shared, stream, ctypes.addressof(pointers), 0),
                f"cuLaunchKernel({kernel.name})",
            )

        self._in_context(context, enqueue)

    def _allow_compiled_cluster_size(self, kernel, function) -> None:
        """The opt-in to a compiled cluster size past the portable 8 that the Rust loader makes too."""
        from cuda.bindings import driver

        width = self._check(driver.cuFuncGetAttribute(
            driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, function), f"cuFuncGetAttribute({kernel.name})")
        if width > PORTABLE_CLUSTER_SIZE:
            attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
            self._check(driver.cuFuncSetAttribute(function, attribute, 1), f"cuFuncSetAttribute({kernel.name})")

    def _opt_in_shared(self, kernel, function, shared: int) -> None:
        """The opt-in to more than 48 KB of dynamic shared memory that the Rust launcher makes too."""
        from cuda.bindings import driver

        if shared > DEFAULT_DYNAMIC_SHARED_BYTES:
            attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self._check(driver.cuFuncSetAttribute(function, attribute, shared), f"cuFuncSetAttribute({kernel.name})")

    def _query_clusters(self, kernel, device, cluster, block, shared):
        from cuda.bindings import driver

        function, context = self._kernels.get((kernel, device.index)) or self._load(kernel, device.index)
        config = driver.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = cluster, 1, 1
        config.blockDimX, config.blockDimY, config.blockDimZ = block
        config.sharedMemBytes = shared

        def query():
            self._opt_in_shared(kernel, function, shared)
            return self._check(driver.cuOccupancyMaxActiveClusters(function, config),
                               f"cuOccupancyMaxActiveClusters({kernel.name})")

        return self._in_context(context, query)


RUST_HOST = RustHost()
HOSTS: tuple[Host, ...] = (RUST_HOST, CudaPythonHost())


# (op, strategy) -> launcher of the op's native.cu kernels (family None), for the tests' emulation host
LAUNCHERS: dict[tuple[str, str], Callable] = {}


def register(op: str, *, variants: Sequence[str] | None = None, precisions: Sequence[str] = ("ieee",),
             family: str | None = None, hosts: Sequence[Host] = HOSTS, strategy: str = DEFAULT_STRATEGY,
             takes: CaseRule | None = None):
    """Register ``launcher(host, *inputs[, variant][, precision])`` once per host path, under the
    host's family unless ``family`` names it (then give a single host), as ``strategy``; ``takes`` as
    for ``registry.implementation``."""
    if family is not None and len(hosts) != 1:
        raise ValueError("a family of its own goes with exactly one host")

    def decorate(launcher: Callable) -> Callable:
        for host in hosts:
            implementation(op, family=family or host.family, strategy=strategy, variants=variants,
                           precisions=precisions, available=host.available, takes=takes,
                           champion_of=family or hosts[0].family)(functools.partial(launcher, host))
        if family is None:
            LAUNCHERS[(op, strategy)] = launcher
        return launcher

    return decorate


# ---------------------------------------------------------------- input checks
#
# A launcher first evaluates one boolean expression that is true only for valid inputs of the
# common kind (its "ready" test: tensors on the host's device, dtypes, ranks, shapes, one
# device, contiguous; ``Host.holds_float32`` is its common part). When it is false,
# ``check_inputs`` runs the op's full validation, which
# raises an InputError naming the problem. The ready test may be stricter than the full
# checks, never looser; it keeps the per-call host cost of a valid call to a few attribute
# reads, which is what the native paths are measured on at seed scale.


def check_inputs(host: Host, spec, *, dtype: torch.dtype = torch.float32, **inputs) -> None:
    """The op's full checks (``spec.check_inputs``: its validate, and its validate_values, which
    may read device memory, e.g. a graph's structure), then the native layout rules for kernels of
    ``dtype``; raises an InputError naming the problem. Kernels index memory with these values, so
    nothing is launched on inputs that have not passed."""
    spec.check_inputs(*inputs.values())
    require_device_layout(host, dtype=dtype, **inputs)


def require_device_layout(host: Host, *, dtype: torch.dtype = torch.float32, **tensors: torch.Tensor) -> None:
    """Every tensor on the host's device type and contiguous, its floating-point ones of ``dtype`` (after the
    op's own validate, which accepts the dtypes of all the op's precisions: a kernel reads one of them)."""
    for name, t in tensors.items():
        if t.device.type != host.device_type:
            raise InputError(f"native kernels run on {host.device_type} tensors: {name} is on {t.device}")
        if t.is_floating_point() and t.dtype != dtype:
            raise InputError(f"native kernels take {dtype_name(dtype)} tensors: {name} is {dtype_name(t.dtype)}")
        if not t.is_contiguous():
            raise InputError(
                f"{name} must be contiguous for native kernels, got shape {tuple(t.shape)} with strides {t.stride()}"
            )


def cdiv(a: int, b: int) -> int:
    return -(-a // b)
