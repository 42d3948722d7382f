"""NumPy reference semantics of the unary family (``FReference``), in the input's dtype."""

from __future__ import annotations

import math

import numpy as np

from ..registry import register_reference


def _in_dtype(fn):
    """Apply ``fn`` and cast back to the input dtype (``ceil`` of ints stays int, as in TVM)."""

    def rule(_attrs, x):
        return np.asarray(fn(x)).astype(x.dtype, copy=False)

    return rule


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _bitwise_not(x):
    if x.dtype.kind == "f":
        raise TypeError(
            "bitwise_not has no NumPy meaning on a float tensor "
            f"(dtype {x.dtype}); the reference needs an integer or bool tensor"
        )
    return np.invert(x)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_UNARY = {
    "abs": np.abs,
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "bitwise_not": _bitwise_not,
    "ceil": np.ceil,
    "cos": np.cos,
    "cosh": np.cosh,
    "erf": _erf,
    "exp": np.exp,
    "floor": np.floor,
    "log": np.log,
    "logical_not": np.logical_not,
    "negative": np.negative,
    "round": np.rint,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "sigmoid": _sigmoid,
    "sign": np.sign,
    "sin": np.sin,
    "sinh": np.sinh,
    "sqrt": np.sqrt,
    "square": np.square,
    "tan": np.tan,
    "tanh": np.tanh,
    "trunc": np.trunc,
}

for _name, _fn in _UNARY.items():
    register_reference(_name)(_in_dtype(_fn))

for _name, _fn in (("isfinite", np.isfinite), ("isinf", np.isinf), ("isnan", np.isnan)):
    register_reference(_name)(lambda _attrs, x, _fn=_fn: np.asarray(_fn(x)))


@register_reference("clip")
def _clip(_attrs, x, lo, hi):
    return np.clip(x, lo, hi).astype(x.dtype, copy=False)
