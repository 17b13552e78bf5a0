"""The report in a real browser: headless Chromium opens report.html from a file:// URL.

Chromium is driven through the DevTools protocol over a pipe (--remote-debugging-pipe: JSON
messages separated by NUL bytes on file descriptors 3 and 4), so the test needs no websocket
library and no browser download. It clicks the view buttons with real mouse events, checks that
the plotted values change to the stored ones, that the page logs no error and fetches nothing
from the network, and saves screenshots. Skipped only when Chromium is not installed
(Debian: apt-get install -y chromium).
"""

import base64
import json
import os
import select
import shutil
import subprocess
import time

import pytest

from mage.report import html
from test_report import make_run

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")
TIMEOUT_S = 60
FIGURE_TIMEOUT_S = 10  # to draw one figure scrolled into view
WIDTH, HEIGHT = 1400, 1000  # the viewport, CSS pixels


class DevTools:
    """One headless Chromium and one page, spoken to over the DevTools pipe."""

    def __init__(self, profile_dir):
        to_browser, self._to_browser = os.pipe()
        self._from_browser, from_browser = os.pipe()

        def on_fds_3_and_4():  # where --remote-debugging-pipe reads and writes
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", f"--user-data-dir={profile_dir}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=on_fds_3_and_4, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self.buffer, self.next_id, self.events, self.session = b"", 0, [], None
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self._from_browser], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def wait_for_event(self, method: str) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while not any(e.get("method") == method for e in self.events):
            self.events.append(self._receive(deadline))

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def draw_every_figure(self) -> None:
        """Scroll each figure into view and wait until plotly has drawn it (a page draws a figure only as it nears
        the viewport: mage.report.plots.LAZY_DRAW), then back to the top."""
        count = self.evaluate("document.querySelectorAll('div.plotly-graph-div').length")
        for index in range(count):
            self.evaluate(f"""(async () => {{
                const div = document.querySelectorAll('div.plotly-graph-div')[{index}];
                div.scrollIntoView();
                const deadline = Date.now() + {FIGURE_TIMEOUT_S * 1000};
                while (!div.classList.contains('js-plotly-plot') && Date.now() < deadline)
                    await new Promise(resolve => setTimeout(resolve, 50));
            }})()""")
        self.evaluate("window.scrollTo(0, 0)")

    def screenshot(self, path, full_page: bool = False) -> None:
        """The viewport as a PNG; ``full_page``: the whole page, every figure drawn first."""
        clip = {}
        if full_page:
            self.draw_every_figure()
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}}
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", format="png", **clip)["data"]))

    def close(self) -> None:
        try:
            self.session = None
            self.call("Browser.close")
        except (OSError, RuntimeError, EOFError, TimeoutError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture
def page(tmp_path):
    store, run_id = make_run(tmp_path / "mage.db")
    rows = store.rows(run_id)
    report = tmp_path / "report.html"
    report.write_text(html.build(store.run(run_id), rows), encoding="utf-8")
    browser = DevTools(tmp_path / "profile")
    try:
        for domain in ("Runtime", "Log", "Page", "Network"):
            browser.call(f"{domain}.enable")
        browser.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT, deviceScaleFactor=1, mobile=False)
        browser.call("Page.navigate", url=report.as_uri())
        browser.wait_for_event("Page.loadEventFired")
        yield browser, rows, tmp_path
    finally:
        browser.close()


def _rounded(values: list) -> list:
    """Per trace, its values to 6 decimals: JSON and SQLite round-trips agree to that."""
    return [[None if v is None else round(v, 6) for v in trace] for trace in values]


def _plotted(browser, div_id: str) -> list:
    return _rounded(browser.evaluate(f"document.getElementById('{div_id}').data.map(trace => trace.y)"))


def _button_centre(browser, div_id: str, label: str) -> tuple[float, float]:
    return browser.evaluate(f"""(() => {{
        const figure = document.getElementById('{div_id}');
        figure.scrollIntoView();
        const button = [...figure.querySelectorAll('g.updatemenu-button')]
            .find(b => b.textContent.trim() === '{label}');
        const box = button.getBoundingClientRect();
        return [box.x + box.width / 2, box.y + box.height / 2];
    }})()""")


def _click_and_read(browser, div_id: str, label: str, before: list) -> list:
    browser.click(*_button_centre(browser, div_id, label))
    deadline = time.monotonic() + 10
    while (after := _plotted(browser, div_id)) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    return after


def _expected(rows: list, op: str, field: str) -> list:
    """What the op's figure plots for ``field``: per implementation, per (case, cache) slot, warm then cold."""
    single = [r for r in rows if r["op"] == op and r["path"] == "single" and r["status"] == "pass"]
    slots = list(dict.fromkeys((r["case"], r["cache"]) for r in single))
    impls = list(dict.fromkeys(r["impl"] for r in rows if r["op"] == op))
    found = {(r["impl"], r["case"], r["cache"]): r[field] for r in single}
    return _rounded([[found.get((impl, case, cache)) for case, cache in slots] for impl in impls])


def test_view_buttons_change_the_plotted_values_and_the_page_logs_no_error(page):
    browser, rows, tmp_path = page
    browser.draw_every_figure()
    figures = browser.evaluate("document.querySelectorAll('.js-plotly-plot').length")
    assert figures == 3 * len({r["op"] for r in rows}) + 2  # per op the answer and two, then the floor and roofline
    browser.screenshot(tmp_path / "report-top.png")

    div = "boundaries-layernorm"
    kernel = _plotted(browser, div)
    assert kernel == _expected(rows, "layernorm", "kernel_us")
    span = _click_and_read(browser, div, "call span", kernel)
    assert span != kernel
    assert span == _expected(rows, "layernorm", "span_mean_us")
    browser.screenshot(tmp_path / "report-span-view.png")
    launches = _click_and_read(browser, div, "launches per call", span)
    assert launches == _expected(rows, "layernorm", "launches")
    back = _click_and_read(browser, div, "kernel time", launches)
    assert back == kernel

    errors = [e for e in browser.events if e.get("method") == "Runtime.exceptionThrown"
              or (e.get("method") == "Runtime.consoleAPICalled" and e["params"]["type"] in ("error", "assert"))
              or (e.get("method") == "Log.entryAdded" and e["params"]["entry"]["level"] == "error")]
    assert errors == []
    fetched = [e["params"]["request"]["url"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    assert fetched and all(url.startswith(("file:", "data:")) for url in fetched), fetched
    for name in ("report-top.png", "report-span-view.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
        print(f"screenshot: {tmp_path / name}")


DRAWN = "[...document.querySelectorAll('div.plotly-graph-div')].map(div => div.classList.contains('js-plotly-plot'))"


def _wait_until(browser, expression: str) -> bool:
    deadline = time.monotonic() + FIGURE_TIMEOUT_S
    while not (met := browser.evaluate(expression)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return met


def _png_height(path) -> int:
    return int.from_bytes(path.read_bytes()[20:24], "big")  # in the IHDR chunk, after the width


def test_figures_are_drawn_as_they_near_the_viewport_and_all_for_a_full_page_screenshot(page):
    browser, _, tmp_path = page
    roofline = "document.getElementById('roofline-figure')"
    assert _wait_until(browser, f"{DRAWN}[0]")  # the first figure is on the first screen
    time.sleep(0.5)  # what would be drawn at load has had its time
    assert browser.evaluate(f"{roofline}.getBoundingClientRect().top") > 3 * HEIGHT
    assert not browser.evaluate(f"{roofline}.classList.contains('js-plotly-plot')"), "drawn screens before it is seen"
    browser.evaluate(f"{roofline}.scrollIntoView()")
    assert _wait_until(browser, f"{roofline}.classList.contains('js-plotly-plot') && {roofline}.data.length > 0")

    browser.screenshot(tmp_path / "report-full.png", full_page=True)
    assert all(browser.evaluate(DRAWN))
    assert _png_height(tmp_path / "report-full.png") > 3 * HEIGHT  # the whole page, not the viewport
    print(f"screenshot: {tmp_path / 'report-full.png'}")


def test_printing_draws_every_figure(page):
    browser, _, _ = page
    assert _wait_until(browser, f"{DRAWN}[0]")
    assert not all(browser.evaluate(DRAWN))
    browser.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    assert _wait_until(browser, f"{DRAWN}.every(Boolean)")
