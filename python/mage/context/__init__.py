"""Mage ops inside model blocks: each op as a torch.library custom op (library), the blocks built from
them (mlp, trimul, gnn, on the shared base in block), and the measurement of a block under each
assignment of implementations, with Amdahl's prediction beside the measured speedup (measure)."""

from mage.context.library import routed, use

__all__ = ["routed", "use"]
