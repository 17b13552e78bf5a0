"""Mage: write one operation several ways, check each against float64, measure them honestly."""

__version__ = "0.1.0"


def __getattr__(name: str):
    # ``mage.use`` (mage.context.use) loads torch and every op: only when it is asked for, not on ``import mage``.
    if name == "use":
        from mage.context import use

        return use
    raise AttributeError(f"module 'mage' has no attribute {name!r}")
