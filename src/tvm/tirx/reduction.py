"""Reduction expressions: ``CommReducer`` (a commutative combiner with its identity) and
``Reduce`` (a reduction of a source value over reduction axes).

``tvm.te`` builds them (``te.sum``, ``te.max``, ``te.comm_reducer``) and
``te.create_prim_func`` lowers them to SBlocks with ``T.init()``; they are expression nodes of
``tvm.tirx`` as in Apache TVM.
"""

from __future__ import annotations

from ..ffi.node import DEF, IGNORE, Node, field
from ..ir.base import Scriptable
from ..ir.expr import PrimExpr
from .expr import PrimExprWithOp
from .expr_functor import substitute
from .generic import convert

__all__ = ["CommReducer", "Reduce"]


class CommReducer(Scriptable, Node, type_key="tirx.CommReducer"):
    """A commutative reducer: ``result(lhs, rhs)`` with ``identity_element``."""

    lhs: tuple = field(role=DEF)
    rhs: tuple = field(role=DEF)
    result: tuple
    identity_element: tuple
    span: object = field(None, role=IGNORE, kw_only=True)

    def __init__(self, lhs, rhs, result, identity_element, span=None):
        self.__init_fields__(tuple(lhs), tuple(rhs), tuple(result), tuple(identity_element),
                             span=span)

    def __call__(self, a, b):
        """Combine two values (single-value reducers only): substitutes ``lhs``/``rhs``."""
        return substitute(self.result[0], {self.lhs[0]: a, self.rhs[0]: b})


class Reduce(PrimExprWithOp, type_key="tirx.Reduce"):
    """A reduction of ``source`` over ``axis`` with ``combiner`` where ``condition`` holds."""

    combiner: CommReducer
    source: tuple
    axis: tuple = field(role=DEF)
    condition: PrimExpr
    value_index: int
    init: tuple = ()

    def __init__(self, combiner, src, rdom, condition, value_index, init=None, span=None):
        src = tuple(src)
        if not 0 <= value_index < len(src):
            raise ValueError(f"Reduce value_index {value_index} out of range")
        self.__init_fields__(combiner, src, tuple(rdom), convert(condition), value_index,
                             tuple(init or ()), span=span, dtype=src[value_index].dtype)
