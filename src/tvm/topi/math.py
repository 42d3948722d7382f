"""Elementwise unary computes (``topi.exp``, ``topi.sigmoid``, ``topi.clip``, ``topi.cast``...).

Each builds ``te.compute(x.shape, lambda *i: f(x[i]))`` with the tag ``"elemwise"``; shapes may
be symbolic. The math follows the ``tvm.tirx`` intrinsics' dtype rules (the result has the
input's dtype).
"""

from __future__ import annotations

from .. import tirx
from ..te import tensor as _te
from ..tirx import generic as _g
from .utils import compute, const_like

__all__ = [
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "cast", "ceil",
    "clip", "cos", "cosh", "erf", "exp", "fast_erf", "fast_exp", "fast_tanh", "floor",
    "identity", "isfinite", "isinf", "isnan", "log", "log2", "log10", "logical_not",
    "negative", "reinterpret", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt",
    "square", "tan", "tanh", "trunc",
]


def elemwise(x, fn, name="compute"):
    """``out[i] = fn(x[i])`` over ``x``'s shape (the building block of this module).

    The compute is named ``"compute"`` with axes ``i0, i1, ...``, as TVM's unary computes.
    """
    return _te.compute(x.shape, lambda *i: fn(x(*i)), name=name, tag="elemwise")


def _unary(intrinsic, name):
    def op(x):
        return elemwise(x, intrinsic)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}(x)``."
    return op


exp = _unary(tirx.exp, "exp")
log = _unary(tirx.log, "log")
log2 = _unary(tirx.log2, "log2")
log10 = _unary(tirx.log10, "log10")
sqrt = _unary(tirx.sqrt, "sqrt")
rsqrt = _unary(tirx.rsqrt, "rsqrt")
sigmoid = _unary(tirx.sigmoid, "sigmoid")
tanh = _unary(tirx.tanh, "tanh")
erf = _unary(tirx.erf, "erf")
sin = _unary(tirx.sin, "sin")
cos = _unary(tirx.cos, "cos")
tan = _unary(tirx.tan, "tan")
sinh = _unary(tirx.sinh, "sinh")
cosh = _unary(tirx.cosh, "cosh")
asin = _unary(tirx.asin, "asin")
acos = _unary(tirx.acos, "acos")
atan = _unary(tirx.atan, "atan")
asinh = _unary(tirx.asinh, "asinh")
acosh = _unary(tirx.acosh, "acosh")
atanh = _unary(tirx.atanh, "atanh")
abs = _unary(tirx.abs, "abs")
floor = _unary(tirx.floor, "floor")
ceil = _unary(tirx.ceil, "ceil")
trunc = _unary(tirx.trunc, "trunc")
round = _unary(tirx.round, "round")
isnan = _unary(tirx.isnan, "isnan")
isinf = _unary(tirx.isinf, "isinf")
isfinite = _unary(tirx.isfinite, "isfinite")
# The "fast" approximations of TVM compute the exact function here (same numbers, slower).
fast_exp = _unary(tirx.exp, "fast_exp")
fast_tanh = _unary(tirx.tanh, "fast_tanh")
fast_erf = _unary(tirx.erf, "fast_erf")


def identity(x):
    """``out[i] = x[i]`` (a copy)."""
    return elemwise(x, lambda v: v)


def negative(x):
    """Elementwise ``-x``."""
    return elemwise(x, lambda v: -v)


def square(x):
    """Elementwise ``x * x``."""
    return elemwise(x, lambda v: v * v)


def logical_not(x):
    """Elementwise ``not x`` on bools."""
    return elemwise(x, _g.logical_not)


def bitwise_not(x):
    """Elementwise ``~x`` on integers (``not x`` on bools)."""
    if x.dtype == "bool":
        return logical_not(x)
    return elemwise(x, _g.bitwise_not)


def sign(x):
    """Elementwise sign: -1, 0 or 1 in ``x``'s dtype (as ``np.sign``: NaN stays NaN)."""

    def fn(v):
        zero, one = const_like(0, v.dtype), const_like(1, v.dtype)
        if v.dtype.startswith("uint") or v.dtype == "bool":
            return tirx.Select(_g.greater(v, zero), one, zero)
        neg = const_like(-1, v.dtype)
        # The innermost case returns ``v`` itself: 0 for ints, and 0.0/-0.0/NaN for floats.
        return tirx.Select(_g.greater(v, zero), one, tirx.Select(_g.less(v, zero), neg, v))

    # Named as TVM's sign (T_sign over ax0, ax1...).
    return compute(x.shape, lambda *i: fn(x(*i)), name="T_sign", tag="elemwise")


def clip(x, a_min, a_max):
    """Elementwise ``min(max(x, a_min), a_max)``; the bounds are cast to ``x``'s dtype."""

    def fn(v):
        lo, hi = const_like(a_min, v.dtype), const_like(a_max, v.dtype)
        return _g.min(_g.max(v, lo), hi)

    return elemwise(x, fn)


def cast(x, dtype, span=None):
    """``x`` converted to ``dtype`` (a tensor elementwise, or a scalar expression)."""
    dtype = str(dtype)
    if isinstance(x, _te.Tensor):
        # Always a new compute (even for the same dtype), so the result is a distinct output.
        return elemwise(x, lambda v: _g.cast(v, dtype))
    return _g.cast(x, dtype, span=span)


def reinterpret(x, dtype):
    """The bits of each element of ``x`` read as ``dtype`` (same width)."""
    return elemwise(x, lambda v: tirx.reinterpret(dtype, v))
