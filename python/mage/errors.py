"""Errors Mage raises on purpose. Each names the problem in words a user can act on."""


class MageError(Exception):
    """Base of every error Mage raises deliberately."""


class InputError(MageError, ValueError):
    """An input tensor or graph is invalid (shape, dtype, device, layout, CSR structure)."""


class UnknownNameError(MageError, KeyError):
    """An op, case, implementation, suite or path name that does not exist."""

    def __str__(self) -> str:  # KeyError would print the message with quotes
        return str(self.args[0])


class ContractError(MageError):
    """An implementation's output broke its accuracy contract."""


class DeviceLost(MageError):
    """An implementation left the CUDA context unusable (an illegal address, a trap): every later
    CUDA call in the process fails, so the process can measure nothing more."""

    def __init__(self, culprit: str, reason: str):
        super().__init__(f"{culprit} left the CUDA context unusable ({reason})")
        self.culprit, self.reason = culprit, reason
