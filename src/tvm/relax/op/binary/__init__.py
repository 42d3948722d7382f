"""Binary arithmetic ops (``relax.add``, ``relax.multiply``): elementwise with broadcasting.

Each row of ``BINARY_ARITH_OPS`` declares one op; the op library adds more rows
(``subtract``, ``divide``, ...) and their constructors below.
"""

from __future__ import annotations

from ...expr import Call
from ..registry import register_relax_op
from .infer import infer_binary_arith

__all__ = ["add", "multiply"]

#: (op name, description) — every op here uses :func:`infer_binary_arith`.
BINARY_ARITH_OPS = (
    ("add", "Elementwise addition with broadcasting."),
    ("multiply", "Elementwise multiplication with broadcasting."),
)

_OPS = {
    name: register_relax_op(name, 2, "binary", infer_binary_arith, description=doc)
    for name, doc in BINARY_ARITH_OPS
}


def add(x1, x2):
    """``R.add(x1, x2)``: elementwise ``x1 + x2`` with NumPy broadcasting."""
    return Call(_OPS["add"], [x1, x2])


def multiply(x1, x2):
    """``R.multiply(x1, x2)``: elementwise ``x1 * x2`` with NumPy broadcasting."""
    return Call(_OPS["multiply"], [x1, x2])
