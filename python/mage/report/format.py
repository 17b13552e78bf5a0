"""How numbers and provenance are written, the same in every table, finding and report."""

from __future__ import annotations

import re

# Text from a store, a document or a plugin is data: its control characters (ESC[2J clears a screen) are dropped
# wherever it is shown, all but newline and tab.
CONTROL_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def without_control(text: str) -> str:
    return CONTROL_CHARACTERS.sub("", text)


def first_sentence(text: str) -> str:
    """A text's first sentence, its whitespace collapsed: up to the first '. ' or '? ', or all of it."""
    words = " ".join(text.split())
    ends = [i for i in (words.find("? "), words.find(". ")) if i >= 0]
    return words[:min(ends) + 1] if ends else words


def us(value: float | None) -> str:
    """Microseconds: one decimal from 100 µs up, two below; '—' where nothing was measured."""
    if value is None:
        return "—"
    return f"{value:,.1f}" if value >= 100 else f"{value:.2f}"


def span_timer(clock: str) -> str:
    """What timed a run's spans: CUDA events on a GPU, the host's wall clock on the CPU."""
    return "wall-clock" if clock == "cpu" else "CUDA-event"


def range_of(low: float | None, high: float | None) -> str:
    """A range of microseconds, 'low–high'; '—' without one."""
    return "—" if low is None or high is None else f"{us(low)}–{us(high)}"


def with_range(value: float | None, low: float | None, high: float | None) -> str:
    """Microseconds with the range they were read from, 'v [low–high]'; the value alone without one."""
    if value is None or low is None or high is None:
        return us(value)
    return f"{us(value)} [{range_of(low, high)}]"


def at_boundary(value: float | None, boundary: str) -> str:
    """A value of ``boundary``: launches are counts, a speedup (a model block's, mage.compare) a ratio, every
    other boundary is microseconds."""
    if value is not None and boundary == "launches":
        return f"{value:g}"
    if value is not None and boundary == "speedup":
        return f"{value:.3g}×"
    return us(value)


def commit_label(env: dict, missing: str = "?") -> str:
    """The run's commit, short, marked '+dirty' when the tree had uncommitted changes."""
    return (env.get("git_commit") or missing)[:10] + ("+dirty" if env.get("git_dirty") else "")


def clock_range(row: dict) -> str:
    """The SM clock seen while a result was measured, 'low–high MHz' and its slowdown reasons; '—' unsampled."""
    low, high = row.get("sm_clock_min_mhz"), row.get("sm_clock_max_mhz")
    if low is None or high is None:
        return "—"
    text = f"{low:,.0f} MHz" if low == high else f"{low:,.0f}–{high:,.0f} MHz"
    return f"{text} ({row['clock_events'].replace(' ', ', ')})" if row.get("clock_events") else text


def hardware_floor_us(row: dict) -> float | None:
    """A result's floor from the device's peaks: the larger of its memory and compute floors. None for a result
    stored before schema 10, whose floor came from rates measured in its own run (the copy, the library's
    matmul): that is another measure, so it is never shown as a fraction of the floor."""
    present = [floor for floor in (row.get("memory_floor_us"), row.get("compute_floor_us")) if floor]
    return max(present) if present else None


def floor_fraction(row: dict, field: str = "kernel_us") -> float | None:
    """Floor ÷ measured time at ``field`` (100 % = at the floor), from the hardware floor only: the one
    definition of "% of floor" across runs. None where there is no hardware floor or no time."""
    floor, measured = hardware_floor_us(row), row.get(field)
    return floor / measured if floor and measured else None


def floor_kind(row: dict) -> str | None:
    """Which hardware floor sets a result's floor, 'memory' or 'compute'; None for results stored before
    schema 10 (their floor came from the measured ceilings) and where neither exists."""
    memory, compute = row.get("memory_floor_us"), row.get("compute_floor_us")
    if memory is None and compute is None:
        return None
    return "memory" if (memory or 0) >= (compute or 0) else "compute"
