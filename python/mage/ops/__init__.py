"""One package per op: spec.py (cases, inputs, float64 reference, work, contract) and its implementations."""
