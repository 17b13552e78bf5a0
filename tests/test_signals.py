"""A signal ends a run where it lands, except inside a CUDA graph capture, where it waits for the capture's end."""

import os
import signal

import pytest

from mage import signals
from mage.errors import Interrupted


@pytest.fixture
def installed():
    previous = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    signals.install()
    yield
    signal.signal(signal.SIGINT, previous[0])
    signal.signal(signal.SIGTERM, previous[1])


def test_a_signal_outside_a_capture_interrupts_at_once(installed):
    with pytest.raises(Interrupted) as interrupted:
        os.kill(os.getpid(), signal.SIGTERM)
    assert interrupted.value.exit_code == 143


def test_a_signal_inside_a_capture_waits_for_its_end(installed):
    finished = []
    with pytest.raises(Interrupted) as interrupted:
        with signals.uninterrupted():
            with signals.uninterrupted():  # nested: held until the outermost block ends
                os.kill(os.getpid(), signal.SIGINT)
                finished.append("inner")
            finished.append("outer")
    assert finished == ["inner", "outer"] and interrupted.value.exit_code == 130
    with signals.uninterrupted():  # nothing is left held for the next block
        pass


def test_a_second_signal_inside_a_capture_interrupts_at_once(installed):
    finished = []
    with pytest.raises(Interrupted):
        with signals.uninterrupted():
            os.kill(os.getpid(), signal.SIGTERM)
            finished.append("held")
            os.kill(os.getpid(), signal.SIGTERM)
            finished.append("not reached")
    assert finished == ["held"]
