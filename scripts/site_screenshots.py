"""Screenshots of the site built from a store: whole pages in headless Chromium, every figure drawn first.

    .venv/bin/python scripts/site_screenshots.py [--db results/h200/mage.db] [--out docs/screenshots]

Builds the site into a temporary folder, then captures the front page and a study page at a desktop width
(1440 px) and a phone width (430 px), the lower-precision study at the desktop width, and the newest run's page
and neighbor_agg's history at both. Chromium is
driven as the site's browser tests drive it (tests/test_report_browser.py: DevTools), so a page that logs
an error there fails here the same way.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the DevTools driver the browser tests use

from mage.report import site  # noqa: E402
from mage.store import Store  # noqa: E402
from test_report_browser import DevTools  # noqa: E402

DESKTOP, PHONE = 1440, 430
MAX_HEIGHT = 8000
# (page in the site, screenshot name, widths)
PAGES = [("index.html", "front-page", (DESKTOP, PHONE)),
         ("studies/model-context.html", "study-model-context", (DESKTOP, PHONE)),
         ("studies/lower-precision.html", "study-lower-precision", (DESKTOP,)),
         ("ops/neighbor_agg.html", "history-neighbor_agg", (DESKTOP, PHONE))]


def _to_palette(shot: Path) -> None:
    """256 colours are plenty for a page of text, tables and plots: a quarter of the bytes in the tree. A page
    is kept down to its first MAX_HEIGHT pixels, the screens a reader meets first."""
    from PIL import Image

    with Image.open(shot) as image:
        top = image.crop((0, 0, image.width, min(image.height, MAX_HEIGHT)))
        small = top.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(shot, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=ROOT / "results/h200/mage.db")
    parser.add_argument("--out", type=Path, default=ROOT / "docs/screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    store = Store(args.db)
    newest = max(run["id"] for run in store.runs() if run["result_count"])
    pages = PAGES + [(f"runs/run-{newest}/index.html", f"run-{newest}", (DESKTOP, PHONE))]
    with tempfile.TemporaryDirectory() as scratch:
        built = Path(scratch) / "site"
        site.build(store, built)
        browser = DevTools(Path(scratch) / "profile")
        try:
            for domain in ("Runtime", "Page"):
                browser.call(f"{domain}.enable")
            for page, name, widths in pages:
                for width in widths:
                    browser.call("Emulation.setDeviceMetricsOverride", width=width, height=1000,
                                 deviceScaleFactor=1, mobile=width == PHONE)
                    browser.events.clear()
                    browser.call("Page.navigate", url=(built / page).as_uri())
                    browser.wait_for_event("Page.loadEventFired")
                    shot = args.out / f"{name}-{width}.png"
                    browser.screenshot(shot, full_page=True)
                    _to_palette(shot)
                    print(f"{shot} ({page} at {width} px)")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
