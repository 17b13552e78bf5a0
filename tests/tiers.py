"""The test tiers (pytest -m slow is the slow tier, the rest the fast one that CI runs): a test of a kernel
strategy on a large emulated case runs in the fast tier for the strategies that run by default (each family's
champion, and its default strategy), and in the slow tier for the studies, which keep a small case there."""

import pytest

from mage import registry


def runs_by_default(op: str, family: str, strategy: str) -> bool:
    """Whether ``strategy`` of ``family`` is the champion of ``op`` at some variant and precision, or its default."""
    return strategy == "default" or any(impl.champion for impl in registry.implementations(op)
                                        if (impl.family, impl.strategy) == (family, strategy))


def slow_for_studies(op: str, family: str, strategy: str) -> tuple:
    """The marks of a test of ``strategy`` on a large case: none for a strategy that runs by default, else slow."""
    return () if runs_by_default(op, family, strategy) else (pytest.mark.slow,)
