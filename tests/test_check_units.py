"""scripts/check_units.py: the processes scripts/h200.sh checks contracts in at once on one GPU."""

import sys
from pathlib import Path

from mage import registry

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from check_units import SHARE, SLOW, units  # noqa: E402


def _selected(op: str, added: str) -> set[str]:
    patterns = added.split()[3::2]  # past "--op OP": the --impl values
    return {impl.name for impl in registry.select(op, patterns, all_strategies=True)}


def test_every_strategy_is_checked_once_with_max_autotune_in_a_process_of_its_own():
    found = units(["--suite", "seed", "--all-strategies"])
    assert len({label for label, _ in found}) == len(found)
    for op in registry.ops():
        every = {impl.name for impl in registry.implementations(op)}
        slow = _selected(op, dict(found)[f"{op}-{SLOW}"])
        assert slow and all(name.startswith(f"{SLOW}/") for name in slow)
        shares = [_selected(op, added) for label, added in found if label == op or label.startswith(f"{op}-")
                  and label != f"{op}-{SLOW}"]
        assert all(0 < len(share) <= SHARE for share in shares)
        assert sum(map(len, shares)) + len(slow) == len(every) and set().union(slow, *shares) == every


def test_a_check_of_champions_or_of_named_ops_is_not_split():
    assert dict(units(["--suite", "seed"])) == {op: f"--op {op}" for op in registry.ops()}
    assert units(["--op", "softmax", "--all-strategies"]) == [("all", "")]
