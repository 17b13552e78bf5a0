"""The processes scripts/h200.sh runs `mage check` in, at once on one GPU: a line each, its label, a tab and the
options it adds to MAGE_CHECK's (given as the one argument).

One process an op; options that name --op already run as given, in one process. Where every strategy of an op is
checked (--all-strategies, no --impl), compile.max-autotune, which autotunes each shape of each contract for
minutes, is checked in a process of its own, and the op's other implementations, named one by one, in processes
of at most SHARE each: a cold check compiles every Triton config of every strategy on the host's cores, and the
triangle's 80-odd strategies in one process outlast any bound a device call allows.
"""

import shlex
import sys

from mage import registry

SLOW = "compile.max-autotune"
SHARE = 24


def units(options: list[str]) -> list[tuple[str, str]]:
    if "--op" in options:
        return [("all", "")]
    registry.load()
    every_strategy = "--all-strategies" in options and "--impl" not in options
    out = []
    for op in sorted(registry.ops()):
        names = [impl.name for impl in registry.implementations(op)]
        slow = [name for name in names if name.startswith(f"{SLOW}/")]
        if every_strategy and slow:
            rest = [name for name in names if name not in slow]
            shares = -(-len(rest) // SHARE)
            for index in range(shares):
                # Every shares-th name, so that each process gets some of every family's cold compiles.
                named = rest[index::shares]
                label = op if shares == 1 else f"{op}-{index + 1}"
                out.append((label, f"--op {op} " + " ".join(f"--impl {name}" for name in named)))
            out.append((f"{op}-{SLOW}", f"--op {op} --impl {SLOW}"))
        else:
            out.append((op, f"--op {op}"))
    return out


if __name__ == "__main__":
    for label, added in units(shlex.split(sys.argv[1] if len(sys.argv) > 1 else "")):
        print(f"{label}\t{added}")
