"""The Triton interpreter's NaN semantics made those of compiled kernels, for the CPU tests.

``tl.maximum`` and ``tl.minimum`` without ``propagate_nan`` compile to PTX ``max``/``min``, which drop a NaN
(max(NaN, 1) is 1); Triton 3.6's interpreter computes them with ``np.maximum``/``np.minimum``, which keep it,
so a kernel that swallows a NaN there passes every CPU test (upstream's interpreter was changed to match
the compiler after 3.6). Its ``tl.max``/``tl.min`` reductions already drop NaN (``np.nanmax``), as compiled
ones do. With the NaN-dropping forms computed as ``np.fmax``/``np.fmin``, the non-finite contract sees under
the interpreter what it sees on the GPU; ``propagate_nan=tl.PropagateNan.ALL`` still keeps the NaN.
"""

import numpy as np

from mage.backends.triton import INTERPRETED


def drop_nan_as_compiled() -> None:
    """Make the interpreter's NaN-dropping maximum and minimum drop NaN (nothing to do when compiling)."""
    if not INTERPRETED:
        return
    from triton.runtime.interpreter import InterpreterBuilder

    InterpreterBuilder.create_maxnumf = lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmax)
    InterpreterBuilder.create_minnumf = lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmin)
