"""Registers and stack frame of each kernel in a cubin (sm_90 ELF), read from its .nv.info attributes as
cuobjdump --dump-resource-usage reports them, for tests that compile without a GPU: a kernel whose frame is
not 0 spills registers to local memory."""

from __future__ import annotations

import struct

_REGCOUNT, _FRAME_SIZE = 0x2F, 0x11  # EIATTR_REGCOUNT, EIATTR_FRAME_SIZE
_SYMTAB = 2  # SHT_SYMTAB


def resources(cubin: bytes) -> dict[str, dict[str, int]]:
    """{kernel: {"registers": n, "frame": bytes}} of every kernel the cubin's .nv.info describes."""
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    entsize, count, names_at = struct.unpack_from("<HHH", cubin, 0x3A)
    # Elf64_Shdr: name, type, flags, addr, offset, size, link, info, addralign, entsize
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * entsize) for i in range(count)]

    def text(table, at):
        start = table[4] + at
        return cubin[start: cubin.index(b"\0", start)].decode()

    symtab = next(s for s in sections if s[1] == _SYMTAB)
    strtab = sections[symtab[6]]

    def symbol(index):
        name_at, = struct.unpack_from("<I", cubin, symtab[4] + index * 24)
        return text(strtab, name_at)

    found: dict[str, dict[str, int]] = {}
    for section in sections:
        if text(sections[names_at], section[0]) != ".nv.info":
            continue
        at, end = section[4], section[4] + section[5]
        while at < end:
            form, attribute, size = struct.unpack_from("<BBH", cubin, at)
            if form != 4:  # EIFMT_SVAL: a (symbol, value) pair follows; other forms carry no size
                at += 4
                continue
            if attribute in (_REGCOUNT, _FRAME_SIZE):
                index, value = struct.unpack_from("<II", cubin, at + 4)
                key = "registers" if attribute == _REGCOUNT else "frame"
                found.setdefault(symbol(index), {})[key] = value
            at += 4 + size
    return found
