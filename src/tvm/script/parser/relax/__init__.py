"""The ``R`` namespace of TVMScript (``from tvm.script import relax as R``).

It has three parts:

* the parser entry points and value constructors (``R.function``, ``R.const``, ``R.shape``,
  ``R.match_cast``...) and the IR-builder calls (``R.dataflow``, ``R.output``, ``R.emit``...);
* the type annotations (``R.Tensor``, ``R.Shape``, ``R.Tuple``, ``R.Object``, ``R.Prim``,
  ``R.Callable``);
* **every operator of ``tvm.relax.op``**: any other name is looked up there (PEP 562), so a
  new op family registered as ``tvm.relax.op.<family>`` (``R.nn.relu``,
  ``R.grad.start_checkpoint``) appears here without editing this module.
"""

from __future__ import annotations

import importlib

from ...ir_builder.relax import (  # noqa: F401
    Else,
    If,
    Then,
    arg,
    dataflow,
    emit,
    emit_match_cast,
    emit_te,
    emit_var_binding,
    emit_with_ty,
    emit_with_type,
    func_attr,
    func_is_pure,
    func_name,
    func_ret_struct_info,
    func_ret_ty,
    func_ret_value,
    output,
)
from . import entry as _entry
from . import parser as _parser  # noqa: F401 - registers the "relax" handlers
from .entry import (  # noqa: F401
    ExternFunc,
    MatchCastPair,
    call_packed,
    call_pure_packed,
    const,
    dtype,
    function,
    match_cast,
    prim_value,
    shape,
    str,
    tuple,
)
from .types import Any, Callable, Object, Prim, Shape, Tensor, Tuple  # noqa: F401

dispatch_token = "relax"


def __getattr__(name):
    # Operators come from tvm.relax.op (and its family submodules) so that new op families
    # appear in R without editing the parser.
    if name.startswith("__"):
        raise AttributeError(name)
    ops = importlib.import_module("tvm.relax.op")
    value = getattr(ops, name, None)
    if value is None:
        try:
            value = importlib.import_module(f"tvm.relax.op.{name}")
        except ImportError:
            value = None
    if value is None:
        raise AttributeError(f"R.{name} does not exist: tvm.relax.op has no {name!r}")
    value = _with_type_kwargs(value)
    globals()[name] = value
    return value


def _with_type_kwargs(op_func):
    """``op_func`` reading bare annotations (``ty_args=R.Object``) in its type keywords."""
    import functools
    import inspect

    if not inspect.isfunction(op_func):
        return op_func
    params = inspect.signature(op_func).parameters
    if "ty_args" not in params and "sinfo_args" not in params:
        return op_func

    @functools.wraps(op_func)
    def wrapper(*args, **kwargs):
        return op_func(*args, **_entry._type_kwargs(kwargs))

    return wrapper
