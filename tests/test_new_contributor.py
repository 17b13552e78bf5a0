"""The new-contributor path: a second Triton kernel of an existing op and a new op, dropped in as one
plugin module (a copy of tests/plugins/newcomer.py in a temporary directory, MAGE_PLUGINS=newcomer),
are tested by the generic tests and selected by ``--impl 'triton.*'`` with no edit anywhere else."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mage import registry

TESTS = Path(__file__).resolve().parent
GENERIC = {
    "test_implementations.py": [
        "test_every_implementation_passes_its_contract_on_the_cpu[{impl}]",
        "test_every_kernel_refuses_bad_inputs_by_name[{impl}-0]",
        "test_the_checker_rejects_each_implementation_zeroing_half_its_output[{impl}]",
        "test_the_checker_rejects_each_implementation_skipping_its_last_row[{impl}]",
    ],
    "test_triton.py": ["test_every_triton_implementation_runs_on_the_cpu_except_tf32[{impl}]"],
}
NEW = ("layernorm:triton.persistent/affine/ieee", "logsumexp:triton/rows/ieee")


def _environment(tmp_path) -> dict:
    shutil.copy(TESTS / "plugins" / "newcomer.py", tmp_path / "newcomer.py")
    return os.environ | {"MAGE_PLUGINS": "newcomer", "TRITON_INTERPRET": "1", "COLUMNS": "250",
                         "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}


@pytest.mark.slow  # a nested pytest over four test files: minutes on two cores
def test_the_generic_tests_cover_a_new_kernel_and_a_new_op(tmp_path):
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-k", "logsumexp or persistent or hopper",
         *(str(TESTS / name) for name in (*GENERIC, "test_ops.py"))],
        cwd=tmp_path, env=_environment(tmp_path), capture_output=True, text=True, timeout=1200)
    assert tested.returncode == 0, tested.stdout[-5000:]
    passed = set(re.findall(r"::(\S+) PASSED", tested.stdout))
    expected = {test.format(impl=impl) for tests in GENERIC.values() for test in tests for impl in NEW}
    expected |= {"test_every_triton_kernel_compiles_for_hopper_without_a_gpu",  # the plugin's two kernels too
                 "test_cases_are_named_once_and_seeded[logsumexp]", "test_bad_inputs_are_refused_by_name[logsumexp-1]",
                 "test_eager_matches_reference[logsumexp-0-rows-normal]", "test_eager_passes_its_own_contract[logsumexp-1-rows]"}
    assert expected <= passed, sorted(expected - passed)


@pytest.mark.slow  # every triton strategy of layernorm at the seed shape under the interpreter: minutes
def test_impl_triton_star_selects_every_strategy_of_the_family(tmp_path):
    checked = subprocess.run([sys.executable, "-m", "mage", "check", "--op", "layernorm", "--op", "logsumexp",
                              "--impl", "triton.*"], cwd=tmp_path, env=_environment(tmp_path),
                             capture_output=True, text=True, timeout=900)
    # triton.naive fails its large-mean contract as it is registered to (mage.ops.layernorm.triton): shown, not
    # the command's failure.
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rows = {tuple(cell.strip() for cell in line.split("│")[1:5]) for line in checked.stdout.splitlines()
            if line.count("│") > 4}
    contracts = {(op, impl): contract for op, _, impl, contract in rows if op}  # not a long reason's wrapped lines
    registered = [impl for impl in registry.implementations("layernorm")
                  if impl.family == "triton" and impl.unavailable_reason("cpu") is None]
    assert contracts == {**{("layernorm", impl.name): "FAIL" if impl.fails else "pass" for impl in registered},
                         ("layernorm", "triton.persistent/affine/ieee"): "pass",  # the plugin's, beside them
                         ("logsumexp", "triton/rows/ieee"): "pass"}


def test_a_new_op_s_baseline_is_compiled_too(tmp_path):
    listed = subprocess.run([sys.executable, "-c", "from mage import registry; "
                             "print(*(i.name for i in registry.implementations('logsumexp')))"],
                            cwd=tmp_path, env=_environment(tmp_path), capture_output=True, text=True, timeout=600)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == ["eager/rows/ieee", "triton/rows/ieee", "compile/rows/ieee",
                                     "compile.max-autotune/rows/ieee"]
