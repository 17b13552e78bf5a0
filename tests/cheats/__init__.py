"""Deliberately cheating implementations, one module per class of cheat, for the cheat tests."""
