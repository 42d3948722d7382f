"""``tvm.tirx.analysis``: analyses of TIR expressions, statements and PrimFuncs."""

from .expr_analysis import evaluate, expr_deep_equal  # noqa: F401
from .symbols import exported_symbols  # noqa: F401
from .verify import (  # noqa: F401
    undefined_vars,
    verify_ssa,
    verify_tirx_well_formed,
    verify_well_formed,
)
