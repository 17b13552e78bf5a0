"""How a page carries its figures: each as a reserved div and its JSON (figure_html), drawn by one small script
when it nears the viewport (LAZY_DRAW), after plotly.js loaded once (plotly_scripts). Every report, the site
and the history page emit figures here, so they are drawn the same way."""

from __future__ import annotations

import functools
import html

import plotly.graph_objects as go
import plotly.io as pio
from plotly.io.json import to_json_plotly
from plotly.offline import get_plotlyjs

PLOT_CONFIG = {"displaylogo": False, "responsive": True}
DEFAULT_FIGURE_HEIGHT = 450  # plotly.js's own, for a figure whose layout sets none
# Draws each figure of the page (figure_html) when it comes within a screen of the viewport, so that a page of
# many figures shows its first screen at once; everything at once where IntersectionObserver does not exist,
# and before printing, which shows every figure.
LAZY_DRAW = """document.addEventListener("DOMContentLoaded", () => {
  const waiting = new Map();  // a figure's div -> the script element holding its JSON
  for (const source of document.querySelectorAll("script[data-figure]")) {
    waiting.set(document.getElementById(source.dataset.figure), source);
  }
  const observer = "IntersectionObserver" in window ? new IntersectionObserver(
    entries => entries.forEach(entry => entry.isIntersecting && draw(entry.target)), {rootMargin: "100% 0px"}) : null;
  function draw(div) {
    const source = waiting.get(div);
    if (!source) return;
    waiting.delete(div);
    if (observer) observer.unobserve(div);
    const figure = JSON.parse(source.textContent);
    Plotly.newPlot(div, figure.data, figure.layout, figure.config);
  }
  const drawAll = () => [...waiting.keys()].forEach(draw);
  window.addEventListener("beforeprint", drawAll);
  if (observer) waiting.forEach((_, div) => observer.observe(div)); else drawAll();
});"""


def figure_html(figure: go.Figure, div_id: str, template: str | None = None) -> str:
    """The one way a page carries a figure: its div, as tall as the figure will be so that the page does not
    move when it is drawn, and its data, layout and config as JSON that does not run; LAZY_DRAW draws it.
    plotly's JSON escapes ``<``, ``>`` and ``/``, so no text in a figure can close the script element.
    ``template``: a plotly template by name, set in the JSON (setting it on the figure validates a copy of the
    whole template each time, most of a site's build)."""
    spec = figure.to_dict()
    if template is not None:
        spec["layout"]["template"] = _template(template)
    spec = to_json_plotly({**spec, "config": PLOT_CONFIG})
    height = figure.layout.height or DEFAULT_FIGURE_HEIGHT
    return (f'<div id="{html.escape(div_id)}" class="plotly-graph-div" style="height:{height}px; width:100%;"></div>'
            f'<script type="application/json" data-figure="{html.escape(div_id)}">{spec}</script>')


@functools.cache
def _template(name: str) -> dict:
    return pio.templates[name].to_plotly_json()


def plotly_scripts(plotly_src: str | None = None) -> str:
    """What a page with figures loads once: plotly.js inline (a page that opens alone) or a reference to one
    copy shared by a site's pages, then LAZY_DRAW."""
    plotly = (f"<script>{get_plotlyjs()}</script>" if plotly_src is None
              else f'<script src="{html.escape(plotly_src)}"></script>')
    return f"{plotly}<script>{LAZY_DRAW}</script>"
