"""Loop passes: ``UnrollLoop`` and ``VectorizeLoop``.

``UnrollLoop`` replaces ``T.unroll`` loops of constant extent (up to ``max_extent``, 64 by
default) by copies of the body with the loop variable substituted. Before::

    for k in T.unroll(2):
        C[k] = A[k]

After::

    C[0] = A[0]
    C[1] = A[1]

``VectorizeLoop`` lowers ``T.vectorized`` loops into serial loops annotated
``"pragma_vectorize"``; LLVM's loop vectorizer (at O3, with ``noalias`` buffer pointers)
vectorizes them in the code generator. Limitation: unlike TVM, the pass does not rewrite the
body into ``Ramp``/``Broadcast`` vector expressions itself (the code generator supports such
expressions when they are written explicitly).
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..expr import IntImm
from ..function import PrimFunc
from ..stmt import For, ForKind, SeqStmt
from ..stmt_functor import StmtMutator, substitute
from .common import PrimFuncPass

__all__ = ["UnrollLoop", "VectorizeLoop", "unroll_loops", "vectorize_loops"]


class _Unroller(StmtMutator):
    def __init__(self, max_extent):
        super().__init__()
        self.max_extent = max_extent

    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        if op.kind != ForKind.UNROLLED:
            return op
        if not (isinstance(op.extent, IntImm) and isinstance(op.min, IntImm)):
            return op.replace(kind=ForKind.SERIAL)  # symbolic extent: keep a loop
        if op.extent.value > self.max_extent:
            return op.replace(kind=ForKind.SERIAL)
        copies = [substitute(op.body, {op.loop_var: IntImm(op.loop_var.dtype, op.min.value + k)})
                  for k in range(op.extent.value)]
        return SeqStmt.flatten(copies)


def unroll_loops(func: PrimFunc, max_extent: int = 64) -> PrimFunc:
    """Unroll the ``T.unroll`` loops of one function."""
    body = _Unroller(max_extent)(func.body)
    return func if body is func.body else func.with_body(body)


def UnrollLoop(max_extent: int = 64):
    """The pass object: ``tvm.tirx.transform.UnrollLoop()(mod)``."""
    return PrimFuncPass(lambda f, m, c: unroll_loops(f, max_extent), PassInfo(0, "tirx.UnrollLoop"))


class _Vectorizer(StmtMutator):
    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        if op.kind != ForKind.VECTORIZED:
            return op
        annotations = dict(op.annotations or {})
        annotations["pragma_vectorize"] = IntImm("int32", 1)
        return op.replace(kind=ForKind.SERIAL, annotations=annotations)


def vectorize_loops(func: PrimFunc) -> PrimFunc:
    """Lower the ``T.vectorized`` loops of one function."""
    body = _Vectorizer()(func.body)
    return func if body is func.body else func.with_body(body)


def VectorizeLoop(enable_vectorize: bool = True):
    """The pass object: ``tvm.tirx.transform.VectorizeLoop()(mod)``.

    With ``enable_vectorize=False`` vectorized loops become plain serial loops.
    """

    def run(func, mod, ctx):
        if enable_vectorize:
            return vectorize_loops(func)
        return func.with_body(_Serializer()(func.body))

    return PrimFuncPass(run, PassInfo(0, "tirx.VectorizeLoop"))


class _Serializer(StmtMutator):
    def visit_for_(self, op: For):
        op = super().visit_for_(op)
        return op.replace(kind=ForKind.SERIAL) if op.kind == ForKind.VECTORIZED else op
