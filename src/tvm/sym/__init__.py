"""``tvm.sym``: Apache TVM 0.27's name for the integer-analysis package (``tvm.arith`` here).

A thin re-export, in the same layer as ``tvm.arith``: ``tvm.sym.Analyzer is
tvm.arith.Analyzer``. The submodules TVM 0.27 has under the same names (``analyzer``,
``bound``, ``int_set``) are importable as ``tvm.sym.<name>`` too.

Partial: only what ``tvm.arith`` implements is here (``Analyzer``, ``ProofStrength``,
``ConstIntBound``, ``IntervalSet``, ``ModularSet``); TVM 0.27's iter-map functions
(``detect_iter_map``...), ``deduce_bound``, ``IntSet`` and ``PresburgerSet`` are not.
"""

import sys as _sys

from ..arith import (
    Analyzer,
    ConstIntBound,
    IntervalSet,
    ModularSet,
    ProofStrength,
    analyzer,
    bound,
    int_set,
)

# Register the aliased submodules so ``import tvm.sym.analyzer`` finds the arith module
# instead of looking for a file of that name under tvm/sym/.
for _module in (analyzer, bound, int_set):
    _sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[1]}"] = _module
del _module

__all__ = [
    "Analyzer",
    "ConstIntBound",
    "IntervalSet",
    "ModularSet",
    "ProofStrength",
    "analyzer",
    "bound",
    "int_set",
]
