"""Triton's autotune choices persist in its disk cache when Mage imports its Triton backend (compiled, not under the
interpreter), unless TRITON_CACHE_AUTOTUNING says otherwise; the environment a run records says which."""

import os
import subprocess
import sys

import pytest

PROBE = ("from triton import knobs; from mage.backends import triton as backend; "
         "print(bool(knobs.autotuning.cache), backend.AUTOTUNE_CACHED)")


def _probe(**env) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "TRITON_CACHE_AUTOTUNING")}
    done = subprocess.run([sys.executable, "-c", PROBE], env=environment | env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("env, expected", [({}, "True True"), ({"TRITON_CACHE_AUTOTUNING": "0"}, "False False"),
                                           ({"TRITON_INTERPRET": "1"}, "True False")],
                         ids=["default", "turned-off", "interpreted"])
def test_autotune_choices_are_cached_on_disk_unless_turned_off(env, expected):
    assert _probe(**env) == expected
