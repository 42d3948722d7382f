"""``tvm.arith``: integer analysis of PrimExprs (simplification, proofs, bounds).

Apache TVM 0.27 also exposes this package as ``tvm.sym``.
"""

from .analyzer import Analyzer, ProofStrength
from .bound import ConstIntBound
from .int_set import IntervalSet
from .modular_set import ModularSet

# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "Analyzer", "ConstIntBound", "IntervalSet", "ModularSet", "ProofStrength",
]
