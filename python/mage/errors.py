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
