"""How many row loads a gather loop keeps in flight, read from the SASS without a GPU.

    PYTHONPATH=python python scripts/sass_loads_before_add.py neighbor_agg \
        neighbor_agg_inflight_sum_i64_x4 neighbor_agg_inflight_mean_i64_x4

Compiles an op's native.cu for sm_90 with NVRTC (mage.backends.native.cubin, the cubin the GPU runs), disassembles
each named kernel with Triton's cuobjdump and prints, for every innermost loop that loads 16-byte vectors
(LDG.E.128), in code order: its first address, its length in instructions, its 16-byte loads, and how many of
them it issues before its first FADD. A loop that issues all of a round's loads before adding has them all in
flight at once; one that adds earlier waits for a row before it has asked for the next ones.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import triton

from mage.backends import native

CUOBJDUMP = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,6})\*/\s+(.*?);")
BACKWARD = re.compile(r"BRA\s+0x([0-9a-f]+)")


def innermost_vector_loops(cubin: Path, kernel: str) -> list[tuple[int, int, int, int]]:
    """(start, instructions, LDG.E.128, LDG.E.128 before the first FADD) of each innermost loop with vector loads."""
    sass = subprocess.run([str(CUOBJDUMP), "-sass", "-fun", kernel, str(cubin)], capture_output=True, text=True,
                          check=True).stdout
    code = [(int(address, 16), text) for address, text in INSTRUCTION.findall(sass)]
    loops = []
    for address, text in code:
        branch = BACKWARD.search(text)
        if branch and int(branch.group(1), 16) < address:
            loops.append((int(branch.group(1), 16), address))
    # Innermost: no other loop lies within it.
    innermost = [(a, b) for a, b in loops if not any(a <= c and d <= b for c, d in loops if (c, d) != (a, b))]
    found = []
    for start, end in sorted(innermost):
        body = [text for address, text in code if start <= address <= end]
        vector = [i for i, text in enumerate(body) if "LDG.E.128" in text]
        if not vector:
            continue
        first_add = next((i for i, text in enumerate(body) if re.search(r"\bFADD\b", text)), len(body))
        found.append((start, len(body), len(vector), sum(i < first_add for i in vector)))
    return found


def main(op: str, kernels: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cubin = Path(folder) / f"{op}.cubin"
        cubin.write_bytes(native.cubin(op, 90))
        for kernel in kernels:
            print(kernel)
            for start, length, loads, before in innermost_vector_loops(cubin, kernel):
                print(f"  loop at {start:#06x}: {length} instructions, {loads} LDG.E.128, "
                      f"{before} before the first FADD")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
