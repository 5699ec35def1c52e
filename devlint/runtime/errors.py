"""The errors the runtime checker raises: each a subclass of what real CUDA raises."""

from __future__ import annotations


class DeviceMismatchError(RuntimeError):
    """Operands on different devices: the message says which line put each one where."""

    def __init__(self, message: str, code: str = "DEV101") -> None:
        super().__init__(message)
        self.code = code


class HostConversionError(TypeError):
    """A GPU tensor handed to numpy (CUDA raises a TypeError there too)."""

    code = "DEV401"


CHECKER_ERRORS = (DeviceMismatchError, HostConversionError)
