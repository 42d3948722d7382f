"""Normalization of the ``relax.nn`` constructors' scalar and tuple arguments.

A wrong number of values raises :class:`InvalidOpArgument`: a ``ValueError`` that is also a
``tvm.error.InternalError``, the kind Apache TVM 0.27 reports these argument checks as.
"""

from __future__ import annotations

from ....error import InternalError

__all__ = ["InvalidOpArgument", "dtype_arg", "int_values", "ints", "padding_values"]


class InvalidOpArgument(ValueError, InternalError):
    """An operator constructor argument with the wrong number of values."""


def int_values(value):
    """An int as ``[value]``; a sequence (of ints or IntImms) as a list of Python ints."""
    if isinstance(value, int):
        return [value]
    return [int(getattr(v, "value", v)) for v in value]


def ints(value, n, what, name):
    """An int or sequence as a list of ``n`` ints (a single value is repeated)."""
    value = int_values(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise InvalidOpArgument(f"{name} expects {what} to have {n} values, got {value}")
    return value


def padding_values(value, spatial, name):
    """Padding as (before..., after...) for ``spatial`` dims, TVM's way."""
    value = int_values(value)
    if len(value) == 1:
        return value * (2 * spatial)
    if len(value) == spatial:
        return value + value
    if len(value) != 2 * spatial:
        raise InvalidOpArgument(
            f"{name} expects padding to have 1, {spatial} or {2 * spatial} values, got {value}"
        )
    return value


def dtype_arg(dtype):
    """An ``out_dtype`` argument as a dtype string, or None for "same as the input"."""
    if dtype is None:
        return None
    dtype = str(getattr(dtype, "dtype", dtype))
    return None if dtype in ("", "void") else dtype
