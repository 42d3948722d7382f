"""Relax IR builder: ``tvm.script.ir_builder.relax`` (the frames the ``R`` parser drives).

Usable directly from Python:

>>> from tvm import relax
>>> from tvm.script.ir_builder import IRBuilder
>>> from tvm.script.ir_builder import relax as R
>>> with IRBuilder() as ib:
...     with R.function():
...         R.func_name("main")
...         x = R.arg("x", relax.TensorType((3,), "float32"))
...         with R.dataflow():
...             y = R.emit(relax.op.add(x, x), name="y")
...             R.output(y)
...         R.func_ret_value(y)
>>> func = ib.get()
>>> [b.var.name_hint for b in func.body.blocks[0].bindings]
['y']
"""

from __future__ import annotations

from tvm import relax

from ..base import IRBuilder
from .frame import (
    EMITTER,
    BlockFrame,
    ElseFrame,
    FunctionFrame,
    IfFrame,
    SeqFrame,
    ThenFrame,
    is_leaf,
)

__all__ = [
    "BlockFrame",
    "Else",
    "ElseFrame",
    "FunctionFrame",
    "If",
    "IfFrame",
    "Then",
    "ThenFrame",
    "arg",
    "dataflow",
    "emit",
    "emit_match_cast",
    "emit_te",
    "emit_var_binding",
    "emit_with_ty",
    "emit_with_type",
    "func_attr",
    "func_is_pure",
    "func_name",
    "func_ret_struct_info",
    "func_ret_ty",
    "func_ret_value",
    "function",
    "output",
]


def _function_frame(what: str) -> FunctionFrame:
    frame = IRBuilder.current().find_frame(FunctionFrame)
    if frame is None:
        raise ValueError(f"{what} must be called inside R.function()")
    return frame


def function(is_pure: bool = True, is_private: bool = False) -> FunctionFrame:
    """Open a Relax function frame."""
    return FunctionFrame(is_pure, is_private)


def arg(name: str, ty, span=None) -> relax.Var:
    """Add a parameter ``name`` of type ``ty`` and return its variable."""
    frame = _function_frame("R.arg")
    if frame.blocks or frame.pending:
        raise ValueError("R.arg must come before the function's bindings")
    var = relax.Var(name, ty, span)
    frame.params.append(var)
    return var


def func_name(name: str) -> None:
    """Name the current function."""
    frame = _function_frame("R.func_name")
    if frame.name is not None:
        raise ValueError(f"Duplicate function name: {frame.name!r} then {name!r}")
    frame.name = name


def func_attr(attrs: dict) -> None:
    """Add attributes to the current function (``R.func_attr({"key": value})``)."""
    frame = _function_frame("R.func_attr")
    for key, value in dict(attrs).items():
        if key in frame.attrs:
            raise ValueError(f"Duplicate function attribute: {key}")
        frame.attrs[key] = value


def func_is_pure(is_pure: bool) -> None:
    """Set whether the current function is pure."""
    _function_frame("R.func_is_pure").is_pure = bool(is_pure)


def func_ret_ty(ty) -> None:
    """Set the return type of the current function."""
    frame = _function_frame("R.func_ret_ty")
    if frame.ret_ty is not None:
        raise ValueError("Duplicate function return type")
    frame.ret_ty = ty


#: Seed-era name of :func:`func_ret_ty`.
func_ret_struct_info = func_ret_ty


def func_ret_value(value) -> None:
    """Set the result of the innermost function or branch."""
    frame = IRBuilder.current().find_frame(SeqFrame)
    if frame is None:
        raise ValueError("R.func_ret_value must be called inside R.function()")
    if not isinstance(frame, FunctionFrame):
        raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong Python type
            "A Relax if branch cannot return: end both branches by assigning the same "
            "variable, and return after the if"
        )
    if frame.output is not None:
        raise ValueError("The function already has a return value")
    if IRBuilder.current().find_frame(BlockFrame) is not None:
        raise ValueError("A function cannot return inside a dataflow block")
    # The result must be a leaf: bind a computed value while the frame is still open.
    value = EMITTER.normalize(relax.Tuple(value) if isinstance(value, (list, tuple)) else value)
    if not is_leaf(value):
        value = EMITTER.emit(value)
    frame.output = value


def dataflow() -> BlockFrame:
    """Open a dataflow block frame."""
    return BlockFrame()


def output(*vars) -> None:
    """Mark the variables that leave the current dataflow block; ends the block."""
    builder = IRBuilder.current()
    frame = builder.frames[-1] if builder.frames else None
    if not isinstance(frame, BlockFrame):
        raise ValueError("R.output must be called directly inside R.dataflow()")  # noqa: TRY004
    if frame.closed:
        raise ValueError("R.output is called twice in one dataflow block")
    defined = {b.var for b in frame.bindings}
    for var in vars:
        if not isinstance(var, relax.Var):
            raise TypeError(f"R.output expects variables, got {type(var).__name__}")
        if isinstance(var, relax.DataflowVar) and var not in defined:
            raise ValueError(f"R.output: {var.name_hint} is not defined in this dataflow block")
    frame.outputs.extend(vars)
    frame.closed = True


def emit(value, annotate_ty=None, name: str = "") -> relax.Var:
    """Bind ``value`` (normalized) to a new variable; ``annotate_ty`` overrides its type."""
    return EMITTER.emit(value, annotate_ty, name)


def emit_match_cast(value, ty, name: str = "") -> relax.Var:
    """Bind ``R.match_cast(value, ty)`` to a new variable."""
    return EMITTER.emit_match_cast(value, ty, name)


class _ModuleFunctionAdder:
    """Adds the PrimFuncs that ``emit_te`` builds to the module being built (the enclosing
    ``I.ir_module`` frame), as ``relax.BlockBuilder.add_func`` does to its module."""

    def __init__(self, frame):
        self.frame = frame

    def add_func(self, func, name_hint: str):
        # Lazy: ffi.structural is only needed when a te function is emitted.
        from tvm.ffi.structural import structural_equal

        from ..ir.frame import decl_function, def_function

        for gvar, existing in self.frame.functions.items():
            if existing is func or (
                type(existing) is type(func) and structural_equal(existing, func)
            ):
                return gvar
        name, count = name_hint, 0
        while name in self.frame.global_vars:
            count += 1
            name = f"{name_hint}{count}"
        decl_function(name, func)
        return def_function(name, func)


def emit_te(func, *args, **kwargs) -> relax.Call:
    """``R.emit_te(func, *args, primfunc_name_hint=None, **kwargs)``: the ``R.call_tir`` of the
    PrimFunc that te function ``func`` computes on ``args``.

    The PrimFunc (private, named ``primfunc_name_hint`` or ``func.__name__``, made unique) is
    added to the enclosing ``I.ir_module``; a structurally equal one already there is reused.
    Relax tensor arguments become te placeholders; other keyword arguments go to ``func``.
    """
    # Lazy: the te bridge imports tvm.te only when a te function is emitted.
    from tvm.relax.te_bridge import call_te

    from ..ir.frame import _module_frame

    return call_te(_ModuleFunctionAdder(_module_frame("R.emit_te")), func, *args, **kwargs)


def emit_with_type(op: str, args, ty_args=None) -> relax.Call:
    """``R.emit_with_type("relax.builtin.alloc_tensor", (args...), (ty,...))``: a call of the
    registered op named ``op`` with the given arguments and type arguments (no attributes).
    The call is returned; assigning it in TVMScript emits its binding."""
    from tvm.ir.op import Op  # lazy: only TVMScript that spells raw op calls needs it

    if isinstance(args, relax.Tuple):
        args = list(args.fields)
    elif isinstance(args, relax.Expr):
        args = [args]
    if ty_args is None:
        ty_args = []
    elif not isinstance(ty_args, (list, tuple)):
        ty_args = [ty_args]
    return relax.Call(Op.get(op), list(args), None, list(ty_args))


def emit_with_ty(op: str, args, ty_args=None) -> relax.Call:
    """TVM's older name of :func:`emit_with_type`."""
    return emit_with_type(op, args, ty_args)


def emit_var_binding(binding) -> relax.Var:
    """Add a ``VarBinding`` as is."""
    EMITTER.emit_binding(binding)
    return binding.var


def If(cond) -> IfFrame:
    """Open an ``if`` frame on ``cond`` (not allowed in a dataflow block)."""
    return IfFrame(cond)


def Then() -> ThenFrame:
    """Open the true branch of the enclosing ``R.If``."""
    return ThenFrame()


def Else() -> ElseFrame:
    """Open the false branch of the enclosing ``R.If``."""
    return ElseFrame()
