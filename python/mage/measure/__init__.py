"""The measurement core: one module per boundary and launch path, plus ceilings, l2 flush and environment.

Boundaries (GUIDE §1), never subtracted from one another:
- kernel.py  kernel time and launches per call, from a profiler capture
- span.py    call span from CUDA events, in rotated rounds, for the single/batch/graph paths
- host.py    host time per call, measured directly
"""
