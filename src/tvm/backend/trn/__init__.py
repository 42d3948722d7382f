"""The Trainium backend of TIRx: so far only its script-side passes.

``tvm.backend.load("trn")`` (run by ``import tvm``) binds this package as ``tvm.tirx.trn``,
as Apache TVM 0.27 does, so ``from tvm.tirx.trn.transform import TrnNaiveAllocator``
works. There is no Trainium code generator or runtime: no ``trn`` target can be built.
"""

__all__ = ["register_backend"]


def register_backend() -> None:
    """Hook for ``tvm.backend.load("trn")``: nothing to register (no code generator yet)."""
