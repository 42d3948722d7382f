"""NumPy reference semantics of the binary family (``FReference``), with TVM's integer rules.

Integer ``divide`` and ``mod`` truncate toward zero (C semantics, as TVM's ``Div``/``Mod``);
``floor_divide``/``floor_mod`` round toward minus infinity. Results keep the operands' dtype
(comparisons give bool).
"""

from __future__ import annotations

import numpy as np

from ..registry import register_reference


def _int_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _divide(a, b):
    if a.dtype.kind in "iu":
        return _int_div(a, b)
    return np.true_divide(a, b)


def _mod(a, b):
    if a.dtype.kind in "iu":
        return a - _int_div(a, b) * b
    return np.fmod(a, b)


def _floor_mod(a, b):
    if a.dtype.kind in "iu":
        return np.mod(a, b)
    return a - np.floor(a / b) * b


def _floor_divide(a, b):
    if a.dtype.kind in "iu":
        return np.floor_divide(a, b)
    return np.floor(a / b)


def _same_dtype(fn):
    def rule(_attrs, a, b):
        out = np.asarray(fn(np.asarray(a), np.asarray(b)))
        return out.astype(np.result_type(a, b), copy=False)

    return rule


_ARITH = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": _divide,
    "floor_divide": _floor_divide,
    "floor_mod": _floor_mod,
    "mod": _mod,
    "power": np.power,
    "atan2": np.arctan2,
    "log_add_exp": np.logaddexp,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift,
    "right_shift": np.right_shift,
}
_COMPARE = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}

for _name, _fn in _ARITH.items():
    register_reference(_name)(_same_dtype(_fn))
for _name, _fn in _COMPARE.items():
    register_reference(_name)(lambda _attrs, a, b, _fn=_fn: np.asarray(_fn(a, b)))
