"""Workers on a Ray cluster (mage run --ray ADDRESS): the cases of an isolated run as Ray tasks.

Each case is one task that needs one GPU (one CPU for a CPU run) and runs ``python -m mage.worker JOB``
on whichever node Ray places it, as a child process, so a kernel that crashes kills that child, not
Ray's worker. The task streams the child's stdout lines back (a Ray streaming generator), then its
exit code and last stderr line; the parent stores the rows as they arrive, exactly as from a local
worker (mage.isolation), so the store has one writer and no node needs it. A node or Ray worker that
dies is reported as lost, not as the case's failure: the case is left for --resume.

Every node needs Mage and its dependencies importable by the Python that Ray runs there; the parent's
MAGE_PLUGINS, TRITON_INTERPRET and PYTHONPATH travel with the tasks.
"""

from __future__ import annotations

import json
import os

from mage.errors import MageError

CARRIED = ("MAGE_PLUGINS", "TRITON_INTERPRET", "PYTHONPATH")
REACH_TIMEOUT_S = 10.0  # ray.init retries an unreachable address for minutes, warning each time


def check_reachable(address: str) -> None:
    """Refuse, in one line, a cluster address (host:port, ray://host:port) nothing answers at, before ray.init
    waits on it; local and auto are Ray's to resolve."""
    import socket

    if address in ("local", "auto"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise MageError(f"--ray takes local or a cluster's host:port, not {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT_S).close()
    except OSError as error:
        raise MageError(f"cannot reach the Ray cluster at {address}: {error.strerror or error}") from None


def _remote_worker(job: str):
    """Run on a node: the worker as a child process, its stdout line by line, then (exit code, last stderr line)."""
    import ctypes
    import signal
    import subprocess
    import sys
    import tempfile

    def die_with_parent() -> None:  # a cancelled task's Ray worker is killed: its child must not outlive it
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    with tempfile.TemporaryFile(mode="w+") as stderr:
        child = subprocess.Popen([sys.executable, "-m", "mage.worker", job], stdout=subprocess.PIPE, stderr=stderr,
                                 text=True, preexec_fn=die_with_parent)
        for line in child.stdout:
            yield line
        child.wait()
        stderr.seek(0)
        yield {"returncode": child.returncode,
               "last_error": ([line for line in stderr.read().splitlines() if line.strip()] or [""])[-1]}


class RayCluster:
    """A connection to a Ray cluster (``local``: start one on this machine) and its worker slots."""

    def __init__(self, address: str, device: str):
        try:
            import ray
        except ImportError:
            raise MageError("--ray needs Ray: pip install 'mage[ray]'") from None
        self.ray = ray
        check_reachable(address)
        carried = {name: os.environ[name] for name in CARRIED if name in os.environ}
        local = {"include_dashboard": False} if address == "local" else {"address": address}
        try:
            ray.init(runtime_env={"env_vars": carried}, logging_level="ERROR", log_to_driver=False, **local)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise MageError(f"cannot reach the Ray cluster at {address}: {error}") from None
        self.resource = "GPU" if device == "cuda" else "CPU"
        slots = int(ray.cluster_resources().get(self.resource, 0))
        if slots < 1:
            ray.shutdown()
            raise MageError(f"the Ray cluster at {address} has no {self.resource} to run {device} cases on")
        self.slots = slots
        need = {"num_gpus": 1} if self.resource == "GPU" else {"num_cpus": 1}
        self._task = ray.remote(max_retries=0, num_returns="streaming", **need)(_remote_worker)

    def launch(self, job: dict, gpu: str | None) -> "RayWorker":
        return RayWorker(self, self._task.remote(json.dumps(job)))

    def close(self) -> None:
        self.ray.shutdown()


class RayWorker:
    """One case's task, with the interface of mage.isolation.LocalWorker."""

    def __init__(self, cluster: RayCluster, stream):
        self.ray, self.stream = cluster.ray, stream
        self.returncode: int | None = None
        self.lost = ""
        self._last_error = ""

    @property
    def lines(self):
        """The worker's stdout; the end of the stream sets its return code (or why its node was lost)."""
        try:
            for ref in self.stream:
                item = self.ray.get(ref)
                if isinstance(item, dict):
                    self._last_error = item["last_error"]
                    self.returncode = item["returncode"]
                else:
                    yield item
        except self.ray.exceptions.TaskCancelledError:
            self.returncode = -9  # killed by the parent: a timeout or the run stopping
        except (self.ray.exceptions.NodeDiedError, self.ray.exceptions.WorkerCrashedError,
                self.ray.exceptions.ActorDiedError, self.ray.exceptions.RaySystemError,
                self.ray.exceptions.ObjectLostError) as error:
            self.lost, self.returncode = f"{type(error).__name__}: {str(error).splitlines()[0]}", -9
        except self.ray.exceptions.RayTaskError as error:  # the task's own code failed: the worker's fault
            self._last_error, self.returncode = str(error).splitlines()[-1], 1

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        self.ray.cancel(self.stream, force=True)
        if self.returncode is None:
            self.returncode = -9

    def last_error(self) -> str:
        return self._last_error

    def close(self) -> None:
        pass
