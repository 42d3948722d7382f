"""``StorageRewrite``: drop allocations that are never used.

Limitation: unlike TVM's pass, this version does not yet merge allocations whose lifetimes
do not overlap into one storage; it only removes ``AllocBuffer`` statements whose buffer is
never loaded or stored (left behind e.g. by inlining or simplification).
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..function import PrimFunc
from ..stmt import AllocBuffer, BufferLoad, BufferStore, Evaluate
from ..stmt_functor import StmtMutator, post_order_visit
from .common import PrimFuncPass

__all__ = ["StorageRewrite", "remove_unused_allocations"]


class _Remover(StmtMutator):
    def __init__(self, used):
        super().__init__()
        self.used = used

    def visit_alloc_buffer_(self, op: AllocBuffer):
        if id(op.buffer.data) not in self.used:
            return Evaluate(0)
        return op


def remove_unused_allocations(func: PrimFunc) -> PrimFunc:
    """Remove the ``AllocBuffer`` statements whose buffer is never accessed."""
    used = set()

    def visit(node):
        if isinstance(node, (BufferLoad, BufferStore)):
            used.add(id(node.buffer.data))
        elif hasattr(node, "data") and hasattr(node, "buffer"):
            used.add(id(node.buffer.data))  # DeclBuffer aliasing, regions

    post_order_visit(func.body, visit)
    body = _Remover(used)(func.body)
    return func if body is func.body else func.with_body(body)


def StorageRewrite():
    """The pass object: ``tvm.tirx.transform.StorageRewrite()(mod)``."""
    return PrimFuncPass(lambda f, m, c: remove_unused_allocations(f),
                        PassInfo(0, "tirx.StorageRewrite"))
