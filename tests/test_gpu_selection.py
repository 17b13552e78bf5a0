"""The GPU tests run compiled kernels: the suite's default Triton interpreter (for the CPU) is refused for them
on a machine with a GPU (tests/conftest.py), where it would test the interpreter instead."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_gpu_tests_refuse_to_run_under_the_triton_interpreter_on_a_machine_with_a_gpu():
    pretend_gpu = ("import sys, torch, pytest; torch.cuda.is_available = lambda: True; "
                   "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-m', 'gpu', 'tests/test_peers_gpu.py']))")
    done = subprocess.run([sys.executable, "-c", pretend_gpu], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=os.environ | {"TRITON_INTERPRET": "1"})
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "set TRITON_INTERPRET=0 to run them compiled" in done.stdout + done.stderr
