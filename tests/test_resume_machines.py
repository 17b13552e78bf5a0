"""mage run --resume continues a run only on the kind of machine that began it (mage.resume)."""

import pytest

from mage.errors import MageError
from mage.resume import check_comparable

CPU_RUN = {"device": "cpu", "gpu": None, "torch": "2.11.0", "triton": "3.6.0", "native_build": "b1",
           "git_commit": "abc", "host_cpu": "AMD EPYC 7R13 Processor"}


def test_a_cpu_run_is_not_resumed_on_another_cpu_model():
    run = {"id": 4, "env": CPU_RUN}
    with pytest.raises(MageError, match="run 4 was measured with host_cpu 'AMD EPYC 7R13 Processor', this is "
                                        "'Intel\\(R\\) Xeon\\(R\\) Platinum 8488C'"):
        check_comparable(run, CPU_RUN | {"host_cpu": "Intel(R) Xeon(R) Platinum 8488C"})
    check_comparable(run, CPU_RUN | {"hostname": "another-machine"})  # another machine of the same model


def test_a_gpu_run_may_resume_behind_another_host_cpu():
    gpu_run = CPU_RUN | {"device": "cuda", "gpu": "NVIDIA H200"}
    check_comparable({"id": 5, "env": gpu_run}, gpu_run | {"host_cpu": "Intel(R) Xeon(R) Platinum 8488C"})
    with pytest.raises(MageError, match="gpu 'NVIDIA H200', this is 'NVIDIA A100"):
        check_comparable({"id": 5, "env": gpu_run}, gpu_run | {"gpu": "NVIDIA A100-SXM4-80GB"})
