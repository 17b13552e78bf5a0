"""Kernels written in Rust with CubeCL, launched by Mage's Rust host (family ``cubecl``).

The kernel bodies are ``#[cube]`` functions in ``cubecl/src/kernels.rs``. CubeCL (pinned to 0.10.0)
compiles them to CUDA C++, which ``cargo run --release --bin generate-cuda`` writes into each op's
``generated/`` folder (``ops/<op>/generated/cubecl*.cu``, with a ``manifest.json`` naming the
generator, each file's kernel and its parameters; ``cargo test`` fails when a file is stale). CubeCL's own CUDA runtime
cannot run on torch's memory or stream: it allocates from its own pool and launches on streams it
creates (cubecl/FINDINGS.md, with the source references). So Mage uses CubeCL as the compiler
only: the generated source is compiled with NVRTC and launched by the Rust extension exactly like
the CUDA C++ kernels, on torch's current stream with torch's tensors, no copy, no synchronization.

A generated kernel takes its buffers, then one struct by value (``info_st``) holding the scalars,
grouped by type in declaration order, and static metadata (buffer lengths) that these kernels never
read (``cargo test`` checks that); ``pack_info`` lays it out from the struct's own declaration.
"""

from __future__ import annotations

import functools
import json
import re
import struct

from mage.backends.native import OPS_DIR, Kernel, source
from mage.errors import InputError
from mage.outputs import empty_output

_STRUCT = re.compile(r"struct info_st \{(.*?)\};", re.S)
_FIELD = re.compile(r"(float|uint32|int32) (\w+)\[(\d+)\];")
_FORMATS = {"float": "f", "uint32": "I", "int32": "i"}
SCALAR_FIELDS = {"float": "scalars_float", "uint32": "scalars_uint32", "int32": "scalars_int32"}
UNREAD_FIELDS = ("static_meta",)
GENERATED = "generated"  # the folder of an op's generated sources (cubecl/src/generated.rs: GENERATED_DIR)
MAX_ELEMENTS = 2**31 - 1  # the generated kernels index with 32-bit unsigned integers (AddressType::U32)


def require_32_bit(**tensors) -> None:
    """Every tensor small enough for the kernels' 32-bit indexing, or an InputError naming it."""
    for name, t in tensors.items():
        if t.numel() > MAX_ELEMENTS:
            raise InputError(f"{name} has {t.numel()} elements: the CubeCL kernels index with 32 bits (at most {MAX_ELEMENTS})")


def output(shape: tuple, like):
    """The (poisoned) output of ``shape``, once its size is one the 32-bit indexing reaches."""
    numel = 1
    for size in shape:
        numel *= size
    if numel > MAX_ELEMENTS:
        raise InputError(f"the output has {numel} elements: the CubeCL kernels index with 32 bits (at most {MAX_ELEMENTS})")
    return empty_output(tuple(shape), like=like)


def output_like(x):
    """The (poisoned) output for ``x``'s shape, once its size is one the 32-bit indexing reaches."""
    require_32_bit(x=x)
    return empty_output(tuple(x.shape), like=x)


@functools.lru_cache(maxsize=None)
def _manifest(op: str) -> dict[str, dict]:
    entries = json.loads((OPS_DIR / op / GENERATED / "manifest.json").read_text())["files"]
    return {f"{GENERATED}/{entry['file']}": entry for entry in entries}


def shared_bytes(kernel: Kernel) -> int:
    """The dynamic shared memory the kernel's cube takes, as its manifest says (CubeCL puts every
    shared array into one ``extern __shared__`` buffer, sized at launch)."""
    return _manifest(kernel.op)[kernel.file]["shared"]


@functools.lru_cache(maxsize=None)
def info_fields(kernel: Kernel) -> tuple[tuple[str, str, int], ...]:
    """(C type, name, length) of every field of the kernel's ``info_st``, in order."""
    declared = _STRUCT.search(source(kernel.op, kernel.file))
    if declared is None:
        raise ValueError(f"{kernel.op}/{kernel.file} declares no info_st: not a CubeCL kernel")
    fields = tuple((ctype, name, int(count)) for ctype, name, count in _FIELD.findall(declared.group(1)))
    unknown = [name for _, name, _ in fields if name not in (*SCALAR_FIELDS.values(), *UNREAD_FIELDS)]
    if unknown:
        raise ValueError(f"{kernel.op}/{kernel.file}: info_st has fields Mage does not fill: {unknown}")
    return fields


@functools.lru_cache(maxsize=None)
def _format(kernel: Kernel) -> struct.Struct:
    return struct.Struct("<" + "".join(f"{count}{_FORMATS[ctype]}" for ctype, _, count in info_fields(kernel)))


def pack_info(kernel: Kernel, **scalars: tuple) -> bytes:
    """The bytes of ``info_st`` with ``scalars`` by C type (``float=(eps,)``, ``uint32=(rows, cols)``),
    each group in the kernel's declaration order, padding and metadata zero."""
    values = []
    for ctype, name, count in info_fields(kernel):
        given = scalars.get(ctype, ()) if name == SCALAR_FIELDS[ctype] else ()
        if len(given) > count:
            raise ValueError(f"{kernel.name}: {len(given)} {ctype} scalars for {count} slots")
        values.extend((*given, *(0,) * (count - len(given))))
    return _format(kernel).pack(*values)
