"""Reductions: ``reduce_axis``, ``comm_reducer``, ``sum``/``max``/``min`` and the
``CommReducer``/``Reduce`` nodes.

``te.sum(A[i, k], axis=k)`` builds a :class:`Reduce` expression: a commutative reducer (its
combiner ``lhs, rhs -> result`` and identity element), the source value, the reduction axes and
an optional condition. :func:`tvm.te.create_prim_func` lowers it to an SBlock with ``T.init()``.

The node classes keep TVM's type keys (``tirx.CommReducer``, ``tirx.Reduce``) but live in
``tvm.te``, the only layer that builds them for now.
"""

from __future__ import annotations

from ..ffi.node import DEF, IGNORE, Node, field
from ..ir.base import Scriptable
from ..ir.expr import PrimExpr, Range
from ..tirx.expr import IntImm, PrimExprWithOp, Var
from ..tirx.generic import const, convert
from ..tirx.generic import max as _max
from ..tirx.generic import min as _min
from ..tirx.op import max_value, min_value
from ..tirx.stmt import IterVar

__all__ = [
    "CommReducer",
    "Reduce",
    "comm_reducer",
    "max",
    "min",
    "reduce_axis",
    "sum",
    "thread_axis",
]


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
        # Lazy: substitution lives in the statement functors, which import this layer's peers.
        from ..tirx.stmt_functor import substitute

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


def reduce_axis(dom, name="rv", thread_tag="", span=None) -> IterVar:
    """A reduction axis over ``dom`` (a ``Range`` or ``(min, max)``).

    Examples
    --------
    >>> from tvm import te
    >>> k = te.reduce_axis((0, 8), name="k")
    >>> k.iter_type == k.CommReduce, k.var.name
    (True, 'k')
    """
    return IterVar(_dom(dom), name, IterVar.CommReduce, thread_tag, span=span)


def thread_axis(dom=None, tag="", name="", span=None) -> IterVar:
    """A thread axis (``threadIdx.x``, ``blockIdx.x``...), as used by ``T.thread_binding``."""
    if isinstance(dom, str):
        tag, dom = dom, None
    if not tag:
        raise ValueError("thread_axis needs a thread tag such as 'threadIdx.x'")
    return IterVar(None if dom is None else _dom(dom), name or tag, IterVar.ThreadIndex, tag,
                   span=span)


def _dom(dom):
    if isinstance(dom, Range):
        return dom
    if isinstance(dom, (tuple, list)) and len(dom) == 2:
        lo, hi = convert(dom[0]), convert(dom[1])
        if isinstance(lo, IntImm) and lo.value == 0:
            return Range(lo, hi)
        return Range(lo, hi - lo)
    if isinstance(dom, (int, PrimExpr)):
        hi = convert(dom)
        return Range(IntImm(hi.dtype, 0), hi)
    raise TypeError(f"a reduction domain must be a Range or (min, max), got {dom!r}")


def comm_reducer(fcombine, fidentity, name="reduce"):
    """Make a reducer from ``fcombine(x, y)`` and ``fidentity(dtype)``.

    The returned function is called as ``reducer(expr, axis, where=None, init=None)``, like
    ``te.sum``.

    Examples
    --------
    >>> from tvm import te, tirx
    >>> prod = te.comm_reducer(lambda x, y: x * y, lambda t: tirx.const(1, t), name="prod")
    >>> A = te.placeholder((4,), name="A")
    >>> k = te.reduce_axis((0, 4), name="k")
    >>> type(prod(A[k], axis=k)).__name__
    'Reduce'
    """

    def reducer(expr, axis, where=None, init=None, *args):
        if isinstance(axis, IterVar):
            axis = [axis]
        axis = list(axis)
        for a in axis:
            if not isinstance(a, IterVar):
                raise TypeError(f"{name}: axis must be IterVars from te.reduce_axis, got {a!r}")
        expr = convert(expr)
        dtype = expr.dtype
        lhs, rhs = Var("x", dtype), Var("y", dtype)
        result = convert(fcombine(lhs, rhs), dtype)
        identity = convert(fidentity(dtype), dtype)
        combiner = CommReducer([lhs], [rhs], [result], [identity])
        cond = convert(True) if where is None else convert(where)
        inits = [] if init is None else [convert(init, dtype)]
        return Reduce(combiner, [expr], axis, cond, 0, inits)

    reducer.__name__ = name
    reducer.__doc__ = f"The {name} reduction: ``{name}(expr, axis, where=None, init=None)``."
    return reducer


sum = comm_reducer(lambda x, y: x + y, lambda t: const(0, t), name="sum")
max = comm_reducer(
    lambda x, y: _max(x, y), lambda t: min_value(t), name="max"
)
min = comm_reducer(
    lambda x, y: _min(x, y), lambda t: max_value(t), name="min"
)

