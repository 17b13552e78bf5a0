"""Implementations that cheat, one module per class of exploit (those seen in KernelBench and GPU MODE).

Each module's ``cheat(compute)`` wraps an honest implementation's function in the exploit. Every one is
right whenever it is checked, so it passes the contract and the re-check; only what its measurements
show can give it away (mage.suspect). tests/test_cheats.py and tests/test_cheats_gpu.py prove it does.
One is right on every finite input and wrong on the others: nan_to_number, which only the non-finite
contract catches (tests/test_nonfinite.py).
"""
