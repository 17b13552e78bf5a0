"""neighbor_agg's scheduling study in the report (mage.report.schedule), on the committed H200 run 21:
65,536-node graphs from uniform to one hub at F 32, 128 and 512, six native schedules beside cuSPARSE,
stored before the case stats were (so the skew is recomputed from the seeded graphs)."""

import shutil
from pathlib import Path

import pytest

from mage.report import html, schedule
from mage.store import Store

RESULTS = Path(__file__).resolve().parent.parent / "results" / "h200"
SCHEDULES = ["native/sum", "native.warp/sum", "native.block/sum", "native.edge/sum", "native.split/sum",
             "native.sorted/sum"]


@pytest.fixture(scope="module")
def run21(tmp_path_factory):
    db = tmp_path_factory.mktemp("store") / "mage.db"
    shutil.copy(RESULTS / "mage.db", db)  # never the committed file
    store = Store(db, read_only=True)
    return store.run(21), store.rows(21), store.rows(41)


def test_the_study_reads_each_schedule_against_cusparse_per_graph_by_skew(run21):
    _, rows, _ = run21
    found = schedule.study(rows)
    assert found.cache == "cold" and found.widths == [32, 128, 512] and found.schedules == SCHEDULES
    # from even degrees to the hub: the coefficient of variation orders the graphs as the issue does
    assert found.graphs == ["uniform-64k", "powerlaw2.1-64k", "powerlaw1.8-64k", "rmat-64k", "hub-64k"]
    assert found.cv["uniform-64k"] < 0.1 < 20 < found.cv["hub-64k"]
    # run 21's rows (cold kernel µs): R-MAT F128 native.edge 162.5 against cuSPARSE 92.1
    assert found.ratio[("native.edge/sum", "rmat-64k", 128)] == pytest.approx(162.5 / 92.1, rel=1e-3)


def test_one_sentence_per_graph_names_the_fastest_schedule(run21):
    sentences = schedule.study(run21[1]).winners()
    assert len(sentences) == 5
    assert sentences[0].startswith("uniform-64k (degree CV 0.03): fastest at F32 native.edge/sum (0.55× cuSPARSE)")
    assert "F128 cuSPARSE (next native.edge/sum, 1.76×)" in sentences[3]


def test_the_static_figure_has_a_panel_per_width_and_a_line_per_schedule(run21, tmp_path):
    run, rows, _ = run21
    figure = schedule.static(schedule.study(rows))
    for axis in figure.axes:
        assert [line.get_label() for line in axis.get_lines() if not line.get_label().startswith("_")] == SCHEDULES
    assert figure.get_figwidth() <= 16.0
    paths = schedule.draw(run, rows, tmp_path)
    assert [p.name for p in paths] == ["schedule.png", "schedule.svg"] and all(p.stat().st_size for p in paths)
    assert "native.sorted/sum" in (tmp_path / "schedule.svg").read_text()


def test_the_report_shows_the_interactive_figure_and_the_sentences(run21):
    run, rows, _ = run21
    section = html.schedule_html(rows)
    assert 'id="schedules"' in section and section.count("<li>") == 5
    figure = schedule.interactive(schedule.study(rows))
    assert len(figure.data) == len(SCHEDULES) * 3
    assert [t.name for t in figure.data if t.showlegend] == SCHEDULES
    # One scale rule for every panel: equal heights in two panels are equal ratios.
    panels = [figure.layout[name] for name in figure.layout if name.startswith("yaxis")]
    assert len(panels) == 3 and all(panel.type == "log" for panel in panels)


def test_a_run_without_the_schedule_suite_has_no_study(run21, tmp_path):
    """Run 41: the large power-law case, cuSPARSE beside native; no schedule-suite graph."""
    run, _, others = run21
    assert any(r["family"] == "cusparse" for r in others)
    assert schedule.study(others) is None and html.schedule_html(others) == ""
    assert schedule.draw(run, others, tmp_path) == [] and not list(tmp_path.iterdir())
