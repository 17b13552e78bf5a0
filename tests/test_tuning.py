"""Knobs chosen per shape (mage.backends.tuning.Tuner): the fastest candidate for each key, timed once, and
every call's choice recorded with the result; the first candidate, marked untimed, where no GPU can time."""

import pytest
import torch
import triton.testing

from mage.backends import tuning
from mage.backends.tuning import Tuner, recorded_tunings

CUDA = torch.device("cuda", 0)  # only named: the timing below is replaced, nothing runs on a GPU


@pytest.fixture
def timed(monkeypatch):
    """do_bench replaced by each candidate's stated time; the calls it was asked to time, in order."""
    calls = []

    def do_bench(fn, warmup, rep):
        calls.append(fn())
        return {"small": 3.0, "medium": 1.0, "large": 2.0}[calls[-1]]

    monkeypatch.setattr(triton.testing, "do_bench", do_bench)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    return calls


def _tuner():
    return Tuner("op native", {"small": "small", "medium": "medium", "large": "large"})


def test_the_fastest_candidate_is_chosen_once_for_each_key_and_every_call_records_it(timed):
    tuner = _tuner()
    with recorded_tunings() as seen:
        assert tuner.choose(("a",), lambda config: config, CUDA) == "medium"
        assert tuner.choose(("a",), lambda config: config, CUDA) == "medium"
    assert timed == ["small", "medium", "large"]  # timed on the first call only
    assert seen == ["op native: medium", "op native: medium"]
    assert tuner.choose(("b",), lambda config: config, CUDA, allowed=lambda config: config != "medium") == "large"
    assert timed[3:] == ["small", "large"]  # a new key is timed again, among the allowed candidates only


def test_without_a_gpu_the_first_allowed_candidate_runs_marked_untimed(timed):
    tuner = _tuner()
    with recorded_tunings() as seen:
        chosen = tuner.choose(("a",), lambda config: config, torch.device("cpu"),
                              allowed=lambda config: config != "small")
    assert chosen == "medium" and timed == [] and tuner.chosen == {}
    assert seen == ["op native: medium (untimed: no GPU to time the candidates)"]


def test_a_miss_while_a_cuda_graph_is_captured_times_nothing_and_caches_nothing(timed, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: True)
    tuner = _tuner()
    assert tuner.choose(("a",), lambda config: config, CUDA) == "small"
    assert timed == [] and tuner.chosen == {}


def test_recording_stops_with_its_block_even_when_the_block_fails():
    with pytest.raises(RuntimeError), recorded_tunings() as seen:
        raise RuntimeError("a failing call")
    tuning.record("after the block")
    assert seen == [] and tuning._RECORDERS == []
