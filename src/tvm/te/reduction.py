"""Reductions: ``reduce_axis``, ``comm_reducer`` and ``sum``/``max``/``min``.

``te.sum(A[i, k], axis=k)`` builds a :class:`Reduce` expression: a commutative reducer (its
combiner ``lhs, rhs -> result`` and identity element), the source value, the reduction axes and
an optional condition. :func:`tvm.te.create_prim_func` lowers it to an SBlock with ``T.init()``.

The nodes (``CommReducer``, ``Reduce``) live in :mod:`tvm.tirx.reduction`.
"""

from __future__ import annotations

from ..ir.expr import PrimExpr, Range
from ..tirx.expr import IntImm, Var
from ..tirx.generic import const, convert
from ..tirx.generic import max as _max
from ..tirx.generic import min as _min
from ..tirx.op import max_value, min_value
from ..tirx.reduction import CommReducer, Reduce
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
            return Range.from_min_extent(lo, hi)
        return Range.from_min_extent(lo, hi - lo)
    if isinstance(dom, (int, PrimExpr)):
        hi = convert(dom)
        return Range.from_min_extent(IntImm(hi.dtype, 0), hi)
    raise TypeError(f"a reduction domain must be a Range or (min, max), got {dom!r}")


def comm_reducer(fcombine, fidentity, name="reduce"):
    """Make a reducer from ``fcombine(x, y)`` and ``fidentity(dtype)``.

    A reducer of several values (argmax's index and value) takes tuples:
    ``fcombine((x0, x1), (y0, y1))`` returns a tuple and ``fidentity(dtype0, dtype1)`` the
    tuple of identities; called with a tuple of expressions it returns one ``Reduce`` per
    value (give them to ``te.compute`` together: one output each).

    The returned function is called as ``reducer(expr, axis, where=None, init=None)``, like
    ``te.sum``. Called with two expressions instead (``te.max(a, b)``), it combines them
    elementwise: ``fcombine(a, b)``, as in TVM.

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
        if not isinstance(axis, (IterVar, list, tuple)):
            # ``te.max(a, b)``: the elementwise combination of two expressions.
            if where is not None or init is not None:
                raise TypeError(f"{name}(a, b) combines two expressions; where/init need an "
                                "axis of te.reduce_axis IterVars")
            return fcombine(convert(expr), convert(axis))
        if isinstance(axis, IterVar):
            axis = [axis]
        axis = list(axis)
        for a in axis:
            if not isinstance(a, IterVar):
                raise TypeError(f"{name}: axis must be IterVars from te.reduce_axis, got {a!r}")
        cond = convert(True) if where is None else convert(where)
        if isinstance(expr, (tuple, list)):
            return _multi_reduce(fcombine, fidentity, name, expr, axis, cond, init)
        expr = convert(expr)
        dtype = expr.dtype
        lhs, rhs = Var("x", dtype), Var("y", dtype)
        result = convert(fcombine(lhs, rhs), dtype)
        identity = convert(fidentity(dtype), dtype)
        combiner = CommReducer([lhs], [rhs], [result], [identity])
        inits = [] if init is None else [convert(init, dtype)]
        return Reduce(combiner, [expr], axis, cond, 0, inits)

    reducer.__name__ = name
    reducer.__doc__ = f"The {name} reduction: ``{name}(expr, axis, where=None, init=None)``."
    return reducer


def _multi_reduce(fcombine, fidentity, name, exprs, axis, cond, init):
    """The ``Reduce`` of each value of a tuple reducer (they share one combiner)."""
    exprs = [convert(e) for e in exprs]
    dtypes = [e.dtype for e in exprs]
    lhs = [Var(f"x{i}", dt) for i, dt in enumerate(dtypes)]
    rhs = [Var(f"y{i}", dt) for i, dt in enumerate(dtypes)]
    results = list(fcombine(tuple(lhs), tuple(rhs)))
    identities = list(fidentity(*dtypes))
    if len(results) != len(exprs) or len(identities) != len(exprs):
        raise ValueError(f"{name}: a reducer of {len(exprs)} values must combine into and "
                         f"start from {len(exprs)} values, got {len(results)} and "
                         f"{len(identities)}")
    results = [convert(r, dt) for r, dt in zip(results, dtypes)]
    identities = [convert(v, dt) for v, dt in zip(identities, dtypes)]
    combiner = CommReducer(lhs, rhs, results, identities)
    inits = [] if init is None else [convert(v, dt) for v, dt in zip(init, dtypes)]
    return tuple(Reduce(combiner, exprs, axis, cond, i, inits) for i in range(len(exprs)))


sum = comm_reducer(lambda x, y: x + y, lambda t: const(0, t), name="sum")
max = comm_reducer(
    lambda x, y: _max(x, y), lambda t: min_value(t), name="max"
)
min = comm_reducer(
    lambda x, y: _min(x, y), lambda t: max_value(t), name="min"
)

