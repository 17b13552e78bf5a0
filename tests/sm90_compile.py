"""Compile every registered Triton implementation's kernels for sm_90, without a GPU (run as a script,
without TRITON_INTERPRET: the interpreter accepts code that Triton's compiler refuses).

Each implementation is called on its spec's test cases with CPU tensors; the launches it makes are
compiled for an sm_90 target and never run (the driver below answers for a device that is not there;
autotuners take their first surviving config). Prints one line per compiled kernel:
``compiled IMPL KERNEL products: wgmma|mma.sync|none``. Imported, ``compile_signature`` compiles one kernel
from its argument types, for the kernels CPU tensors never reach; ``run_compiled`` runs a script that compiles
in a process of its own, which tests marked ``needs_ptxas`` do.
"""

import os
import subprocess
import sys

import pytest
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.compiler.compiler import CompiledKernel
from triton.runtime import driver
from triton.runtime.autotuner import Autotuner
from triton.runtime.jit import JITFunction

from mage import registry
from mage.spec import Case


PTXAS = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")
needs_ptxas = pytest.mark.skipif(not os.path.exists(PTXAS), reason="Triton's bundled ptxas is missing")
TESTS = os.path.dirname(os.path.abspath(__file__))


def run_compiled(*arguments: str) -> subprocess.CompletedProcess:
    """``python ARGUMENTS`` in a process of its own that compiles (no TRITON_INTERPRET), with mage and tests/
    (this module) importable: the interpreter accepts code that Triton's compiler refuses."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(registry.__file__)), TESTS,
                                                      env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, *arguments], env=env, capture_output=True, text=True, timeout=600)


class Hopper:
    """What launching a kernel asks of the driver, answered for an sm_90 device."""

    def get_current_target(self):
        return GPUTarget("cuda", 90, 32)

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0


def products(kernel: CompiledKernel) -> str:
    ttgir = kernel.asm["ttgir"]
    return "wgmma" if "warp_group_dot" in ttgir else "mma.sync" if " tt.dot " in ttgir else "none"


def compile_signature(kernel, signature: dict, constexprs: dict, config=None) -> CompiledKernel:
    """``kernel`` (a JITFunction, or the autotuner around one) compiled for sm_90 from its argument types, with
    ``config`` (else its first autotune config): for kernels that CPU tensors never reach (TMA paths)."""
    config = config or kernel.configs[0]
    fn = kernel
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    constexprs = {**constexprs, **config.kwargs}
    names = list(signature)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n, t in signature.items() if t[0] in "*i"}
    src = ASTSource(fn, {**signature, **{k: "constexpr" for k in constexprs}}, constexprs, attrs)
    options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)


def compile_for_hopper() -> list[CompiledKernel]:
    """From here on, launches compile for sm_90 and run nothing: the list they append their kernels to."""
    launched = []
    driver.set_active(Hopper())
    CompiledKernel._init_handles = lambda self: None  # nothing to load a binary into
    CompiledKernel.run = property(lambda self: lambda *args: launched.append(self))
    Autotuner._bench = lambda self, *args, config, **kwargs: [float(self.configs.index(config))]
    return launched


def main() -> None:
    launched = compile_for_hopper()
    for op in sorted(registry.ops()):
        spec = registry.get_op(op)
        for impl in registry.implementations(op):
            if impl.family != "triton":
                continue
            for n, params in enumerate(spec.test_params):
                if impl.case_skip_reason(params):  # a width its design cannot take (a row too wide for registers)
                    continue
                launched.clear()
                impl.fn(*spec.make_inputs(Case(op, f"test-{n}", "seed", params, seed=1), 1, "cpu"))
                for kernel in launched:
                    print("compiled", impl.name, kernel.name, "products:", products(kernel), flush=True)


if __name__ == "__main__":
    main()
