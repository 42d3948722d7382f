"""Parse handlers of the ``relax`` dialect (statements inside ``@R.function``)."""

from __future__ import annotations

import ast
from typing import Any

from tvm import relax
from tvm.ffi.node import set_field
from tvm.ir import GlobalVar, PrimExpr
from tvm.relax.analysis import free_vars

from ...ir_builder import relax as B
from ...ir_builder.base import IRBuilder
from ...ir_builder.ir import decl_function
from ...ir_builder.relax.frame import EMITTER, BlockFrame, FunctionFrame
from ..core import dispatch
from ..core.parser import Parser, bind_python_target
from .entry import MatchCastPair
from .types import as_type

__all__ = []

_NOT_FOUND = object()


# --- functions -------------------------------------------------------------------------------


def _decorator_options(parser: Parser, node: ast.FunctionDef) -> dict[str, Any]:
    """``pure``/``private`` given to ``@R.function(...)``."""
    options: dict[str, Any] = {}
    for deco in node.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        if getattr(parser.eval_expr(deco.func), "dispatch_token", None) != "relax":
            continue
        for kw in deco.keywords:
            if kw.arg in ("pure", "private", "check_well_formed"):
                options[kw.arg] = parser.eval_expr(kw.value)
            else:
                parser.report_error(kw, f"R.function() got an unexpected keyword argument "
                                        f"{kw.arg!r}")
    return options


def _visit_signature(parser: Parser, node: ast.FunctionDef, frame: FunctionFrame) -> None:
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        parser.report_error(node, "Relax functions take plain positional parameters only")
    frame.in_signature = True
    try:
        _visit_params(parser, node, frame)
    finally:
        frame.in_signature = False
    # Symbolic variables introduced by the signature are visible in the body by name; they
    # shadow outer names (the printer's module-level ``n = TypeVar("n")``).
    for name, var in frame.shape_vars.items():
        if parser.var_table.lookup(name, _NOT_FOUND) is not var:
            parser.var_table.add(name, var, allow_shadowing=True)


def _visit_params(parser: Parser, node: ast.FunctionDef, frame: FunctionFrame) -> None:
    for param in node.args.args:
        if param.annotation is None:
            parser.report_error(param, f"Parameter {param.arg} needs a type annotation")
        ty = _annotation(parser, param.annotation)
        var = B.arg(param.arg, ty, parser.source.to_span(param))
        parser.var_table.add(param.arg, var)
    if node.returns is not None:
        B.func_ret_ty(_annotation(parser, node.returns))


def _annotation(parser: Parser, node: ast.AST):
    value = parser.eval_expr(node)
    try:
        return as_type(value)
    except TypeError as err:
        parser.report_error(node, err)


@dispatch.register("relax", "FunctionDef")
def _visit_function_def(parser: Parser, node: ast.FunctionDef) -> None:
    options = _decorator_options(parser, node)
    builder = IRBuilder.current()
    nested = builder.find_frame(FunctionFrame) is not None
    # Where a local function's binding goes: decided before its own frame opens.
    dataflow = nested and EMITTER.target()[1] is not None
    is_output = nested and _is_output_statement(parser, node)
    self_var = None
    with parser.var_table.with_frame():
        frame = B.function(options.get("pure", True), options.get("private", False))
        with frame:
            frame.span = parser.source.to_span(node)
            B.func_name(node.name)
            _visit_signature(parser, node, frame)
            if nested:
                self_var = _bind_own_name(parser, node, frame, dataflow and not is_output)
            parser.visit_body(node.body)
    if nested:
        # A local function is a value of the enclosing function.
        func = frame.result
        if self_var is not None and any(v is self_var for v in free_vars(func)):
            if node.returns is None:
                parser.report_error(
                    node,
                    f"The local function {node.name} calls itself, so it needs a return type "
                    f"annotation (def {node.name}(...) -> R.Tensor(...)); without one the "
                    f"type of the recursive call is unknown",
                )
            # A recursive function is bound to the variable its body refers to (as in TVM).
            var = EMITTER.emit_var_binding(self_var, func, parser.source.to_span(node))
        else:
            var = EMITTER.emit(func, name=node.name, is_output=is_output)
        parser.var_table.add(node.name, var, allow_shadowing=True)


def _bind_own_name(parser: Parser, node: ast.FunctionDef, frame: FunctionFrame, dataflow: bool):
    """Make a local function's name visible in its own body, so it can call itself.

    The name refers to the variable the function will be bound to, typed by the annotated
    signature (``R.Any`` as return type when there is no annotation; such a recursive
    function is rejected once its body is parsed). A parameter of the same name wins.
    """
    current = parser.var_table.lookup(node.name, _NOT_FOUND)
    if any(current is p for p in frame.params):
        return None
    ret = frame.ret_ty if frame.ret_ty is not None else relax.ObjectType()
    ty = relax.FuncType([p.ty for p in frame.params], ret, frame.is_pure)
    var_cls = relax.DataflowVar if dataflow else relax.Var
    var = var_cls(node.name, ty, parser.source.to_span(node))
    parser.var_table.add(node.name, var, allow_shadowing=True)
    return var


@dispatch.register("relax", "tvm_declare_function")
def _declare_function(parser: Parser, node: ast.FunctionDef) -> GlobalVar:
    """Declare a module function with its signature type, before any body is parsed."""
    options = _decorator_options(parser, node)
    builder = IRBuilder.current()
    frame = B.function(options.get("pure", True), options.get("private", False))
    # The frame only scopes the signature's symbolic variables; it is never finished.
    frame.in_signature = True
    builder.frames.append(frame)
    try:
        with parser.var_table.with_frame():
            params = []
            for param in node.args.args:
                if param.annotation is None:
                    parser.report_error(param, f"Parameter {param.arg} needs a type annotation")
                params.append(_annotation(parser, param.annotation))
            ret = relax.ObjectType() if node.returns is None else _annotation(parser, node.returns)
    finally:
        builder.frames.pop()
    signature = relax.FuncType(params, ret, frame.is_pure)
    return decl_function(node.name, signature)


@dispatch.register("relax", "Return")
def _visit_return(parser: Parser, node: ast.Return) -> None:
    if node.value is None:
        parser.report_error(node, "A Relax function must return a value")
    B.func_ret_value(_as_relax(parser.eval_expr(node.value)))


# --- bindings --------------------------------------------------------------------------------


def _as_relax(value):
    """Python tuples/lists of Relax values become ``relax.Tuple`` (as TVM converts them).

    A PrimExpr inside a tuple becomes a ``PrimValue`` (TVM prints ``(x, T.float32(1.5))``).
    """
    if isinstance(value, (tuple, list)):
        fields = [
            relax.PrimValue(v) if isinstance(v, PrimExpr) else _as_relax(v) for v in value
        ]
        if all(isinstance(f, relax.Expr) for f in fields):
            return relax.Tuple(fields)
    return value


def _is_output_statement(parser: Parser, stmt: ast.AST) -> bool:
    outputs = parser.state.get("dataflow_output_stmts")
    return bool(outputs) and id(stmt) in outputs[-1]


def _bind(parser: Parser, stmt: ast.AST, target: ast.AST, value: Any, annotation=None) -> None:
    if isinstance(target, ast.Name):
        name = target.id
        value = _as_relax(value)
        if isinstance(annotation, relax.PrimType) and not isinstance(value, relax.Expr):
            # ``pv: T.int64 = 3`` binds a scalar value of the annotated dtype.
            value = _prim_value(value, annotation.dtype)
        is_output = _is_output_statement(parser, stmt)
        if isinstance(value, MatchCastPair):
            ty = annotation if annotation is not None else value.ty
            span = parser.source.to_span(stmt)
            var = EMITTER.emit_match_cast(value.value, ty, name, is_output, span)
        elif isinstance(value, relax.Expr):
            span = parser.source.to_span(stmt)
            var = EMITTER.emit(value, annotation, name, is_output, span)
        elif isinstance(value, PrimExpr) and _is_unnamed_var(value):
            var = _bind_shape_var(parser, name, value)
        else:
            if annotation is not None:
                parser.report_error(
                    stmt, f"Only Relax values can be annotated; {name} is a {type(value).__name__}"
                )
            var = value
        parser.var_table.add(name, var, allow_shadowing=True)
        return
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, relax.Expr):
        if annotation is not None:
            parser.report_error(stmt, "A tuple assignment cannot be annotated")
        tuple_var = value if isinstance(value, relax.Var) else EMITTER.emit(value)
        for index, elt in enumerate(target.elts):
            _bind(parser, stmt, elt, relax.TupleGetItem(tuple_var, index))
        return
    if (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (tuple, list))
        and len(value) == len(target.elts)
        and annotation is None
    ):
        # ``n, m = T.int64(), T.int64()``: each target names its value like ``n = ...``.
        for elt, item in zip(target.elts, value):
            _bind(parser, stmt, elt, item)
        return
    bind_python_target(parser, target, value)


def _prim_value(value, dtype: str):
    from tvm import tirx

    if isinstance(value, bool):
        return relax.PrimValue(tirx.IntImm(dtype, int(value)))
    if isinstance(value, (int, float)):
        if dtype.startswith(("float", "bfloat")):
            return relax.PrimValue(tirx.FloatImm(dtype, float(value)))
        return relax.PrimValue(tirx.IntImm(dtype, value))
    if isinstance(value, PrimExpr):
        return relax.PrimValue(value)
    raise TypeError(f"A value annotated as a {dtype} scalar must be a number or PrimExpr, "
                    f"got {value!r}")


def _is_unnamed_var(value) -> bool:
    return type(value).__name__ in ("Var", "SizeVar") and getattr(value, "name", None) == ""


def _bind_shape_var(parser: Parser, name: str, var):
    """``n = T.int64()``: name the new variable, or reuse the signature's ``n``."""
    frame = IRBuilder.current().find_frame(FunctionFrame)
    if frame is not None:
        frame.declared_shape_vars.add(name)
    existing = None if frame is None else frame.shape_vars.get(name)
    if existing is not None and existing.dtype == var.dtype:
        return existing
    set_field(var, "name", name)
    if frame is not None:
        frame.shape_vars[name] = var
    return var


@dispatch.register("relax", "Assign")
def _visit_assign(parser: Parser, node: ast.Assign) -> None:
    if len(node.targets) != 1:
        parser.report_error(node, "Chained assignment (a = b = value) is not supported")
    value = parser.eval_expr(node.value)
    _bind(parser, node, node.targets[0], value)


@dispatch.register("relax", "AnnAssign")
def _visit_ann_assign(parser: Parser, node: ast.AnnAssign) -> None:
    if node.value is None:
        parser.report_error(node, "An annotated name needs a value")
    annotation = _annotation(parser, node.annotation)
    value = parser.eval_expr(node.value)
    _bind(parser, node, node.target, value, annotation)


@dispatch.register("relax", "Nonlocal")
@dispatch.register("relax", "Global")
def _visit_scope_declaration(parser: Parser, node: ast.AST) -> None:
    """``nonlocal x`` / ``global x``: Python scoping only (the parser already sees the
    enclosing function's variables), so nothing is built."""


@dispatch.register("relax", "Expr")
def _visit_expr(parser: Parser, node: ast.Expr) -> None:
    value = parser.eval_expr(node.value)
    if isinstance(value, relax.Expr):
        # A call kept for its effect (``R.print(...)``) is bound to an unused variable.
        EMITTER.emit(value, name="_")


# --- blocks and control flow ----------------------------------------------------------------


def _output_statements(body: list[ast.stmt]) -> set[int]:
    """The statements of a dataflow block whose variables ``R.output(...)`` exports."""
    names = set()
    for stmt in body:
        if (
            isinstance(stmt, ast.Expr)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, (ast.Attribute, ast.Name))
            and (getattr(stmt.value.func, "attr", None) or getattr(stmt.value.func, "id", None))
            == "output"
        ):
            names.update(a.id for a in stmt.value.args if isinstance(a, ast.Name))
    last: dict[str, int] = {}
    for stmt in body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else (
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Name) and target.id in names:
                last[target.id] = id(stmt)
    return set(last.values())


@dispatch.register("relax", "With")
def _visit_with(parser: Parser, node: ast.With) -> None:
    if len(node.items) != 1:
        parser.report_error(node, "Only one `with` item is supported in Relax")
    item = node.items[0]
    frame = parser.eval_expr(item.context_expr)
    if not isinstance(frame, BlockFrame):
        parser.report_error(item.context_expr, "Relax only supports `with R.dataflow():`")
    stack = parser.state.setdefault("dataflow_output_stmts", [])
    stack.append(_output_statements(node.body))
    try:
        with parser.var_table.with_frame(), frame:
            if item.optional_vars is not None:
                bind_python_target(parser, item.optional_vars, frame)
            parser.visit_body(node.body)
    finally:
        stack.pop()
    # The block's outputs stay visible after it; its dataflow variables do not.
    for var in frame.outputs:
        parser.var_table.add(var.name_hint, var, allow_shadowing=True)


@dispatch.register("relax", "If")
def _visit_if(parser: Parser, node: ast.If) -> None:
    cond = parser.eval_expr(node.test)
    if not isinstance(cond, relax.Expr):
        parser.report_error(node.test, f"The condition of a Relax if must be a Relax value, "
                                       f"got {cond!r}")
    if not node.orelse:
        parser.report_error(node, "A Relax if needs an else branch")
    with B.If(cond) as frame:
        with B.Then(), parser.var_table.with_frame():
            parser.visit_body(node.body)
        with B.Else(), parser.var_table.with_frame():
            parser.visit_body(node.orelse)
    parser.var_table.add(frame.var_name, frame.var, allow_shadowing=True)


# --- calls of Relax values: ``cls.f(x)``, ``inner(x)`` ---------------------------------------


@dispatch.register_op("relax", "Call", 1)
def _call_relax_value(func, args, kwargs):
    """Calling a GlobalVar or a function-typed Relax value builds a ``relax.Call``."""
    if isinstance(func, (GlobalVar, relax.Expr)) and not callable(func) or isinstance(
        func, GlobalVar
    ):
        if kwargs:
            raise TypeError(f"Calling {func!r} takes positional arguments only")
        return relax.Call(func, list(args))
    return NotImplemented
