"""Python operators on Relax expressions (``x + y``, ``x * y``, ``-x``, ``t[0]``, ``x.astype``).

Each operator builds a call of the matching ``relax.op`` function. Ops that the op library
does not provide yet raise an ``AttributeError`` saying which ``relax.op`` function is
missing.
"""

from __future__ import annotations

from ..ir.type import TupleType

__all__ = ["ExprWithOp"]


def _op(name):
    # Lazy: ``relax.op`` imports ``relax.expr``, which uses this mixin.
    from . import op as _ops

    fn = getattr(_ops, name, None)
    if fn is None:
        raise AttributeError(
            f"this Python operator needs tvm.relax.op.{name}, which is not available yet"
        )
    return fn


class ExprWithOp:
    """Mixin adding Python operators to Relax expressions."""

    __slots__ = ()

    def __add__(self, other):
        return _op("add")(self, _lift(other))

    def __radd__(self, other):
        return _op("add")(_lift(other), self)

    def __sub__(self, other):
        return _op("subtract")(self, _lift(other))

    def __rsub__(self, other):
        return _op("subtract")(_lift(other), self)

    def __mul__(self, other):
        return _op("multiply")(self, _lift(other))

    def __rmul__(self, other):
        return _op("multiply")(_lift(other), self)

    def __truediv__(self, other):
        return _op("divide")(self, _lift(other))

    def __rtruediv__(self, other):
        return _op("divide")(_lift(other), self)

    def __floordiv__(self, other):
        return _op("floor_divide")(self, _lift(other))

    def __rfloordiv__(self, other):
        return _op("floor_divide")(_lift(other), self)

    def __mod__(self, other):
        return _op("mod")(self, _lift(other))

    def __rmod__(self, other):
        return _op("mod")(_lift(other), self)

    def __pow__(self, other):
        return _op("power")(self, _lift(other))

    def __rpow__(self, other):
        return _op("power")(_lift(other), self)

    def __neg__(self):
        return _op("negative")(self)

    def __lt__(self, other):
        return _op("less")(self, _lift(other))

    def __le__(self, other):
        return _op("less_equal")(self, _lift(other))

    def __gt__(self, other):
        return _op("greater")(self, _lift(other))

    def __ge__(self, other):
        return _op("greater_equal")(self, _lift(other))

    def astype(self, dtype):
        """``R.astype(self, dtype)``."""
        return _op("astype")(self, dtype)

    def __getitem__(self, index):
        """``t[i]`` on a tuple-valued expression builds ``TupleGetItem``."""
        from .expr import TupleGetItem

        if not isinstance(index, int):
            raise TypeError(f"Relax expressions support only integer indexing, got {index!r}")
        fields = _tuple_fields(self)
        if fields is not None and not -len(fields) <= index < len(fields):
            # As TVM: indexing past a tuple's known fields is an IndexError (it also ends
            # Python's iteration protocol).
            raise IndexError(f"tuple index {index} out of range for {len(fields)} fields")
        return TupleGetItem(self, index)

    def __iter__(self):
        """Iterate a tuple-typed expression as its fields (``a, b = t``).

        Any other Relax expression is not iterable: ``list(x)`` on a tensor-valued expression
        would otherwise build ``x[0], x[1], ...`` without end (``T.Buffer(relax_var)`` hung).
        """
        fields = _tuple_fields(self)
        if fields is None:
            ty = getattr(self, "ty", None)
            raise TypeError(
                f"a Relax expression of type {ty if ty is not None else 'unknown'} is not "
                "iterable; only tuple-typed expressions iterate (over their fields)"
            )
        return (self[i] for i in range(len(fields)))

    def __call__(self, *args, attrs=None):
        """Call this expression (a function-typed value) with ``args``."""
        from .expr import Call

        return Call(self, list(args), attrs)


def _tuple_fields(expr):
    """The field types of a tuple-typed expression, or None when it is not known to be one."""
    ty = getattr(expr, "ty", None)
    return ty.fields if isinstance(ty, TupleType) else None


def _lift(value):
    """Python numbers are rejected (as in TVM): the dtype must be chosen with ``relax.const``."""
    if isinstance(value, (int, float, bool)):
        raise TypeError(f"Please convert {value} with `const` first")
    return value
