"""The TVMScript parser: ``core`` (source, diagnostics, dispatch, evaluation) plus dialects.

``tvm.script.parser.ir`` is a real module; ``tvm.script.parser.<dialect>`` resolves through
the registry in :mod:`tvm.script`.
"""

from . import core  # noqa: F401
from .core.entry import WELL_FORMED_ERROR_MESSAGE, parse  # noqa: F401
from .ir import ir_module  # noqa: F401 - also ``tvm.script.ir_module``


def from_source(program, extra_vars=None, check_well_formed=True, s_tir=False,
                absent_params=None):
    """Parse TVMScript text (or a Python object's source) into IR.

    Parameters
    ----------
    program : str or function or class
        The program.
    extra_vars : dict, optional
        Names the script may use besides the default ``tvm``, ``I``, ``R``, ``T``.
    check_well_formed : bool
        Whether to run the well-formedness gate on the result.
    s_tir : bool
        Parse TIR functions as schedulable functions.
    absent_params : optional
        Forwarded to the TIR dialect.

    Examples
    --------
    >>> import tvm
    >>> f = tvm.script.from_source('''
    ... @R.function
    ... def main(x: R.Tensor((3,), "float32")):
    ...     return x
    ... ''')
    >>> type(f).__name__
    'Function'
    """
    return parse(program, extra_vars, check_well_formed, s_tir, absent_params)


def __getattr__(name):
    # ``tvm.script.parser.<dialect>`` resolves through the dialect registry.
    from tvm import script

    if name in script.registered_dialects():
        return script.dialect_module(name, "parser")
    raise AttributeError(f"module 'tvm.script.parser' has no attribute {name!r}")
