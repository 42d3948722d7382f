"""Access to the ``tvm.tirx`` expression classes from the ``arith`` layer below it.

``arith`` analyses PrimExprs whose node classes live one layer up, in ``tvm.tirx``. Importing
them at module level would break the layer rule (DESIGN.md section 3), so they are imported on
first use: an Analyzer only ever runs on expressions, by which time ``tvm.tirx`` is loaded.
"""

from __future__ import annotations

_MODULES = None


def tirx():
    """``(expr, generic)``: the ``tvm.tirx.expr`` and ``tvm.tirx.generic`` modules."""
    global _MODULES
    if _MODULES is None:
        # Lazy: tirx is the layer above arith; by the time expressions exist it is imported.
        from ..tirx import expr, generic

        _MODULES = (expr, generic)
    return _MODULES
