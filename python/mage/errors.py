"""Errors Mage raises on purpose. Each names the problem in words a user can act on."""

import signal


class MageError(Exception):
    """Base of every error Mage raises deliberately."""


class InputError(MageError, ValueError):
    """An input tensor or graph is invalid (shape, dtype, device, layout, CSR structure)."""


class UnknownNameError(MageError, KeyError):
    """An op, case, implementation, suite or path name that does not exist."""

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0])


class PluginError(MageError):
    """A module named in MAGE_PLUGINS cannot be imported (mage.registry)."""


class ContractError(MageError):
    """An implementation's output broke its accuracy contract."""


class DeviceLost(MageError):
    """An implementation left the CUDA context unusable (an illegal address, a trap): every later
    CUDA call in the process fails, so the process can measure nothing more."""

    def __init__(self, culprit: str, reason: str):
        super().__init__(f"{culprit} left the CUDA context unusable ({reason})")
        self.culprit, self.reason = culprit, reason


class WorkersLost(MageError):
    """Workers' machines were lost (a Ray node died) while running these cases: the cases are left
    unstored and the run incomplete, for --resume, while every other case went on."""

    def __init__(self, cases: list[str]):
        super().__init__(f"{len(cases)} case{'s' * (len(cases) != 1)} lost with the machine running "
                         f"{'them' if len(cases) != 1 else 'it'}: {'; '.join(cases)}")
        self.cases = cases


class Interrupted(BaseException):
    """SIGINT (Ctrl-C) or SIGTERM (a timeout), raised wherever the process is. A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` stores it as an implementation's failure; not a
    KeyboardInterrupt, so that typer does not turn it into a bare exit code before ``cli.main`` sees it."""

    def __init__(self, signum: int):
        self.signal = signal.Signals(signum)
        super().__init__(self.signal.name)

    @property
    def exit_code(self) -> int:
        return 128 + self.signal.value  # the shell's convention: 130 for SIGINT, 143 for SIGTERM


# What code that is not Mage's (an implementation's call, a plugin's import) may raise that is its own failure,
# not the run's end: any error, out of device or host memory among them, and an exit or a KeyboardInterrupt it
# raises itself (Ctrl-C and SIGTERM arrive as Interrupted, which this leaves out).
FOREIGN_FAULTS = (Exception, SystemExit, KeyboardInterrupt)


class StoreError(MageError):
    """The store's file cannot be used as asked: missing, not a store, damaged, read-only, full, too new."""


class RunClaimedError(StoreError):
    """Another live process owns the run."""
