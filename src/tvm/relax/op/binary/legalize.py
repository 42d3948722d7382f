"""Legalization rules of the binary family: each op is the topi function of the same name."""

from __future__ import annotations

from .... import te, tirx, topi
from ...transform.legalize_ops.common import call_topi, register_legalize

_NAMES = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "floor_mod",
    "mod",
    "power",
    "atan2",
    "log_add_exp",
    "maximum",
    "minimum",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
]

for _name in _NAMES:
    register_legalize(f"relax.{_name}", call_topi(getattr(topi, _name)))


def _power(a, b):
    """``a ** b``; integer powers go through float64 and are rounded back (exact for
    results below 2**53)."""
    if a.dtype.startswith(("int", "uint")):

        def body(x, y):
            value = tirx.round(tirx.pow(x.astype("float64"), y.astype("float64")))
            return value.astype(a.dtype)

        shape = topi.broadcast_shape(a.shape, b.shape)
        ra, rb = _broadcast_reader(a, shape), _broadcast_reader(b, shape)
        return te.compute(shape, lambda *i: body(ra(i), rb(i)), name="T_power")
    return topi.power(a, b)


def _broadcast_reader(t, shape):
    """Reads ``t`` at an index of the broadcast ``shape`` (size-1 and missing dims)."""
    offset = len(shape) - len(t.shape)

    def read(idx):
        picked = [
            0 if getattr(d, "value", d) == 1 else idx[offset + k] for k, d in enumerate(t.shape)
        ]
        return t(*picked)

    return read


register_legalize("relax.power", call_topi(_power, "power"))
