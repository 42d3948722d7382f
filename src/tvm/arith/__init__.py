"""``tvm.arith``: integer analysis of PrimExprs (simplification, proofs, bounds).

Apache TVM 0.27 also exposes this package as ``tvm.sym``.
"""

from .analyzer import Analyzer, ProofStrength  # noqa: F401
from .bound import ConstIntBound  # noqa: F401
from .int_set import IntervalSet  # noqa: F401
from .modular_set import ModularSet  # noqa: F401
