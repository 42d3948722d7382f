"""Lazy access to PyTorch for the frontend.

``import tvm`` and ``import tvm.relax.frontend.torch`` never import torch: the functions that
need it call :func:`require_torch` when they run. Without torch installed they raise an
``ImportError`` that names the install command.
"""

from __future__ import annotations

#: The PyTorch version this frontend is tested with (the CPU wheel is enough).
TESTED_TORCH_VERSION = "2.13.0"


def require_torch(what: str = "tvm.relax.frontend.torch"):
    """Import and return the ``torch`` module, or raise an ImportError naming the fix."""
    try:
        # Lazy: torch is an optional dependency and takes seconds to import.
        import torch
    except ImportError as err:
        raise ImportError(
            f"{what} needs PyTorch, which is not installed: run "
            f"`pip install torch=={TESTED_TORCH_VERSION}` (the CPU wheel is enough)"
        ) from err
    return torch


_DTYPES = {
    "float32": "float32",
    "float64": "float64",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "int64": "int64",
    "int32": "int32",
    "int16": "int16",
    "int8": "int8",
    "uint8": "uint8",
    "bool": "bool",
}


def dtype_name(torch_dtype) -> str:
    """The Relax dtype string of a ``torch.dtype`` (``torch.float32`` -> ``"float32"``)."""
    name = str(torch_dtype).replace("torch.", "")
    if name not in _DTYPES:
        raise TypeError(f"torch dtype {torch_dtype} has no Relax equivalent in this frontend")
    return _DTYPES[name]


def torch_dtype(name: str):
    """The ``torch.dtype`` of a Relax dtype string."""
    torch = require_torch()
    return getattr(torch, name)
