"""L2 flush for cold-cache measurements (GUIDE §1), sized from the device's L2 attribute.

Writing a buffer twice the size of L2 evicts whatever the previous call left there. The flush
is enqueued before the timed window opens, so it is never inside a measurement.
"""

from __future__ import annotations

import torch


class L2Flush:
    def __init__(self, device: str):
        self.buffer = None
        if device == "cuda":
            l2_bytes = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
            self.buffer = torch.empty(2 * l2_bytes // 4, dtype=torch.int32, device=device)

    @property
    def bytes(self) -> int:
        return 0 if self.buffer is None else self.buffer.numel() * 4

    def __call__(self) -> None:
        if self.buffer is not None:
            self.buffer.fill_(0x5A5A5A5A)
