"""The answer a report opens with, and static figures that fit a screen with no label over another (CPU only).

Overlap is read from the SVG the figure writes: with text kept as text, every <text> element's box
(position, anchor, rotation, and the glyph metrics of its font at its size) is compared with every other's.
"""

import math
import re
import struct
import xml.etree.ElementTree as ET

import pytest

from mage.amdahl import Share
from mage.report import figures, html
from mage.report.summary import op_summary
from mage.spec import Case
from mage.store import Result, Store
from test_report import _impl, make_run

SVG = "{http://www.w3.org/2000/svg}"
MAX_WIDTH_PX = 2400


def _text_boxes(svg_path) -> list[tuple[str, list[tuple[float, float]]]]:
    """(text, its four corners in SVG units) for every text element of the figure."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    measure = TextToPath()
    boxes = []
    for element in ET.parse(svg_path).getroot().iter(f"{SVG}text"):
        style, transform = element.get("style", ""), element.get("transform", "")
        size = float(re.search(r"font-size: ([\d.]+)px", style).group(1))
        anchor = (re.search(r"text-anchor: (\w+)", style) or [None, "start"])[1]
        text = "".join(element.itertext())
        x, y = float(element.get("x", 0)), float(element.get("y", 0))
        if moved := re.search(r"translate\(([-\d.e]+) ([-\d.e]+)\)", transform):
            x, y = float(moved[1]), float(moved[2])
        turned = re.search(r"rotate\(([-\d.e]+)", transform)
        angle = math.radians(float(turned[1]) if turned else 0.0)
        width, height, descent = measure.get_text_width_height_descent(
            text, FontProperties(family="DejaVu Sans", size=size), ismath=False)
        left = {"start": 0.0, "middle": -width / 2, "end": -width}[anchor]
        cos, sin = math.cos(angle), math.sin(angle)
        corners = [(left, descent - height), (left + width, descent - height), (left + width, descent), (left, descent)]
        boxes.append((text, [(x + u * cos - v * sin, y + u * sin + v * cos) for u, v in corners]))
    return boxes


def _overlap(a: list, b: list, slack: float = 0.5) -> bool:
    """Separating-axis test of two rectangles (possibly rotated); touching within ``slack`` is no overlap."""
    for polygon in (a, b):
        for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1]):
            nx, ny = y1 - y2, x2 - x1
            on_a, on_b = [nx * x + ny * y for x, y in a], [nx * x + ny * y for x, y in b]
            gap = slack * math.hypot(nx, ny)
            if max(on_a) - gap <= min(on_b) + gap or max(on_b) - gap <= min(on_a) + gap:
                return False
    return True


def _png_size(path) -> tuple[int, int]:
    return struct.unpack(">II", path.read_bytes()[16:24])


def _twenty_triangles(store, run_id):
    """Triangle with twenty implementations, in a 5 µs case and a 20 ms one."""
    for index, (name, base) in enumerate((("B1-N128-C64", 5.0), ("B1-N512-C128", 20000.0))):
        case_id = store.case_id(run_id, Case("triangle", name, "seed", {}, seed=index))
        for family in ("eager", "compile", "triton", "native", "native-py"):
            for variant in ("outgoing", "incoming"):
                for precision in ("ieee", "tf32"):
                    impl = _impl("triangle", family, variant)
                    impl.name, impl.precision = f"{family}/{variant}/{precision}", precision
                    value = base * (1 + 0.37 * len(impl.name) % 3)
                    store.add_result(run_id, case_id, store.impl_id(run_id, impl), Result(
                        "single", "warm", "pass", contract="pass", kernel_us=value, launches=3, host_us=20.0,
                        span_mean_us=value * 1.5, span_median_us=value * 1.5, span_round_min_us=value * 1.4,
                        span_round_max_us=value * 1.6, span_samples=9, calls_per_sample=1))


@pytest.fixture
def crowded(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db", more=_twenty_triangles)
    return tmp_path, store.run(run_id), store.rows(run_id)


def test_the_static_figure_fits_a_screen_and_no_label_overlaps_another(crowded):
    tmp_path, run, rows = crowded
    png, svg = figures.draw(run, rows, tmp_path)
    width, _ = _png_size(png)
    assert width <= MAX_WIDTH_PX
    boxes = _text_boxes(svg)
    texts = [text for text, _ in boxes]
    assert "triangle" in texts and "B1-N512-C128" in texts  # a row per op, a panel per case
    assert texts.count("eager/outgoing/ieee") == 1  # named once, in the legend, not under each bar
    canvas = ET.parse(svg).getroot()
    right, bottom = (float(canvas.get(side).removesuffix("pt")) for side in ("width", "height"))
    for text, corners in boxes:
        assert all(-1 <= x <= right + 1 and -1 <= y <= bottom + 1 for x, y in corners), f"{text!r} is cut off"
    overlapping = [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:] if _overlap(box_a, box_b)]
    assert overlapping == []


def test_the_overlap_check_finds_labels_drawn_over_each_other(tmp_path):
    """The check itself: two labels at one place, and one turned across another, are caught."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(3, 2))
    axis.text(0.5, 0.5, "first label")
    axis.text(0.52, 0.5, "second label")
    axis.text(0.1, 0.1, "turned", rotation=90)
    axis.text(0.08, 0.2, "across it")
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        figure.savefig(tmp_path / "overlap.svg")
    plt.close(figure)
    boxes = dict(_text_boxes(tmp_path / "overlap.svg"))
    assert _overlap(boxes["first label"], boxes["second label"])
    assert _overlap(boxes["turned"], boxes["across it"])
    assert not _overlap(boxes["first label"], boxes["turned"])


def test_a_context_figure_fits_a_screen_and_no_label_overlaps_another(tmp_path):
    from context_records import store_context_run

    store = Store(tmp_path / "mage.db")
    run_id = store_context_run(store)
    png, svg = figures.draw_context(store.run(run_id), store.context_results(run_id), store.context_shares(run_id),
                                    tmp_path)
    assert _png_size(png)[0] <= MAX_WIDTH_PX
    boxes = _text_boxes(svg)
    assert [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:] if _overlap(box_a, box_b)] == []


def test_the_report_opens_with_the_answer_and_collapses_the_findings(stored):
    _, run, rows = stored
    page = html.build(run, rows)
    answer, findings = page.index('id="answer"'), page.index('id="findings"')
    assert answer < findings < page.index('id="ops"')
    assert page.index('id="answer-layernorm"><h3>layernorm</h3>') < page.index('id="journal-layernorm"') < findings
    assert '<details class="findings"><summary>' in page  # collapsed: no open attribute
    layernorm = op_summary([r for r in rows if r["op"] == "layernorm"], "warm")
    assert layernorm == [  # stored before hardware floors: no fraction of one; no share measured: no Amdahl
        "Fastest (the two boundaries disagree): 1024x1024: kernel time compile, call span eager.",
        "The launch path changes the answer: graph path: compile (single: eager).",
    ]
    for sentence in layernorm:
        assert html.escape(sentence) in page[answer:findings]
    with_floors = [r | {"memory_floor_us": r["floor_us"]} for r in rows if r["op"] == "layernorm"]
    shares = [Share(0.2, "a request", False)]
    assert op_summary(with_floors, "warm", shares)[1:] == [
        "The fastest kernel, compile, reaches 60% of its hardware floor (cold L2).",
        "The launch path changes the answer: graph path: compile (single: eager).",
        "Amdahl: compile's kernel is 1.79× shorter than eager's (2.90 vs 5.20 µs); at 20% of a request (a fraction "
        "given, not measured) it would make that 1.10× faster (latency −8.8%), everything else unchanged.",
    ]
    matmul = op_summary([r for r in rows if r["op"] == "matmul"], "warm")
    assert matmul[0] == "Fastest (the two boundaries agree): kernel time and call span alike: eager ≈ compile."
    assert not any(s.startswith("Amdahl") for s in matmul)  # 2 % apart: within noise, nothing to scale


def test_the_journal_figure_draws_a_log_axis_where_cases_differ_widely(crowded):
    _, _, rows = crowded
    triangle = html.journal_figure("triangle", [r for r in rows if r["op"] == "triangle"])
    assert triangle.layout.yaxis.type == "log" and triangle.layout.yaxis3.type == "log"
    layernorm = html.journal_figure("layernorm", [r for r in rows if r["op"] == "layernorm"])
    assert layernorm.layout.yaxis.type is None


def test_skips_are_summarised_one_line_per_family_and_reason(stored):
    _, run, rows = stored
    page = html.build(run, rows)
    assert '<p class="banner skip">native: 1 skipped — the native extension is not built on this machine' in page
    assert "layernorm 1024x1024 native" not in page.split('id="findings"')[0]  # not listed pair by pair


@pytest.fixture
def stored(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db")
    return tmp_path, store.run(run_id), store.rows(run_id)



def test_the_answer_ranks_within_a_precision(stored):
    """A bf16 kernel twice as fast as every ieee one is the fastest at bf16, never the fastest of the case."""
    _, _, rows = stored
    ieee = [r for r in rows if r["op"] == "layernorm"]
    bf16 = [r | {"precision": "bf16", "impl": r["impl"].replace("/ieee", "/bf16"),
                 "kernel_us": r["kernel_us"] and r["kernel_us"] / 2} for r in ieee]
    fastest = op_summary(ieee + bf16, "warm")[0]
    assert "1024x1024 ieee: kernel time compile/ieee" in fastest and "1024x1024 bf16: kernel time compile/bf16" in fastest
