"""SIGINT and SIGTERM end a run as Interrupted, but never in the middle of a CUDA graph capture.

The handler raises Interrupted where the process is, so a finished case stays stored and the run is
marked incomplete. Unwinding out of a stream capture would leave the stream capturing, and every CUDA
call after it (the run's own bookkeeping among them) would fail: inside ``uninterrupted()`` the signal
is held and raised as soon as the block ends. A second signal while one is held raises at once, so a
capture that hangs can still be stopped.
"""

from __future__ import annotations

import contextlib
import signal

from mage.errors import Interrupted

_held: int | None = None  # the signal that arrived inside an uninterrupted block
_depth = 0


def _handle(signum, frame) -> None:
    global _held
    if _depth and _held is None:
        _held = signum
        return
    _held = None
    raise Interrupted(signum)


def install() -> None:
    signal.signal(signal.SIGINT, _handle)
    signal.signal(signal.SIGTERM, _handle)


@contextlib.contextmanager
def uninterrupted():
    """Hold SIGINT and SIGTERM until the block ends (see the module's docstring)."""
    global _depth, _held
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
    if not _depth and _held is not None:
        signum, _held = _held, None
        raise Interrupted(signum)
