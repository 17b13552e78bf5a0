"""Run Mage's native.cu kernels on the CPU: a test-only host path for the native launchers.

Each op's ``native.cu`` is compiled by the system C++ compiler together with cuda_emu/cuda_emu.h
(threads for CUDA threads, barriers for __syncthreads and warp shuffles) and one C wrapper per
kernel that the op's launcher declares. ``EmuHost`` then launches those wrappers with ctypes on
CPU tensors, through the very launchers the GPU hosts use: same validation, same kernel
choice, same grid and arguments. It checks the kernels' arithmetic, indexing and tails; it
says nothing about their speed, memory ordering across real warps, or the CUDA compiler.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch

from mage.backends import native
from mage.backends.native import Host, Kernel

HEADER = Path(__file__).parent / "cuda_emu" / "cuda_emu.h"
C_TYPES = {"p": "void*", "i": "int", "l": "long long", "f": "float"}
CTYPES = {"p": ctypes.c_void_p, "i": ctypes.c_int32, "l": ctypes.c_int64, "f": ctypes.c_float}
# Keeps the emulated grids small and lets tests reach both tile-size choices of a launcher.
EMULATED_SMS = 4


def compiler() -> str | None:
    return shutil.which(os.environ.get("CXX", "g++")) or shutil.which("clang++")


def op_kernels(op: str) -> list[Kernel]:
    """Every Kernel the op's launcher module declares (module constants, dicts or lists of them)."""
    module = importlib.import_module(f"mage.ops.{op}.native")
    found: dict[str, Kernel] = {}

    def visit(value):
        if isinstance(value, Kernel):
            found[value.name] = value
        elif isinstance(value, dict):
            for item in value.values():
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    for value in vars(module).values():
        visit(value)
    return sorted(found.values(), key=lambda k: k.name)


def _wrapper(kernel: Kernel) -> str:
    params = ", ".join(f"{C_TYPES[k]} a{i}" for i, k in enumerate(kernel.signature))
    args = ", ".join(f"emu::Ptr{{a{i}}}" if k == "p" else f"a{i}" for i, k in enumerate(kernel.signature))
    return (
        f'extern "C" void emu_{kernel.name}(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, '
        f"unsigned bz, {params}) {{\n"
        f"    emu::launch(dim3{{gx, gy, gz}}, dim3{{bx, by, bz}}, [=] {{ {kernel.name}({args}); }});\n}}\n"
    )


@functools.lru_cache(maxsize=None)
def library(op: str, file: str = "native.cu") -> ctypes.CDLL:
    """The op's kernels of ``file`` built for the CPU (cached on disk by the hash of everything compiled)."""
    unit = (
        f'#include "{HEADER}"\n#include "{native.OPS_DIR / op / file}"\n'
        + "".join(_wrapper(k) for k in op_kernels(op) if k.file == file)
    )
    return shared_library(f"{op}-{Path(file).stem}", unit, native.source(op, file))


def shared_library(name: str, unit: str, *included: str,
                   flags: tuple[str, ...] = ("-fno-strict-aliasing",)) -> ctypes.CDLL:
    """``unit`` (C++ that includes the emulation header) built as a shared library, cached on disk by the hash
    of everything compiled (``included``: the text of the files it includes). Each process compiles from its
    own source file into its own partial file, then renames it: parallel test workers may race here."""
    cxx = compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler (g++ or clang++) to build the CPU emulation")
    digest = hashlib.sha256("".join((unit, HEADER.read_text(), *included, *flags)).encode()).hexdigest()[:16]
    build = Path(tempfile.gettempdir()) / "mage-cuda-emu"
    build.mkdir(exist_ok=True)
    target = build / f"{name}-{digest}.so"
    if not target.exists():
        source = build / f"{name}-{digest}.{os.getpid()}.cpp"
        source.write_text(unit)
        partial = target.with_suffix(f".{os.getpid()}.tmp")
        built = subprocess.run([cxx, "-std=c++20", "-O1", *flags, "-shared", "-fPIC", "-pthread", "-w",
                                "-o", str(partial), str(source)], capture_output=True, text=True)
        source.unlink()
        if built.returncode:
            raise RuntimeError(f"building the CPU emulation {name} failed:\n{built.stderr[-4000:]}")
        partial.rename(target)
    return ctypes.CDLL(str(target))


class EmuHost(Host):
    """Launches native kernels on CPU tensors through the emulation library."""

    family = "native-emu"
    device_type = "cpu"

    def __init__(self):
        self.launches: list[tuple[str, tuple, tuple]] = []

    def available(self, device: str) -> str | None:
        return None if device == "cpu" and compiler() else "the emulation runs on the CPU with a C++ compiler"

    def holds(self, t) -> bool:
        return isinstance(t, torch.Tensor) and t.device.type == "cpu"

    # cuda_emu.h's one buffer of dynamic shared memory.
    block_shared_bytes = 4 << 20

    def sm_count(self, device: torch.device) -> int:
        return EMULATED_SMS

    def has_clusters(self, device: torch.device) -> bool:
        """Blocks run one after another: a cluster of more than one CTA never runs."""
        return False

    def resident_ctas(self, device: torch.device) -> int:
        """Blocks run one after another: one at a time is resident, so a cooperative grid is one CTA."""
        return 1

    def _query_clusters(self, kernel, device, cluster, block, shared):
        """Blocks run one after another: a cluster of one is resident, a wider one never is."""
        return 1 if cluster == 1 and shared <= self.block_shared_bytes else 0

    def launch(self, kernel, grid, block, *args, shared=0):
        assert all(1 <= g for g in grid) and grid[1] <= 65535 and grid[2] <= 65535, grid
        assert 1 <= block[0] * block[1] * block[2] <= 1024, block
        function = getattr(library(kernel.op, kernel.file), f"emu_{kernel.name}")
        function.restype = None
        function.argtypes = [ctypes.c_uint] * 6 + [CTYPES[k] for k in kernel.signature]
        self.launches.append((kernel.name, tuple(grid), tuple(block)))
        function(*grid, *block, *kernel.values(args))
