"""The GPU fault-injection plugin compiles: its defects are the ones it plants, not a Triton error (sm_90, no GPU).

Run in a subprocess: Triton's compiler refuses code that the interpreter (TRITON_INTERPRET, set for the
other tests) accepts, such as a kernel reading a global that is not a constexpr.
"""

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

COMPILE = """
from mage import registry
registry.load()
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from plugins import gpu_faults
source = ASTSource(fn=gpu_faults._store_out_of_bounds, signature={"out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                   constexprs={"BLOCK": 1024})
print("ptx" in triton.compile(source, target=GPUTarget("cuda", 90, 32)).asm)
"""


def test_the_out_of_bounds_kernel_compiles_for_sm90():
    environment = {key: value for key, value in os.environ.items() if key != "TRITON_INTERPRET"}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), environment.get("PYTHONPATH")]))
    compiled = subprocess.run([sys.executable, "-c", COMPILE], capture_output=True, text=True, timeout=300,
                              env=environment)
    assert compiled.returncode == 0 and compiled.stdout.strip() == "True", compiled.stderr[-2000:]
