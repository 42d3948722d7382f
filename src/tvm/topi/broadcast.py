"""Binary computes with NumPy broadcasting (``topi.add``, ``topi.power``, ``topi.less``...).

The output shape follows NumPy: shapes are aligned on the right and an extent of 1 stretches.
Two symbolic extents broadcast only when they are the same expression (or one is 1); otherwise
the compute cannot know the output extent and raises ``ValueError``. Either operand may be a
scalar (a Python number or a PrimExpr), which takes the tensor operand's dtype.
"""

from __future__ import annotations

import numbers

from .. import tirx
from ..ffi.structural import structural_equal
from ..ir.expr import PrimExpr
from ..te import tensor as _te
from ..tirx import generic as _g
from .utils import compute, const_like, get_const_int, is_const_int

__all__ = [
    "add", "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "broadcast_shape", "divide", "equal",
    "floor_divide", "floor_mod", "greater", "greater_equal", "left_shift", "less", "less_equal",
    "log_add_exp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum", "mod",
    "multiply", "not_equal", "power", "right_shift", "subtract", "trunc_divide", "trunc_mod",
]


def _dims_equal(a, b) -> bool:
    if is_const_int(a) and is_const_int(b):
        return get_const_int(a) == get_const_int(b)
    return structural_equal(a, b)


def broadcast_shape(shape_a, shape_b, op_name="broadcast") -> tuple:
    """The NumPy broadcast of two shapes; ``ValueError`` when static extents are incompatible.

    As TVM's: symbolic extents that may differ are assumed to agree (``max(c, h)`` for two
    variables, the static extent when one side is static).
    """
    a, b = list(shape_a), list(shape_b)
    ndim = max(len(a), len(b))
    a = [1] * (ndim - len(a)) + a
    b = [1] * (ndim - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if is_const_int(x) and get_const_int(x) == 1:
            out.append(y)
        elif is_const_int(y) and get_const_int(y) == 1 or _dims_equal(x, y):
            out.append(x)
        elif not is_const_int(x) and not is_const_int(y):
            # As TVM: two different symbolic extents are assumed to agree at run time; the
            # output extent is their maximum.
            out.append(_g.max(x, y))
        elif not is_const_int(x) or not is_const_int(y):
            out.append(y if is_const_int(y) else x)  # a symbolic extent meets a static one
        else:
            raise ValueError(
                f"{op_name}: shapes {list(shape_a)} and {list(shape_b)} do not broadcast "
                f"(dimension {i}: {x} vs {y})"
            )
    return tuple(out)


def broadcast_index(tensor, out_shape, indices) -> tuple:
    """The index into ``tensor`` that ``indices`` of the broadcast output read."""
    return broadcast_index_of_shape(tensor.shape, out_shape, indices)


def broadcast_index_of_shape(shape, out_shape, indices) -> tuple:
    """The index into a tensor of ``shape`` that ``indices`` of the broadcast output read."""
    lead = len(out_shape) - len(shape)
    idx = []
    for d, dim in enumerate(shape):
        out_dim = out_shape[lead + d]
        stretched = is_const_int(dim) and get_const_int(dim) == 1 and not (
            is_const_int(out_dim) and get_const_int(out_dim) == 1
        )
        idx.append(const_like(0, indices[lead + d].dtype) if stretched else indices[lead + d])
    return tuple(idx)


def _scalar(value, dtype):
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, (numbers.Number, bool)):
        return const_like(value, dtype)
    raise TypeError(f"expected a te.Tensor, a PrimExpr or a number, got {type(value).__name__}")


def broadcast_binary(lhs, rhs, fn, name):
    """``out = fn(lhs, rhs)`` elementwise with broadcasting (tensors or scalars)."""
    lt, rt = isinstance(lhs, _te.Tensor), isinstance(rhs, _te.Tensor)
    if not lt and not rt:
        return fn(_scalar(lhs, "float32" if isinstance(lhs, float) else "int32"),
                  _scalar(rhs, "float32" if isinstance(rhs, float) else "int32"))
    if not lt:
        lhs_value = _scalar(lhs, rhs.dtype)
        return compute(rhs.shape, lambda *i: fn(lhs_value, rhs(*i)), name=name,
                           tag="elemwise")
    if not rt:
        rhs_value = _scalar(rhs, lhs.dtype)
        return compute(lhs.shape, lambda *i: fn(lhs(*i), rhs_value), name=name,
                           tag="elemwise")
    shape = broadcast_shape(lhs.shape, rhs.shape, name)

    def body(*i):
        return fn(lhs(*broadcast_index(lhs, shape, i)), rhs(*broadcast_index(rhs, shape, i)))

    return compute(shape, body, name=name, tag="broadcast")


def _binary(fn, name, doc):
    def compute(lhs, rhs):
        return broadcast_binary(lhs, rhs, fn, name)

    compute.__name__ = name.removeprefix("T_")
    compute.__doc__ = f"Elementwise ``{doc}`` with broadcasting."
    return compute


def _divide(a, b):
    if a.dtype.startswith(("int", "uint")):
        # Integer division as Relax's ``divide``: truncation toward zero.
        return _g.truncdiv(a, b)
    return a / b


def _is_float(dtype) -> bool:
    return dtype.startswith(("float", "bfloat"))


def _floor_divide(a, b):
    return tirx.floor(a / b) if _is_float(a.dtype) else _g.floordiv(a, b)


def _floor_mod(a, b):
    return a - tirx.floor(a / b) * b if _is_float(a.dtype) else _g.floormod(a, b)


def _mod(a, b):
    # Truncating remainder (C fmod) for both integers and floats, as Relax's ``mod``.
    return tirx.fmod(a, b) if _is_float(a.dtype) else _g.truncmod(a, b)


def _power(a, b):
    return tirx.power(a, b)


def _atan2(a, b):
    return tirx.atan2(a, b)


def _logaddexp(a, b):
    return tirx.logaddexp(a, b)


def _bool_op(fn):
    def apply(a, b):
        if a.dtype == "bool" and b.dtype == "bool":
            return fn(a, b)
        raise TypeError(f"logical ops need bool operands, got {a.dtype} and {b.dtype}")

    return apply


def _bitwise(bool_fn, int_fn):
    def apply(a, b):
        return bool_fn(a, b) if a.dtype == "bool" else int_fn(a, b)

    return apply


def _xor_bool(a, b):
    return _g.not_equal(a, b)


add = _binary(_g.add, "T_add", "lhs + rhs")
subtract = _binary(_g.subtract, "T_subtract", "lhs - rhs")
multiply = _binary(_g.multiply, "T_multiply", "lhs * rhs")
divide = _binary(_divide, "T_divide", "lhs / rhs (integers truncate)")
floor_divide = _binary(_floor_divide, "T_floor_divide", "floor(lhs / rhs)")
floor_mod = _binary(_floor_mod, "T_floor_mod", "lhs - floor(lhs / rhs) * rhs")
trunc_divide = _binary(_g.truncdiv, "T_trunc_divide", "trunc(lhs / rhs)")
trunc_mod = _binary(_g.truncmod, "T_trunc_mod", "lhs - trunc(lhs / rhs) * rhs")
mod = _binary(_mod, "T_mod", "lhs % rhs (sign of lhs, as C fmod)")
power = _binary(_power, "T_power", "lhs ** rhs")
maximum = _binary(_g.max, "T_maximum", "max(lhs, rhs)")
minimum = _binary(_g.min, "T_minimum", "min(lhs, rhs)")
atan2 = _binary(_atan2, "T_atan2", "atan2(lhs, rhs)")
log_add_exp = _binary(_logaddexp, "T_log_add_exp", "log(exp(lhs) + exp(rhs))")
equal = _binary(_g.equal, "T_equal", "lhs == rhs")
not_equal = _binary(_g.not_equal, "T_not_equal", "lhs != rhs")
less = _binary(_g.less, "T_less", "lhs < rhs")
less_equal = _binary(_g.less_equal, "T_less_equal", "lhs <= rhs")
greater = _binary(_g.greater, "T_greater", "lhs > rhs")
greater_equal = _binary(_g.greater_equal, "T_greater_equal", "lhs >= rhs")
logical_and = _binary(_bool_op(_g.logical_and), "T_logical_and", "lhs and rhs")
logical_or = _binary(_bool_op(_g.logical_or), "T_logical_or", "lhs or rhs")
logical_xor = _binary(_bool_op(_xor_bool), "T_logical_xor", "lhs xor rhs")
bitwise_and = _binary(_bitwise(_g.logical_and, lambda a, b: a & b), "T_bitwise_and", "lhs & rhs")
bitwise_or = _binary(_bitwise(_g.logical_or, lambda a, b: a | b), "T_bitwise_or", "lhs | rhs")
bitwise_xor = _binary(_bitwise(_xor_bool, lambda a, b: a ^ b), "T_bitwise_xor", "lhs ^ rhs")
left_shift = _binary(lambda a, b: a << b, "T_left_shift", "lhs << rhs")
right_shift = _binary(lambda a, b: a >> b, "T_right_shift", "lhs >> rhs")
