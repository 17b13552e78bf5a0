"""What is shared per backend: compile wrappers, precision modes, launch helpers."""
