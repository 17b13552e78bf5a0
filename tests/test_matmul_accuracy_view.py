"""The accuracy-against-speed view (python/mage/report/accuracy.py) in `mage show`: per op and case measured at two
precisions or more, a text scatter of relative error (log, up) against time (log, right), one mark a point, the
mark the table gives it. Checked on a real store: a small CPU run of matmul at ieee and tf32x3."""

import os
import subprocess
import sys

import pytest

from mage import registry
from mage.measure.method import Method
from mage.plan import Planned, Request
from mage.report.accuracy import Point, scatter
from mage.runner import Runner
from mage.spec import Case
from mage.store import Store

registry.load()
QUICK = Method(span_samples=6, min_samples=1, kernel_calls=2, host_calls=4, host_chunk=2, warmup_calls=2)
IMPLS = ["eager/default/ieee", "triton/default/ieee", "triton.k3/default/tf32x3"]


@pytest.fixture(scope="module")
def shown(tmp_path_factory):
    """A CPU run of three matmuls at ieee and tf32x3 (K 256 and N 40: triton.k3's TMA path), its rows by
    implementation, and what `mage show` prints of it."""
    pytest.importorskip("mage.ops.matmul.triton_k3")
    spec = registry.get_op("matmul")
    case = Case("matmul", "48x256x40", "seed", {"m": 48, "k": 256, "n": 40}, seed=4)
    impls = [next(i for i in registry.implementations("matmul") if i.name == name) for name in IMPLS]
    path = tmp_path_factory.mktemp("accuracy") / "mage.db"
    store = Store(path)
    run_id = Runner(store, Request(suites=["seed"], device="cpu", method=QUICK, paths=["single"]), "pytest").run(
        [Planned(spec, case, impls)])
    rows = {row["impl"]: row for row in store.rows(run_id)}
    assert {name: row["status"] for name, row in rows.items()} == dict.fromkeys(IMPLS, "pass")
    done = subprocess.run([sys.executable, "-m", "mage", "show", str(run_id), "--db", str(path)], capture_output=True,
                          text=True, timeout=300, env=os.environ | {"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return rows, done.stdout


def _marks(text: str) -> dict[str, str]:
    """{implementation: its mark} from the accuracy table's rows."""
    table = text[text.index("accuracy against speed"):text.index("relative error (log) against time (log)")]
    cells = [[cell.strip() for cell in line.split("│")] for line in table.splitlines() if line.count("│") > 6]
    return {row[3]: row[8] for row in cells}


def _plane(text: str) -> list[str]:
    """The scatter's grid lines, each from just after its axis."""
    lines = text[text.index("relative error (log) against time (log)"):].splitlines()[1:]
    grid = lines[:next(n for n, line in enumerate(lines) if "└" in line)]
    return [line.split("┤" if "┤" in line else "│", 1)[1] for line in grid]


def _where(plane: list[str], mark: str) -> tuple[int, int]:
    (found,) = [(row, line.index(mark)) for row, line in enumerate(plane) if mark in line]
    return found


def test_show_draws_each_point_where_its_error_and_time_put_it(shown):
    rows, text = shown
    marks = _marks(text)
    assert sorted(marks) == sorted(IMPLS) and len(set(marks.values())) == len(IMPLS)
    plane = _plane(text)
    assert len(plane) == 10
    time = lambda name: rows[name]["kernel_us"] or rows[name]["span_mean_us"]  # the CPU run has spans only
    placed = {name: _where(plane, mark) for name, mark in marks.items()}
    for one in IMPLS:
        for other in IMPLS:
            if rows[one]["rel_error"] > rows[other]["rel_error"]:
                assert placed[one][0] <= placed[other][0]  # a larger error is drawn no lower
            if time(one) > time(other):
                assert placed[one][1] >= placed[other][1]  # a longer time no further left
    slowest = max(IMPLS, key=time)
    assert placed[slowest][1] == max(col for _, col in placed.values())
    highest = max(IMPLS, key=lambda name: rows[name]["rel_error"])
    assert placed[highest][0] == 0 and f"{rows[highest]['rel_error']:.1e} ┤" in text


def test_points_in_one_cell_share_a_star_and_an_exact_result_sits_on_the_floor():
    pts = [Point("a", "ieee", True, 100.0, 1e-6), Point("b", "tf32x3", False, 100.5, 1e-6),
           Point("c", "tf32", False, 1000.0, 0.0)]
    lines = scatter(pts, width=20, height=5)
    assert lines[0].endswith("┤*") and lines[4].endswith("C".rjust(20)) and "1.0e-16 ┤" in lines[4]
    assert lines[-1].strip() == "100.0 µs" + "1,000.0 µs".rjust(20 - len("100.0 µs"))
