"""The Metal backend: so far only its TVMScript namespace and builtin wrappers.

``tvm.backend.load("metal")`` (run by ``import tvm``) binds this package as ``tvm.tirx.metal``,
as Apache TVM 0.27 does, so ``from tvm.tirx.metal import op`` works. There is no Metal code
generator or runtime: no ``metal`` target can be built (``get_backend("metal")`` says so).
"""

__all__ = ["register_backend"]


def register_backend() -> None:
    """Hook for ``tvm.backend.load("metal")``: nothing to register (no code generator yet)."""
