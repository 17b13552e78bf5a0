"""What --isolate costs: the same mage run, plain and isolated, timed end to end (wall clock).

    python3 scripts/isolation_cost.py OUT.json [mage run options…]

Each run goes into a store of its own in a temporary directory; OUT.json gets both wall times, the
number of cases, and the per-case difference. Used on the H200 (results/README.md).
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed_run(args: list[str], db: Path) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "mage", "run", "--db", str(db), *args], check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def main(out: str, args: list[str]) -> None:
    import sqlite3

    with tempfile.TemporaryDirectory() as tmp:
        plain = timed_run(args, Path(tmp) / "plain.db")
        isolated = timed_run([*args, "--isolate"], Path(tmp) / "isolated.db")
        cases = sqlite3.connect(Path(tmp) / "isolated.db").execute("SELECT COUNT(*) FROM cases").fetchone()[0]
    record = {"command": ["mage", "run", *args], "plain_s": round(plain, 1), "isolated_s": round(isolated, 1),
              "cases": cases, "extra_per_case_s": round((isolated - plain) / max(cases, 1), 2)}
    Path(out).write_text(json.dumps(record, indent=1) + "\n")
    print(record)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
