"""mage compare: verdicts from raw samples, honest about noise and clocks."""

import json
import os
import subprocess
import sys

import numpy
import pytest

from mage import compare
from mage.errors import MageError
from mage.registry import Implementation
from mage.spec import Case
from mage.store import Result, Store

ROWS = [("layernorm", "1024x1024", "eager/affine/ieee", 40.0, 5.2),
        ("layernorm", "1024x1024", "triton/affine/ieee", 30.0, 3.0),
        ("matmul", "256x256x256", "eager/default/ieee", 60.0, 20.0)]


def store_run(store, *, seed, span_factor=1.0, kernel_factor=1.0, noise=0.02, clock_mhz=1980, env=None,
              rows=ROWS, clock="gpu", sampled_mhz=(None, None), tuning=None):
    """A run of ``rows`` with 3 rounds × 100 samples each: normal noise of ``noise`` × mean, plus a
    round-to-round drift of a fifth of that."""
    rng = numpy.random.default_rng(seed)
    gpu_state = {"sm_clock_mhz": clock_mhz}
    run = store.begin_run(clock=clock, suite="seed", command=f"test {seed}",
                          env={"gpu": "NVIDIA H200", "torch": "2.11.0", "gpu_state_start": gpu_state} | (env or {}),
                          method={"rounds": 3}, ceilings={"copy_gbps": 4200.0})
    for op, case_name, impl_name, span_us, kernel_us in rows:
        backend, variant, precision = impl_name.split("/")
        case_id = store.case_id(run, Case(op, case_name, "seed", {}, 1))
        impl_id = store.impl_id(run, Implementation(op, backend, variant, precision, fn=None))
        mean = span_us * span_factor
        samples = []
        for r in range(3):
            drift = rng.normal(0, noise * mean / 5)
            samples += [(r, float(v)) for v in rng.normal(mean + drift, noise * mean, 100)]
        values = [v for _, v in samples]
        round_means = [numpy.mean([v for k, v in samples if k == r]) for r in range(3)]
        store.add_result(run, case_id, impl_id, Result(
            "single", "warm", "pass", contract="pass", kernel_us=kernel_us * kernel_factor, launches=1.0,
            host_us=10.0, span_mean_us=float(numpy.mean(values)), span_median_us=float(numpy.median(values)),
            span_round_min_us=float(min(round_means)), span_round_max_us=float(max(round_means)),
            span_samples=300, calls_per_sample=1, sm_clock_min_mhz=sampled_mhz[0], sm_clock_max_mhz=sampled_mhz[1],
            tuning=tuning),
            samples)
    store.end_run(run, "complete", {"gpu_state_end": gpu_state})
    return run


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "mage.db")


def verdicts(comparison, boundary=None):
    return {(v.op, v.impl, v.boundary): v.verdict for v in comparison.verdicts
            if boundary is None or v.boundary == boundary}


def test_a_run_compared_with_itself_is_the_same_everywhere(store):
    run = store_run(store, seed=1)
    comparison = compare.compare(store, run, run)
    assert comparison.env_differences == []
    assert len(comparison.verdicts) == len(ROWS) * 4  # span, kernel, host, launches
    assert set(verdicts(comparison).values()) == {"same"}


def test_a_slowdown_well_beyond_noise_is_slower(store):
    a = store_run(store, seed=1)
    b = store_run(store, seed=2, span_factor=1.15, kernel_factor=1.15)
    comparison = compare.compare(store, a, b)
    assert set(verdicts(comparison, "span").values()) == {"slower"}
    assert set(verdicts(comparison, "kernel").values()) == {"slower"}
    assert set(verdicts(comparison, "launches").values()) == {"same"}
    span = next(v for v in comparison.verdicts if v.boundary == "span")
    assert span.change == pytest.approx(0.15, abs=0.02) and "Mann–Whitney" in span.note
    faster = compare.compare(store, b, a)
    assert set(verdicts(faster, "span").values()) == {"faster"}


@pytest.mark.parametrize("seed", range(3, 9))
def test_a_change_within_noise_is_same_or_ambiguous(store, seed):
    a = store_run(store, seed=1)
    b = store_run(store, seed=seed, span_factor=1.005, kernel_factor=1.01)
    comparison = compare.compare(store, a, b)
    assert set(verdicts(comparison, "span").values()) <= {"same", "ambiguous"}
    assert set(verdicts(comparison, "kernel").values()) == {"same"}


def test_noisy_rounds_that_overlap_are_never_faster_or_slower(store):
    a = store_run(store, seed=1, noise=0.3)
    b = store_run(store, seed=2, noise=0.3, span_factor=1.05)
    assert set(verdicts(compare.compare(store, a, b), "span").values()) <= {"same", "ambiguous"}


def test_kernel_time_has_a_gray_zone():
    assert compare.point_verdict(100.0, 101.0, compare.RESOLUTION["kernel"])[0] == "same"
    assert compare.point_verdict(100.0, 104.0, compare.RESOLUTION["kernel"])[0] == "ambiguous"
    assert compare.point_verdict(100.0, 107.0, compare.RESOLUTION["kernel"])[0] == "slower"
    assert compare.point_verdict(100.0, 90.0, compare.RESOLUTION["kernel"])[0] == "faster"


def test_mann_whitney():
    rng = numpy.random.default_rng(0)
    x = rng.normal(10, 1, 200)
    assert compare.mann_whitney_p(x, rng.normal(10, 1, 200)) > 0.01
    assert compare.mann_whitney_p(x, rng.normal(11, 1, 200)) < 1e-10
    assert compare.mann_whitney_p([1.0] * 5, [1.0] * 5) == 1.0


def test_differing_sm_clocks_are_stated_and_a_verdict_that_depends_on_them_is_ambiguous(store):
    a = store_run(store, seed=1, clock_mhz=1980)
    # 10 % slower, at a 10 % lower clock: slower as measured, the same at equal clocks.
    b = store_run(store, seed=2, clock_mhz=1800, span_factor=1.1, kernel_factor=1.1)
    comparison = compare.compare(store, a, b)
    assert comparison.clocks.differ and "more than 5% apart" in comparison.clocks.statement()
    kernel = [v for v in comparison.verdicts if v.boundary == "kernel"]
    assert {v.verdict for v in kernel} == {"ambiguous"}
    assert all("slower as measured, same at equal clocks" in v.note for v in kernel)
    assert {v.verdict for v in comparison.verdicts if v.boundary == "host"} == {"same"}  # host time is not scaled
    # A slowdown far larger than the clock difference stays slower.
    c = store_run(store, seed=3, clock_mhz=1800, span_factor=1.5, kernel_factor=1.5)
    assert set(verdicts(compare.compare(store, a, c), "kernel").values()) == {"slower"}


def test_clocks_sampled_during_measurement_take_precedence_over_the_runs(store):
    # The runs' start/end clocks differ by 10 %, but both results were measured at 1,980 MHz: no scaling.
    a = store_run(store, seed=1, clock_mhz=1980, sampled_mhz=(1980, 1980))
    b = store_run(store, seed=2, clock_mhz=1800, kernel_factor=1.1, sampled_mhz=(1965, 1980))
    kernel = [v for v in compare.compare(store, a, b).verdicts if v.boundary == "kernel"]
    assert [v.verdict for v in kernel] == ["slower"] * 3 and not any("equal clocks" in v.note for v in kernel)
    # Same start/end clocks, but B's results were measured under a cap (mid 1,800 MHz): ambiguous.
    c = store_run(store, seed=3, clock_mhz=1980, sampled_mhz=(1980, 1980))
    d = store_run(store, seed=4, clock_mhz=1980, kernel_factor=1.1, sampled_mhz=(1620, 1980))
    kernel = [v for v in compare.compare(store, c, d).verdicts if v.boundary == "kernel"]
    assert all(v.verdict == "ambiguous" and "slower as measured, same at equal clocks" in v.note for v in kernel)


def test_a_different_autotuned_configuration_is_named_beside_the_verdict(store):
    a = store_run(store, seed=1, tuning="_kernel: BLOCK_M: 64, num_warps: 4")
    b = store_run(store, seed=2, kernel_factor=1.5, tuning="_kernel: BLOCK_M: 128, num_warps: 8")
    c = store_run(store, seed=3, kernel_factor=1.5, tuning="_kernel: BLOCK_M: 64, num_warps: 4")
    retuned = [v for v in compare.compare(store, a, b).verdicts if v.boundary in ("kernel", "span")]
    assert retuned and all("the autotuner chose another configuration" in v.note for v in retuned)
    assert not any("autotuner" in v.note for v in compare.compare(store, a, c).verdicts)


def test_close_clocks_are_not_scaled(store):
    a, b = store_run(store, seed=1, clock_mhz=1980), store_run(store, seed=2, clock_mhz=1950)
    comparison = compare.compare(store, a, b)
    assert not comparison.clocks.differ and "no scaling" in comparison.clocks.statement()


def test_environment_differences_are_listed(store):
    a = store_run(store, seed=1, env={"torch": "2.11.0", "git_commit": "aaa"})
    b = store_run(store, seed=2, env={"torch": "2.12.0", "git_commit": "bbb"})
    keys = {key: (va, vb) for key, va, vb in compare.compare(store, a, b).env_differences}
    assert keys["torch"] == ("2.11.0", "2.12.0") and keys["git_commit"] == ("aaa", "bbb")
    assert "gpu" not in keys


def test_rows_in_one_run_only_and_failures_are_named(store):
    a = store_run(store, seed=1)
    b = store_run(store, seed=2, rows=ROWS[:2])
    found = {(v.impl, v.verdict) for v in compare.compare(store, a, b).verdicts}
    assert ("eager/default/ieee", "only in A") in found
    assert ("eager/default/ieee", "only in B") in {(v.impl, v.verdict) for v in compare.compare(store, b, a).verdicts}


def test_runs_on_different_clocks_are_refused(store):
    a, b = store_run(store, seed=1), store_run(store, seed=2, clock="cpu")
    with pytest.raises(MageError, match="cannot be compared"):
        compare.compare(store, a, b)


def test_the_command_lists_environment_differences_first(tmp_path):
    store = Store(tmp_path / "mage.db")
    a = store_run(store, seed=1, env={"git_commit": "aaa"})
    b = store_run(store, seed=2, env={"git_commit": "bbb"}, span_factor=1.2, kernel_factor=1.2)
    store.close()
    command = [sys.executable, "-c", "from mage.cli import main; main()", "compare", str(a), str(b)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=os.environ | {"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.index("environment differences") < out.index("git_commit") < out.index("verdicts, B against A")
    assert "slower" in out and "SM clock A 1980 MHz" in out
    as_json = subprocess.run(command + ["--json"], cwd=tmp_path, capture_output=True, text=True)
    document = json.loads(as_json.stdout)
    assert {v["verdict"] for v in document["verdicts"] if v["boundary"] == "span"} == {"slower"}


def test_runs_on_different_gpus_leave_small_span_and_host_changes_ambiguous(store):
    a = store_run(store, seed=1, env={"uuid": "GPU-aaaa", "hostname": "vm"})
    b = store_run(store, seed=2, span_factor=1.05, env={"uuid": "GPU-bbbb", "hostname": "vm"})
    comparison = compare.compare(store, a, b)
    assert comparison.machines == "GPU" and "different machines" in comparison.machines_statement()
    span = [v for v in comparison.verdicts if v.boundary == "span"]
    assert {v.verdict for v in span} == {"ambiguous"}
    assert all(v.note.startswith("different GPU: within between-machine spread") for v in span)
    assert set(verdicts(comparison, "kernel").values()) == {"same"}  # kernel-time rules stay
    # A change beyond the between-machine threshold is still called, and kernel time still is at any size.
    c = store_run(store, seed=3, span_factor=1.2, kernel_factor=1.2, env={"uuid": "GPU-bbbb", "hostname": "vm"})
    far = compare.compare(store, a, c)
    assert set(verdicts(far, "span").values()) == {"slower"} and set(verdicts(far, "kernel").values()) == {"slower"}
    rendered = " ".join(str(part) for part in compare.render(comparison))
    assert "the runs are from different machines" in rendered
    assert compare.as_json(comparison)["different_machines"] == "GPU"


def test_the_same_gpu_keeps_the_existing_span_verdict(store):
    a = store_run(store, seed=1, env={"uuid": "GPU-aaaa", "hostname": "vm"})
    b = store_run(store, seed=2, span_factor=1.05, env={"uuid": "GPU-aaaa", "hostname": "vm"})
    comparison = compare.compare(store, a, b)
    assert comparison.machines is None and comparison.machines_statement() is None
    assert set(verdicts(comparison, "span").values()) == {"slower"}


def test_different_hosts_are_different_machines(store):
    a = store_run(store, seed=1, env={"hostname": "one"})
    b = store_run(store, seed=2, env={"hostname": "two"})
    assert compare.different_machines(store.run(a), store.run(b)) == "host"
    # A value recorded in one run only is not a difference.
    c = store_run(store, seed=3, env={"uuid": "GPU-aaaa"})
    assert compare.different_machines(store.run(c), store.run(store_run(store, seed=4))) is None


@pytest.mark.parametrize("width", [80, 100])
def test_at_a_narrow_width_names_break_at_their_separators_and_numbers_stay_whole(store, width):
    """At 80 columns every one of eleven columns once shrank to three characters ('sof'/'tma', 'p=7e-'/'09'):
    now the keys and the verdict are kept, names break after a separator, and what does not fit is named."""
    from rich.console import Console

    rows = [("softmax", "1024x1024-study", "triton.registers/rows/ieee", 40.0, 5.2)]
    a, b = store_run(store, seed=1, rows=rows), store_run(store, seed=2, rows=rows, span_factor=1.5)
    console = Console(width=width, record=True, force_terminal=False)
    for part in compare.render(compare.compare(store, a, b), show_all=True, width=width):
        console.print(part)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width, text
    pieces: list[list[list[str]]] = []  # per row, per column, the lines of its cell
    for line in text.splitlines():
        if line.startswith("│"):
            cells = [cell.strip() for cell in line.strip("│").split("│")]
            if cells[0]:
                pieces.append([[cell] for cell in cells])
            else:  # a name's next piece, under the row it belongs to
                for column, cell in zip(pieces[-1], cells):
                    column.append(cell)
    rows_seen = [["".join(column) for column in row] for row in pieces]
    assert rows_seen and all(row[:3] == ["softmax", "1024x1024-study", "triton.registers/rows/ieee"]
                             for row in rows_seen), text  # nothing lost
    breaks = [(before, after) for row in pieces for column in row[:3]
              for before, after in zip(column, column[1:]) if before and after]
    separators = ("/", ".", "-", "x")
    assert all(before.endswith(separators) or after.startswith(separators) for before, after in breaks), text
    header = next([cell.strip() for cell in line.strip("┃").split("┃")] for line in text.splitlines()
                  if line.startswith("┃"))
    span = dict(zip(header, next(row for row in rows_seen if row[header.index("boundary")] == "span")))
    assert span["verdict"] == "slower" and all(span[n].replace(".", "").isdigit() for n in "AB"), text
