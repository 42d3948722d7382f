"""Legalization rules of the binary family: each op is the topi function of the same name."""

from __future__ import annotations

from .... import topi
from ...transform.legalize_ops.common import call_topi, register_legalize

_NAMES = (
    "add subtract multiply divide floor_divide floor_mod mod power maximum minimum "
    "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor left_shift "
    "right_shift equal not_equal less less_equal greater greater_equal"
).split()

for _name in _NAMES:
    register_legalize(f"relax.{_name}", call_topi(getattr(topi, _name)))
