"""The CUDA backend package (``tvm.backend.cuda``, bound as ``tvm.tirx.cuda`` once loaded).

So far :func:`register_backend` only records that the backend was registered: CUDA code
generation, the ``T.cuda``/``T.ptx`` script namespaces and the device detector are not
written yet.
"""

__all__ = ["CODEGEN_AVAILABLE", "is_registered", "register_backend"]

#: Set to True once this package can compile and run CUDA code: ``tvm.testing.requires_cuda``
#: and ``tvm.testing.enabled_targets()`` only enable CUDA tests when it is True (and a GPU
#: is present).
CODEGEN_AVAILABLE = False

_REGISTERED = False


def register_backend() -> None:
    """Register the CUDA backend (records itself; nothing else to register yet)."""
    global _REGISTERED
    _REGISTERED = True


def is_registered() -> bool:
    """Whether :func:`register_backend` has run in this process."""
    return _REGISTERED
