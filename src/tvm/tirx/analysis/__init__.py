"""``tvm.tirx.analysis``: analyses of TIR expressions, statements and PrimFuncs."""

from .verify import (  # noqa: F401
    undefined_vars,
    verify_ssa,
    verify_tirx_well_formed,
    verify_well_formed,
)
from .expr_analysis import evaluate, expr_deep_equal  # noqa: F401
