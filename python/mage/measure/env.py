"""The environment recorded with every run: device, clocks, versions (the peer libraries' too), commit (GUIDE §1)."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import torch

import mage
from mage.measure.clocks import nvml_handle, reason_names

REPO = Path(__file__).resolve().parents[3]


def _git(*args: str) -> str | None:
    try:
        return subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def _host_cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _native_build() -> str | None:
    try:
        from mage import _native
    except ImportError:
        return None
    return _native.build_id()


def _package_version(name: str) -> str | None:
    try:
        module = __import__(name)
    except ImportError:
        return None
    return getattr(module, "__version__", None)


@contextlib.contextmanager
def _nvml() -> Iterator[tuple | None]:
    """(pynvml, the current device's handle) while NVML is initialized; None where NVML is absent."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # no driver or no NVML library: the run records that it had none
        yield None
        return
    try:
        try:
            handle = (nvml_handle(pynvml, torch.cuda.current_device()) if torch.cuda.is_available()
                      else pynvml.nvmlDeviceGetHandleByIndex(0))
        except Exception:  # NVML does not know the device torch runs on: record none rather than another's
            handle = None
        yield (pynvml, handle) if handle is not None else None
    finally:
        pynvml.nvmlShutdown()


def gpu_state() -> dict:
    """Clocks, throttle reasons, temperature and power limit from NVML; {} where NVML is absent."""
    with _nvml() as found:
        if found is None:
            return {}
        pynvml, handle = found
        return {
            "sm_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM),
            "mem_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM),
            "max_sm_clock_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
            "temperature_c": pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU),
            "power_limit_w": pynvml.nvmlDeviceGetPowerManagementLimit(handle) / 1000,
            "throttle_reasons": _throttle_reasons(pynvml, handle),
        }


def _throttle_reasons(pynvml, handle) -> list[str]:
    return reason_names(pynvml, pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle))


def device_properties() -> dict:
    """What the device's peak rates are derived from (mage.measure.ceilings): SM count and compute
    capability from torch; the maximum SM and memory clocks and the memory bus width from NVML, absent
    where NVML is."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    properties = {"sm_count": props.multi_processor_count, "compute_capability": f"{props.major}.{props.minor}"}
    with _nvml() as found:
        if found is not None:
            pynvml, handle = found
            try:
                properties |= {
                    "max_sm_clock_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM),
                    "max_mem_clock_mhz": pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM),
                    "memory_bus_width_bits": pynvml.nvmlDeviceGetMemoryBusWidth(handle),
                }
            except pynvml.NVMLError:  # a device that does not report them: its peaks say what is missing
                pass
    return properties


def _gpu_identity() -> dict:
    try:
        with _nvml() as found:
            if found is None:
                return {}
            pynvml, handle = found
            return {"uuid": pynvml.nvmlDeviceGetUUID(handle), "gpu_index": pynvml.nvmlDeviceGetIndex(handle),
                    "driver": pynvml.nvmlSystemGetDriverVersion()}
    except Exception:
        return {}


def gpu_identity_of(index: int) -> dict:
    """Name, UUID and host index (NVML's) of this process's CUDA device ``index``; the name alone without NVML."""
    identity = {"name": torch.cuda.get_device_name(index)}
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return identity
    try:
        handle = nvml_handle(pynvml, index)
        return identity | {"uuid": pynvml.nvmlDeviceGetUUID(handle), "gpu_index": pynvml.nvmlDeviceGetIndex(handle)}
    except Exception:
        return identity
    finally:
        pynvml.nvmlShutdown()


def gpu_of(device: str) -> tuple[int | None, str | None]:
    """Which GPU of the host measures: its index as NVML and nvidia-smi number the host's GPUs (not
    CUDA's, which CUDA_VISIBLE_DEVICES renumbers) and its UUID; (None, None) on the CPU or without NVML."""
    if device != "cuda":
        return None, None
    identity = _gpu_identity()
    return identity.get("gpu_index"), identity.get("uuid")


def capture(device: str) -> dict:
    """Everything that identifies where and with what a run was made."""
    env = {
        "device": device,
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "triton": _package_version("triton"),
        "triton_autotune_cache": _triton_autotune_cache(),
        "mage": mage.__version__,
        "native_build": _native_build(),
        # A copy of the tree without .git (the GPU machine's) is told its commit by the caller.
        "git_commit": os.environ.get("MAGE_GIT_COMMIT") or _git("rev-parse", "HEAD"),
        # Told the commit, the copy's own git status (stale metadata, say) says nothing: only the caller's word does.
        "git_dirty": os.environ.get("MAGE_GIT_DIRTY", "") == "1"
        or (not os.environ.get("MAGE_GIT_COMMIT") and bool(_git("status", "--porcelain", "--untracked-files=no"))),
        "host_cpu": _host_cpu(),
        "hostname": platform.node(),
        "os": platform.platform(),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        # Each peer library's version by its package name (None: not installed, its rows skipped).
        **_peer_versions(),
    }
    if device == "cuda":
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        env |= device_properties() | {
            "gpu": props.name,
            "l2_bytes": props.L2_cache_size,
            "gpu_memory_bytes": props.total_memory,
            "cuda": torch.version.cuda,
            **_gpu_identity(),
        }
    return env


def _triton_autotune_cache() -> bool | None:
    """Whether Triton's autotune choices come from its disk cache when one is there (None: no Triton)."""
    try:
        from mage.backends import triton as triton_backend
    except ImportError:
        return None
    return triton_backend.AUTOTUNE_CACHED


def _peer_versions() -> dict[str, str | None]:
    # Imported here, where a run records its environment: the commands that only read a store import no backend.
    from mage.backends import peers

    return peers.versions()
