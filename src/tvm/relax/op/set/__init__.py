"""Set ops: ``relax.unique`` (NumPy's ``unique``, with data-dependent output shapes).

The flags are call arguments (``PrimValue`` booleans, and an optional ``PrimValue`` axis), as in
TVM: ``R.unique(x, sorted, return_index, return_inverse, return_counts[, axis])``.
"""

from __future__ import annotations

from ....ir.expr import PrimExpr
from ...expr import Call, PrimValue
from ..registry import register_relax_op
from .infer import infer_unique

__all__ = ["unique"]

_UNIQUE = register_relax_op(
    "unique",
    6,
    "set",
    infer_unique,
    description="The unique elements of a tensor (sorted, first indices, inverse, counts).",
)


def _flag(value, name):
    if isinstance(value, PrimValue):
        return value
    if isinstance(value, bool):
        return PrimValue(value)
    if isinstance(value, PrimExpr):
        return PrimValue(value)
    raise TypeError(f"unique: {name} must be a bool or a PrimValue, got {value!r}")


def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False,
           axis=None) -> Call:
    """``R.unique(x, sorted=True, return_index=False, return_inverse=False,
    return_counts=False, axis=None)``.

    The unique values of ``x`` (flattened, or slices along ``axis``), then, as requested, the
    index of each value's first occurrence, the index into the unique values of every input
    element (1-D), and each value's count. With one output the result is a tensor, otherwise a
    tuple. ``sorted=False`` keeps the order of first occurrence. Output extents depend on the
    data, so the types give only ranks.
    """
    args = [x, _flag(sorted, "sorted"), _flag(return_index, "return_index"),
            _flag(return_inverse, "return_inverse"), _flag(return_counts, "return_counts")]
    if axis is not None:
        args.append(axis if isinstance(axis, PrimValue) else PrimValue(int(axis)))
    return Call(_UNIQUE, args)


from . import reference  # noqa: F401 - registers FReference after the op exists
