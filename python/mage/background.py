"""Work that runs on a thread of its own for as long as a block does (the clock watch, a run's heartbeat)."""

from __future__ import annotations

import contextlib
import threading
from typing import Callable


@contextlib.contextmanager
def while_running(loop: Callable[[threading.Event], None], name: str):
    """Run ``loop(stop)`` on a daemon thread through the block; ``stop`` is set when the block ends, and the
    block's exit waits for the loop to return."""
    stop = threading.Event()
    thread = threading.Thread(target=loop, args=(stop,), name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
