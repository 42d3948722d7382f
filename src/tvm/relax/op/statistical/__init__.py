"""Statistical (reduction) ops: ``relax.sum``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...expr import Call
from ..op_attrs import StatisticalAttrs
from ..registry import register_relax_op
from .infer import infer_statistical

__all__ = ["sum"]

_SUM = register_relax_op(
    "sum",
    1,
    "statistical",
    infer_statistical,
    attrs_type_key="relax.attrs.StatisticalAttrs",
    description="Sum over the given axes.",
)


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, int):
        return (axis,)
    return tuple(int(a) for a in axis)


def sum(x, axis=None, keepdims=False) -> Call:
    """``R.sum(x, axis=None, keepdims=False)``: sum over ``axis`` (all axes when None)."""
    return Call(_SUM, [x], StatisticalAttrs(_axes(axis), bool(keepdims)))


# --- the op library's reductions and scans -----------------------------------------------------

from ..op_attrs import ScanopAttrs
from .infer import infer_scan

#: (op name, description): reductions typed like ``sum``.
MORE_REDUCTIONS = (
    ("mean", "Mean over the given axes."),
    ("max", "Maximum over the given axes."),
    ("min", "Minimum over the given axes."),
    ("prod", "Product over the given axes."),
    ("std", "Standard deviation (population) over the given axes."),
    ("variance", "Variance (population) over the given axes."),
)

_STAT = {
    name: register_relax_op(
        name,
        1,
        "statistical",
        infer_statistical,
        attrs_type_key="relax.attrs.StatisticalAttrs",
        description=doc,
    )
    for name, doc in MORE_REDUCTIONS
}
for _name in ("cumsum", "cumprod"):
    _STAT[_name] = register_relax_op(
        _name,
        1,
        "statistical",
        infer_scan,
        attrs_type_key="relax.attrs.ScanopAttrs",
        description=f"Cumulative {_name[3:]} along an axis.",
    )


def _make_reduction(name, doc):
    def constructor(x, axis=None, keepdims=False):
        return Call(_STAT[name], [x], StatisticalAttrs(_axes(axis), bool(keepdims)))

    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = f"``R.{name}(x, axis=None, keepdims=False)``: {doc}"
    return constructor


for _name, _doc in MORE_REDUCTIONS:
    globals()[_name] = _make_reduction(_name, _doc)
    __all__.append(_name)

if TYPE_CHECKING:
    # The constructors the loop above makes, as a type checker sees them (it cannot follow
    # ``globals()``); tests/test_typing.py checks these against the table.
    from collections.abc import Sequence

    from ...expr import Expr

    _Axes = int | Sequence[int] | None
    __all__ += ["max", "mean", "min", "prod", "std", "variance"]

    def max(x: Expr, axis: _Axes = None, keepdims: bool = False) -> Call: ...
    def mean(x: Expr, axis: _Axes = None, keepdims: bool = False) -> Call: ...
    def min(x: Expr, axis: _Axes = None, keepdims: bool = False) -> Call: ...
    def prod(x: Expr, axis: _Axes = None, keepdims: bool = False) -> Call: ...
    def std(x: Expr, axis: _Axes = None, keepdims: bool = False) -> Call: ...
    def variance(x: Expr, axis: _Axes = None, keepdims: bool = False) -> Call: ...


def _scan(name, data, axis, dtype, exclusive):
    dtype = None if dtype is None else str(getattr(dtype, "dtype", dtype))
    return Call(
        _STAT[name],
        [data],
        ScanopAttrs(None if axis is None else int(axis), dtype, bool(exclusive)),
    )


def cumsum(data, axis=None, dtype=None, exclusive=False) -> Call:
    """``R.cumsum(data, axis=None, dtype=None, exclusive=False)`` (flattened when no axis)."""
    return _scan("cumsum", data, axis, dtype, exclusive)


def cumprod(data, axis=None, dtype=None, exclusive=False) -> Call:
    """``R.cumprod(data, axis=None, dtype=None, exclusive=False)`` (flattened when no axis)."""
    return _scan("cumprod", data, axis, dtype, exclusive)


__all__ += ["cumprod", "cumsum"]

from .infer import infer_median

_MEDIAN = register_relax_op(
    "median",
    1,
    "statistical",
    infer_median,
    attrs_type_key="relax.attrs.StatisticalAttrs",
    description="Lower median over one axis (values and indices) or over all elements.",
)


def median(x, axis=None, keepdims=False) -> Call:
    """``R.median(x, axis=None, keepdims=False)``: the lower median.

    Over all elements when ``axis`` is None (one tensor); over one axis otherwise, giving
    ``(values, indices)`` with int64 indices of where each median sits along the axis. Of an
    even count it is the lower of the two middle values (``sorted[(n - 1) // 2]``), as
    Apache TVM and PyTorch; ties keep input order.
    """
    axes = _axes(axis)
    if axes is not None and len(axes) != 1:
        raise ValueError(f"median: only one axis (or None) is supported, got axis={axis}")
    return Call(_MEDIAN, [x], StatisticalAttrs(axes, bool(keepdims)))


__all__ += ["median"]

from . import reference  # noqa: F401 - registers FReference after the ops exist
