"""Warmed calls of a model block's fused implementations inside one cudaProfilerStart/Stop range, for ncu.

    ncu --clock-control none --profile-from-start off --set full -o REPORT \\
        python3 scripts/ncu_block.py trimul/outgoing-768 bf16 [LABEL ...]

LABEL names a fused implementation as a block result does (``fused(triton.pairformer)``); none names every one
the block takes at that precision. Each is called three times on the block's own inputs before the range opens
(compilation, autotuning and loading happen there), then once inside it, under the block's precision and on its
inputs as in a context run: ncu sees one timed call of each.
"""

from __future__ import annotations

import sys

import torch

from mage.backends.precision import precision_mode
from mage.context import blocks, fusion, library


def main(block_name: str, precision: str, labels: list[str]) -> None:
    library.define_all()
    block, inputs = blocks.build_as_timed(block_name, precision, "cuda")
    chosen = [impl for impl in fusion.implementations(block.family, precision)
              if (not labels or impl.label in labels) and not impl.skip_reason(block, "cuda")]
    if not chosen:
        sys.exit(f"no fused implementation of {block_name} at {precision} matches {labels or 'any'}")
    with precision_mode(precision), library.use(precision):
        for impl in chosen:
            for _ in range(3):
                impl.fn(block, *inputs)
        torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStart()
        for impl in chosen:
            impl.fn(block, *inputs)
            torch.cuda.synchronize()
        torch.cuda.cudart().cudaProfilerStop()
    print("profiled:", [impl.label for impl in chosen])


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
