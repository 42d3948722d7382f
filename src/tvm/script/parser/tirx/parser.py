"""Parse handlers of the ``tirx`` dialect (statements inside ``@T.prim_func``).

Each statement drives the TIR IR builder (:mod:`tvm.script.ir_builder.tirx`):

* ``for ... in T.grid/T.serial/range/...`` opens a loop frame, ``with T.sblock(...)``,
  ``with T.init()``, ``with T.attr(...)`` open theirs, ``if``/``while`` open branch frames;
* ``A[i, j] = v`` stores (``A[i] += v`` too), ``x: T.int32 = v``, ``x: T.let[T.int32] = v``
  and ``x = <PrimExpr>`` bind a new variable (``Bind``), ``n = T.int32()`` declares a symbolic
  variable, ``B = T.alloc_buffer(...)`` (and the other buffer calls) names the buffer;
  the printer writes a ``Bind`` as ``x: T.let[T.int32] = v``, as TVM 0.27 does;
* as in TVM 0.27, the bare ``x: T.int32 = v`` (or ``x: T.int32``) allocates a one-element
  ``"local"`` buffer ``x`` and stores ``v`` into it; afterwards ``x`` reads ``x[0]`` and
  ``x = w`` stores ``w`` into it;
* a bare expression statement is evaluated (``T.evaluate`` for a value, nothing for a builder
  call such as ``T.reads``); ``assert c, msg`` is an ``AssertStmt``.

Names defined in a loop, block or branch are scoped to it.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import inspect
import operator
import typing
from typing import Any

from tvm import tirx
from tvm.ir import GlobalVar, PrimType
from tvm.ir.expr import PrimExpr
from tvm.tirx import stmt as _stmt
from tvm.tirx.buffer import VIEW_PARENTS, Buffer
from tvm.tirx.expr import Var

from ...ir_builder import tirx as B
from ...ir_builder.base import IRBuilder, IRBuilderFrame
from ...ir_builder.ir import decl_function
from ...ir_builder.tirx.frame import (
    AttrFrame,
    ForFrame,
    LaunchThreadFrame,
    PrimFuncFrame,
    SBlockFrame,
)
from ...ir_builder.tirx.kernel import _MetaVar, is_scalar_load
from ..core import dispatch
from ..core.diagnostics import Source
from ..core.parser import Parser, bind_python_target
from .entry import LetAnnotation, NestedInline, OptionalAnnotation
from .entry import let as B_let

__all__ = []

_OPTIONS = ("private", "check_well_formed", "s_tir", "persistent")


# --- scopes that outlive their statement ----------------------------------------------------


def _visit_scoped(parser: Parser, stmts) -> None:
    """Visit a body; frames opened by its statements without ``with`` (``bx =
    T.launch_thread(...)``) last to the end of the body and are closed here, innermost first."""
    frames = IRBuilder.current().frames
    depth = len(frames)
    parser.visit_body(stmts)
    while len(frames) > depth:
        frames[-1].__exit__(None, None, None)


# --- functions -------------------------------------------------------------------------------


def _decorator_options(parser: Parser, node: ast.FunctionDef) -> dict[str, Any]:
    """The keyword arguments given to ``@T.prim_func(...)``."""
    options: dict[str, Any] = {}
    for deco in node.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        if getattr(parser.eval_expr(deco.func), "dispatch_token", None) != "tirx":
            continue
        for kw in deco.keywords:
            if kw.arg not in _OPTIONS:
                parser.report_error(
                    kw, f"T.prim_func() got an unexpected keyword argument {kw.arg!r}"
                )
            options[kw.arg] = parser.eval_expr(kw.value)
    return options


#: The ``@T.jit`` kernels being specialised (innermost last): ``(constexpr names, absent
#: T.Optional parameters)``. Keyword-only ``T.constexpr`` parameters are values, not
#: parameters of the PrimFunc; an absent optional parameter is ``None`` in the body.
_JIT_CONSTEXPRS: list = []


@contextlib.contextmanager
def jit_constexprs(names, absent=()):
    """Parse a ``@T.jit`` kernel whose keyword-only parameters ``names`` have values and
    whose ``T.Optional`` parameters ``absent`` were given as None."""
    _JIT_CONSTEXPRS.append((set(names), set(absent)))
    try:
        yield
    finally:
        _JIT_CONSTEXPRS.pop()


#: The parsers of the TIR functions being parsed (innermost last): where macros expand.
_ACTIVE: list = []


def expand_macro(macro, args, kwargs):
    """Parse ``macro``'s body at the current point of the TIR function being parsed."""
    if not _ACTIVE:
        raise TypeError(f"{macro!r} can only be called inside a @T.prim_func being parsed")
    caller = _ACTIVE[-1]
    bound = inspect.signature(macro.func).bind(*args, **kwargs)
    bound.apply_defaults()
    source = Source(macro.func)
    tree = source.as_ast()
    func_def = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    if macro.hygienic:
        names = macro.captured
    else:
        names = {**caller.extra_vars, **caller.var_table.get()}
    sub = Parser(source, names, s_tir=caller.s_tir, absent_params=caller.absent_params)
    sub.tree = tree
    body = list(func_def.body)
    ret = body.pop() if body and isinstance(body[-1], ast.Return) else None
    with sub.with_dispatch_token("tirx"), sub.var_table.with_frame():
        for name, value in bound.arguments.items():
            sub.var_table.add(name, value, allow_shadowing=True)
        _ACTIVE.append(sub)
        try:
            _visit_scoped(sub, body)
            if ret is None or ret.value is None:
                return None
            return sub.eval_expr(ret.value)
        finally:
            _ACTIVE.pop()


def expand_nested_inline(inline, args, kwargs):
    """Parse a kernel-local ``@T.inline``'s body at the current point: its parameters first,
    then the defining kernel's names as they are now (late binding, recursion)."""
    if not _ACTIVE:
        raise TypeError(f"{inline!r} can only be called inside a @T.prim_func being parsed")
    caller = _ACTIVE[-1]
    owner, node = inline.parser, inline.node
    params = [a.arg for a in node.args.args]
    if len(args) > len(params):
        raise TypeError(f"{node.name}() takes {len(params)} arguments, got {len(args)}")
    bound = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in params or key in bound:
            raise TypeError(f"{node.name}() got an unexpected or repeated argument {key!r}")
        bound[key] = value
    missing = [p for p in params if p not in bound]
    if missing:
        raise TypeError(f"{node.name}() is missing arguments {missing}")
    names = {**owner.extra_vars, **owner.var_table.get()}
    sub = Parser(owner.source, names, s_tir=caller.s_tir, absent_params=caller.absent_params)
    sub.tree = getattr(owner, "tree", None)
    body = list(node.body)
    ret = body.pop() if body and isinstance(body[-1], ast.Return) else None
    with sub.with_dispatch_token("tirx"), sub.var_table.with_frame():
        for name, value in bound.items():
            sub.var_table.add(name, value, allow_shadowing=True)
        _ACTIVE.append(sub)
        try:
            _visit_scoped(sub, body)
            if ret is None or ret.value is None:
                return None
            return sub.eval_expr(ret.value)
        finally:
            _ACTIVE.pop()


def _is_inline_def(parser: Parser, node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        try:
            value = parser.eval_expr(target)
        except Exception:  # noqa: BLE001,S112 - not an inline decorator
            continue
        if getattr(value, "tirx_inline", False):
            return True
    return False


@dispatch.register("tirx", "FunctionDef")
def _visit_function_def(parser: Parser, node: ast.FunctionDef) -> None:
    if IRBuilder.current().find_frame(PrimFuncFrame) is not None and _is_inline_def(parser,
                                                                                    node):
        # ``@T.inline def f(...)`` inside a kernel body: expanded where it is called.
        parser.var_table.add(node.name, NestedInline(parser, node), allow_shadowing=True)
        return
    _ACTIVE.append(parser)
    try:
        _parse_prim_func(parser, node)
    finally:
        _ACTIVE.pop()


def _parse_prim_func(parser: Parser, node: ast.FunctionDef) -> None:
    if IRBuilder.current().find_frame(PrimFuncFrame) is not None:
        parser.report_error(node, "A TIR function cannot define nested functions")
    options = _decorator_options(parser, node)
    s_tir = bool(options.get("s_tir", False) or parser.s_tir)
    args = node.args
    constexprs, absent = _JIT_CONSTEXPRS[-1] if _JIT_CONSTEXPRS else (set(), set())
    if any(a.arg not in constexprs for a in args.kwonlyargs):
        parser.report_error(node, "TIR functions take plain positional parameters only "
                                  "(keyword-only T.constexpr parameters need @T.jit)")
    if args.vararg or args.kwarg or args.posonlyargs or args.defaults:
        parser.report_error(node, "TIR functions take plain positional parameters only")
    with parser.var_table.with_frame():
        frame = B.prim_func(s_tir=s_tir, private=bool(options.get("private", False)),
                            persistent=bool(options.get("persistent", False)))
        with frame:
            B.func_name(node.name)
            _predeclare_symbolic_vars(parser, node, frame)
            for param in args.args:
                if param.arg in absent:
                    # ``k.specialize(a=None)``: the T.Optional parameter is not a parameter;
                    # ``a`` is None in the body (``if a is not None:`` is decided here).
                    parser.var_table.add(param.arg, None, allow_shadowing=True)
                    continue
                _visit_param(parser, param, frame)
                # Names given as strings in a buffer shape (``T.Buffer(("n", 4))``) are
                # visible to the following parameters and the body.
                # They shadow a module-level ``n = TypeVar("n")`` (TVM's printed modules).
                for name, var in frame.sym_vars.items():
                    current = parser.var_table.lookup(name, None)
                    if current is None or isinstance(current, typing.TypeVar):
                        parser.var_table.add(name, var, allow_shadowing=True)
            if node.returns is not None:
                B.func_ret(_ret_type(parser.eval_expr(node.returns)))
            _visit_scoped(parser, node.body)


def _predeclare_symbolic_vars(parser: Parser, node: ast.FunctionDef,
                              frame: PrimFuncFrame) -> None:
    """``n = T.int32()`` at the top of the body declares ``n`` for the signature too (the
    printer writes ``A: T.Buffer((n, 4))`` and declares ``n`` in the body)."""
    for stmt in node.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)
                and not stmt.value.args and not stmt.value.keywords):
            continue
        try:
            ctor = parser.eval_expr(stmt.value.func)
        except Exception:  # noqa: BLE001,S112 - not a declaration; the body reports it
            continue
        dtype = getattr(ctor, "prim_dtype", None)
        name = stmt.targets[0].id
        if dtype is None or dtype == "handle" or name in frame.sym_vars:
            continue
        var = frame.sym_vars[name] = Var(name, dtype)
        parser.var_table.add(name, var, allow_shadowing=True)


def _visit_param(parser: Parser, param: ast.arg, frame: PrimFuncFrame) -> None:
    if param.annotation is None:
        parser.report_error(param, "Type annotation required for function parameters.")
    ann = parser.eval_expr(param.annotation)
    if isinstance(ann, OptionalAnnotation):
        if not _JIT_CONSTEXPRS:
            parser.report_error(param.annotation, "T.Optional parameters are only supported by "
                                                  "@T.jit kernels (k.specialize(a=None))")
        ann = ann.annotation
    if isinstance(ann, Buffer):
        value = B.arg(param.arg, ann)
    elif isinstance(ann, Var) and getattr(ann, "type_annotation", None) is not None:
        # ``A_map: T.TensorMap()``: a typed pointer parameter.
        value = B.arg(param.arg, Var(param.arg, ann.type_annotation))
    else:
        dtype = getattr(ann, "prim_dtype", None)
        if dtype is None:
            parser.report_error(
                param.annotation,
                f"Parameter {param.arg}: expected T.Buffer(...), T.handle or a scalar dtype "
                f"such as T.int32, got {ann!r}",
            )
        # A scalar used by name in an earlier buffer shape (``T.Buffer(("n",))``) is that var.
        var = frame.sym_vars.get(param.arg)
        if var is None or var.dtype != dtype:
            var = Var(param.arg, dtype)
            if dtype != "handle":
                frame.sym_vars[param.arg] = var
        value = B.arg(param.arg, var)
    parser.var_table.add(param.arg, value, allow_shadowing=True)


def _ret_type(value):
    dtype = getattr(value, "prim_dtype", None)
    return PrimType(dtype) if dtype is not None else value


@dispatch.register("tirx", "tvm_declare_function")
def _declare_function(parser: Parser, node: ast.FunctionDef):
    """Declare a PrimFunc of a module before any body is parsed (``cls.f`` in Relax)."""
    return decl_function(node.name)


@dispatch.register("tirx", "Return")
def _visit_return(parser: Parser, node: ast.Return) -> None:
    if node.value is None:
        parser.report_error(node, "`return` in a TIR function needs a value (`return 0`)")
    value = parser.eval_expr(node.value)
    if not isinstance(value, (int, float, PrimExpr)):
        parser.report_error(node, "`return` in a TIR function needs a PrimExpr value, got "
                            f"{type(value).__name__}")
    B.add_to_parent(_stmt.Return(value))


# --- assignments -----------------------------------------------------------------------------


def _func_frame() -> PrimFuncFrame:
    return IRBuilder.current().find_frame(PrimFuncFrame)


def _is_block_var(var) -> bool:
    block = IRBuilder.current().find_frame(SBlockFrame)
    return block is not None and any(iv.var is var for iv in block.iter_vars)


def _bind_name(parser: Parser, target: ast.AST, value: Any) -> None:
    """Give ``value`` (made by the right-hand side) the name of ``target`` and define it."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if not isinstance(value, (list, tuple)):
            parser.report_error(target, f"Cannot unpack {value!r} into several names")
        names = [e.id for e in target.elts if isinstance(e, ast.Name)]
        if len(names) != len(set(names)):
            parser.report_error(target, "Duplicate vars assigned.")
        if len(value) != len(target.elts):
            parser.report_error(
                target, f"Cannot unpack {len(value)} values into {len(target.elts)} names"
            )
        for elt, item in zip(target.elts, value):
            _bind_name(parser, elt, item)
        return
    if isinstance(target, ast.Attribute):
        _set_attribute(parser, target, value)
        return
    if not isinstance(target, ast.Name):
        parser.report_error(target, f"Unsupported assignment target: {type(target).__name__}")
    name = target.id
    frame = _func_frame()
    if isinstance(value, _MetaVar):
        # ``x = T.meta_var(v)``: the name stands for the Python value itself (a loop over
        # it unrolls, see ``_visit_for``).
        if frame is not None and isinstance(value.value, (list, tuple)):
            frame.bound_vars.add(id(value.value))
        parser.var_table.add(name, value.value, allow_shadowing=True)
        return
    if is_scalar_load(value) and value.buffer.name in ("", "buffer"):
        # ``s = T.shared_scalar("uint32")``: ``s`` reads the element, ``s = v`` stores.
        B.name_buffer(value.buffer, name)
        parser.var_table.add(name, value, allow_shadowing=True)
        return
    current = parser.var_table.lookup(name, None)
    if isinstance(current, _stmt.BufferLoad) and isinstance(value, (PrimExpr, bool, int, float)):
        # ``x = v`` after ``x: T.int32 = ...``: a store into the one-element buffer. Only that
        # annotation binds a name to a load (``x = A[0]`` binds a new variable).
        B.buffer_store(current.buffer, value, list(current.indices))
        return
    if (isinstance(current, Buffer) and isinstance(value, (PrimExpr, int, float))
            and not isinstance(value, bool) and _is_one_element(current)):
        # ``F = v`` for a one-element buffer ``F``: stores ``F[0] = v``.
        B.buffer_store(current, value, [tirx.IntImm("int32", 0)])
        return
    if getattr(type(value), "__tirx_meta_class__", False):
        # ``first = Holder(...)``: the buffers its constructor allocated are named
        # ``first_<field>``.
        _name_owned_buffers(value, name)
    _check_not_rebinding(parser, name, frame)
    if isinstance(value, LaunchThreadFrame):
        # ``bx = T.launch_thread("blockIdx.x", 4)``: open until the end of the body.
        value = value.__enter__()
        IRBuilder.name(name, value)
    elif isinstance(value, _stmt.IterVar) and value.var.name == "":
        # ``tx = T.env_thread("threadIdx.x")``: the name stands for the thread variable.
        value = IRBuilder.name(name, value.var)
    elif isinstance(value, Buffer):
        _check_new_in_scope(parser, name)
        B.name_buffer(value, name)
    elif isinstance(value, Var) and frame is not None and id(value) in frame.bound_vars:
        IRBuilder.name(name, value)  # ``x = T.Bind(v)``: its Bind is already emitted
    elif isinstance(value, Var) and value.name == "":
        if _is_block_var(value):
            _check_new_in_scope(parser, name)
            IRBuilder.name(name, value)
        else:
            # ``n = T.int32()``: a symbolic variable, the same as one named in a signature.
            known = frame.sym_vars.get(name) if frame is not None else None
            if known is not None and known.dtype == value.dtype:
                value = known
            else:
                IRBuilder.name(name, value)
                if frame is not None:
                    frame.sym_vars[name] = value
    elif isinstance(value, (PrimExpr, bool, int, float)) and frame is not None:
        expr = value if isinstance(value, PrimExpr) else tirx.const(value)
        if expr.dtype == "handle" or getattr(expr, "dtype", "").startswith("handle"):
            # ``p = ptr_expr``: a pointer binds an immutable variable (``p: T.let[...]``).
            value = B.Bind(value)
            IRBuilder.name(name, value)
        else:
            # As Apache TVM 0.27: ``x = expr`` is a one-element local buffer holding the value
            # (printed ``x: T.int32 = v``); ``x`` reads it and ``x = v`` stores again.
            buf = B.alloc_buffer((1,), expr.dtype, scope="local")
            B.name_buffer(buf, name)
            B.buffer_store(buf, expr, [tirx.IntImm("int32", 0)])
            value = _stmt.BufferLoad(buf, [tirx.IntImm("int32", 0)])
    parser.var_table.add(name, value, allow_shadowing=True)


@contextlib.contextmanager
def collect_allocations():
    """Collect the buffers allocated or declared (by id) while the block runs, in the
    innermost statement frame."""
    frames = IRBuilder.current().frames
    frame = frames[-1] if frames else None
    start = len(getattr(frame, "stmts", ()))
    made: dict = {}
    try:
        yield made
    finally:
        for stmt in getattr(frame, "stmts", ())[start:]:
            if isinstance(stmt, (_stmt.AllocBuffer, _stmt.DeclBuffer)):
                made[id(stmt.buffer)] = stmt.buffer


def _is_one_element(buf: Buffer) -> bool:
    return (len(buf.shape) == 1 and isinstance(buf.shape[0], tirx.IntImm)
            and buf.shape[0].value == 1)


def _name_owned_buffers(obj, name: str) -> None:
    for field in getattr(obj, "__tirx_owned__", ()):
        value = getattr(obj, field, None)
        buf = value.buffer if isinstance(value, _stmt.BufferLoad) else value
        if isinstance(buf, Buffer):
            B.name_buffer(buf, f"{name}_{field}")


def _set_attribute(parser: Parser, target: ast.Attribute, value: Any) -> None:
    """``obj.field = value`` on a parse-time Python object (``self.counter = ...`` in an
    inline method): a field holding a scalar (a one-element buffer's element) is stored
    into; any other field is set to the value."""
    obj = parser.eval_expr(target.value)
    current = getattr(obj, target.attr, None)
    if (isinstance(current, _stmt.BufferLoad) and isinstance(value, (PrimExpr, int, float))
            and not isinstance(value, bool)):
        B.buffer_store(current.buffer, value, list(current.indices))
        return
    try:
        setattr(obj, target.attr, value)
    except (AttributeError, TypeError) as err:
        parser.report_error(target, f"Cannot set {ast.unparse(target)}: {err}")


def _check_new_in_scope(parser: Parser, name: str) -> None:
    """A buffer or block axis may not take a name already defined in the same scope (as in
    Apache TVM: ``A = T.sblock_alloc_buffer(...)`` twice, or ``vi`` bound twice in a block)."""
    if name in parser.var_table.frames[-1]:
        raise ValueError(f"Variable {name} already defined in current scope")


def _check_not_rebinding(parser: Parser, name: str, frame) -> None:
    """Assigning again to a name bound by ``Bind`` is an error, not a silent new variable."""
    current = parser.var_table.lookup(name, None)
    if frame is not None and isinstance(current, Var) and id(current) in frame.bound_vars:
        raise ValueError(
            f"Variable {name} is already bound: TIR variables are immutable; use a new name, "
            f"or declare it as `{name}: T.{current.dtype} = value` (a one-element local "
            "buffer, as in Apache TVM 0.27) to assign it again; a bound variable cannot be "
            "reassigned"
        )


def _store(parser: Parser, target: ast.Subscript, value: Any) -> None:
    buffer = parser.eval_expr(target.value)
    if not isinstance(buffer, Buffer):
        parser.report_error(target.value, f"Only buffers can be stored to, got {buffer!r}")
    index = parser.eval_expr(target.slice)
    indices = list(index) if isinstance(index, tuple) else [index]
    # ``B[i:i + 4] = v`` is a vector store through a ``Ramp`` index (TVM prints stride-1
    # ramps of stores this way).
    indices = [_ramp(parser, target, i) if isinstance(i, slice) else i for i in indices]
    B.buffer_store(buffer, value, indices)


def _ramp(parser: Parser, target: ast.AST, index: slice):
    from tvm.arith import Analyzer  # local: only vector stores need it

    if index.start is None or index.stop is None:
        parser.report_error(target, "A vector store needs explicit slice bounds (A[i:i + 4])")
    step = 1 if index.step is None else index.step
    lanes = Analyzer().simplify(tirx.const(0) + index.stop - index.start)
    if not isinstance(lanes, tirx.IntImm) or not isinstance(step, (int, tirx.IntImm)):
        parser.report_error(
            target, "A vector store's slice must have a constant length and step (A[i:i + 4])"
        )
    count = (int(lanes) + int(step) - 1) // int(step)
    return tirx.Ramp(index.start, step, count)


def _eval_rhs(parser: Parser, node: ast.AST) -> Any:
    """The right-hand side of an assignment. A buffer view (``A.view(4, 4)``, ``A.local()``,
    ``A.sub[0]``...) declares itself: ``tvm.tirx.buffer.VIEW_DECLARERS``. A declaration
    over ``data=P.data`` records ``P`` as the buffer it views (printed ``data=P.data``)."""
    value = parser.eval_expr(node)
    if isinstance(value, Buffer) and isinstance(node, ast.Call):
        for kw in node.keywords:
            if kw.arg == "data" and isinstance(kw.value, ast.Attribute) and kw.value.attr == "data":
                owner = parser.eval_expr(kw.value.value)
                if isinstance(owner, Buffer) and owner is not value and owner.data is value.data:
                    VIEW_PARENTS[value] = owner
    return value


@dispatch.register("tirx", "Assign")
def _visit_assign(parser: Parser, node: ast.Assign) -> None:
    value = _eval_rhs(parser, node.value)
    for target in node.targets:
        if isinstance(target, ast.Subscript):
            _store(parser, target, value)
        else:
            _bind_name(parser, target, value)


def _as_load(target: ast.AST) -> ast.AST:
    """``target`` (a name or attribute being assigned) as an expression that reads it."""
    copy = ast.Name(id=target.id, ctx=ast.Load()) if isinstance(target, ast.Name) else (
        ast.Attribute(value=target.value, attr=target.attr, ctx=ast.Load()))
    return ast.copy_location(copy, target)


@dispatch.register("tirx", "AugAssign")
def _visit_aug_assign(parser: Parser, node: ast.AugAssign) -> None:
    # ``A[i] += v`` stores ``A[i] + v``; ``s += v`` on a scalar stores ``s + v`` into it.
    if isinstance(node.target, (ast.Name, ast.Attribute)):
        load = _as_load(node.target)
        current = parser.eval_expr(load)
        if isinstance(current, _stmt.BufferLoad):
            expr = ast.BinOp(left=load, op=node.op, right=node.value)
            ast.copy_location(expr, node)
            B.buffer_store(current.buffer, parser.eval_expr(expr), list(current.indices))
            return
    if not isinstance(node.target, ast.Subscript):
        parser.report_error(node, "Augmented assignment is supported on buffer elements and "
                                  "scalars only")
    load = ast.Subscript(value=node.target.value, slice=node.target.slice, ctx=ast.Load())
    ast.copy_location(load, node.target)
    expr = ast.BinOp(left=load, op=node.op, right=node.value)
    ast.copy_location(expr, node)
    _store(parser, node.target, parser.eval_expr(expr))


@dispatch.register("tirx", "AnnAssign")
def _visit_ann_assign(parser: Parser, node: ast.AnnAssign) -> None:
    ann = parser.eval_expr(node.annotation)
    if ann is B_let:
        ann = LetAnnotation(None)  # a bare ``x: T.let = value``: the value's dtype
    if type(ann).__name__ == "LocalVectorAnnotation":
        # ``x: T.f32[4]``: a local vector.
        if node.value is not None or not isinstance(node.target, ast.Name):
            parser.report_error(node, "A local vector annotation (T.f32[4]) takes no value")
        buf = B.alloc_buffer(ann.shape, ann.dtype, scope="local")
        B.name_buffer(buf, node.target.id)
        parser.var_table.add(node.target.id, buf, allow_shadowing=True)
        return
    if isinstance(ann, LetAnnotation):
        dtype = ann.dtype
    else:
        dtype = getattr(ann, "prim_dtype", None)
    if dtype is None and not isinstance(ann, LetAnnotation):
        parser.report_error(node.annotation,
                            f"Expected a scalar annotation such as T.int32, got {ann!r}")
    is_let = isinstance(ann, LetAnnotation)
    if node.value is None and is_let:
        parser.report_error(node, f"{ast.unparse(node.target)} needs a value")
    if not isinstance(node.target, ast.Name):
        parser.report_error(node.target, "Only a name can be bound with an annotation")
    name = node.target.id
    _check_not_rebinding(parser, name, _func_frame())
    value = None if node.value is None else parser.eval_expr(node.value)
    if is_let and dtype is None:
        dtype = value.dtype if isinstance(value, PrimExpr) else B._python_dtype(value)
    if isinstance(value, PrimExpr) and value.dtype != dtype:
        parser.report_error(
            node, f"The value of {name} has dtype {value.dtype}, annotated {dtype}"
        )
    if not is_let:
        # TVM 0.27: ``x: T.int32 = v`` is a one-element local buffer; ``x`` then reads x[0].
        buf = B.alloc_buffer((1,), dtype, scope="local")
        B.name_buffer(buf, name)
        if value is not None:
            B.buffer_store(buf, value, [tirx.IntImm("int32", 0)])
        load = _stmt.BufferLoad(buf, [tirx.IntImm("int32", 0)])
        parser.var_table.add(name, load, allow_shadowing=True)
        return
    var = Var(name, ann.ty if ann.ty is not None else dtype)
    B.Bind(value, var=var)
    parser.var_table.add(name, var, allow_shadowing=True)


# --- expression statements -------------------------------------------------------------------


@dispatch.register("tirx", "Expr")
def _visit_expr(parser: Parser, node: ast.Expr) -> None:
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return  # a docstring
    value = parser.eval_expr(node.value)
    if isinstance(value, (LaunchThreadFrame, AttrFrame)):
        # ``T.launch_thread(tx, 64)``, ``T.device_entry()``, ``T.hint(...)``,
        # ``T.attr({...})``: open until the end of the body.
        value.__enter__()
        return
    if isinstance(node.value, ast.Call) and _defined_here(value):
        return  # ``T.cta_id([4])`` without a name: its ScopeIdDefStmt is already emitted
    if type(value).__name__ == "TilePrimitiveCall" and value.span is None:  # cited by dispatch
        object.__setattr__(value, "span", parser.source.to_span(node.value))
    if isinstance(value, IRBuilderFrame):
        parser.report_error(node, f"{ast.unparse(node.value)} must be used in a `with` statement")
    if isinstance(value, _stmt.BufferStore):
        B.add_to_parent(value)  # ``A.vstore([T.Ramp(0, 1, 4)], v, predicate=mask)``
        return
    if isinstance(value, (PrimExpr, int)) and not isinstance(value, bool):
        if getattr(value, "span", False) is None:  # lets later checks (ptx.check_arch) cite it
            object.__setattr__(value, "span", parser.source.to_span(node.value))
        B.evaluate(value)


def _defined_here(value) -> bool:
    frame = _func_frame()
    if frame is None:
        return False
    values = value if isinstance(value, list) else [value]
    return bool(values) and all(isinstance(v, (Var, _stmt.BufferLoad))
                                and id(v if isinstance(v, Var) else v.buffer)
                                in frame.bound_vars for v in values)


@dispatch.register("tirx", "Assert")
def _visit_assert(parser: Parser, node: ast.Assert) -> None:
    cond = parser.eval_expr(node.test)
    msg = "" if node.msg is None else parser.eval_expr(node.msg)
    B.Assert(cond, msg)


@dispatch.register("tirx", "Break")
def _visit_break(parser: Parser, node) -> None:
    B.add_to_parent(_stmt.Break())


@dispatch.register("tirx", "Continue")
def _visit_continue(parser: Parser, node) -> None:
    B.add_to_parent(_stmt.Continue())


# --- scopes ----------------------------------------------------------------------------------


def _loop_frame(parser: Parser, node: ast.AST):
    """The frame a ``for`` iterates over; Python's ``range(...)`` is a serial loop."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and parser.lookup("range") is builtins.range):
        if node.keywords:
            parser.report_error(node, "range() takes positional arguments only")
        args = [parser.eval_expr(a) for a in node.args]
        if not 1 <= len(args) <= 3:
            parser.report_error(node, f"range expected 1 to 3 arguments, got {len(args)}")
        try:
            return B.serial(*args[:2], step=args[2] if len(args) == 3 else None)
        except Exception as err:  # noqa: BLE001 - reported at the call
            parser.report_error(node, err)
    return parser.eval_expr(node)


@dispatch.register("tirx", "For")
def _visit_for(parser: Parser, node: ast.For) -> None:
    frame = _loop_frame(parser, node.iter)
    meta = isinstance(frame, _MetaVar) or (
        isinstance(frame, (list, tuple)) and _func_frame() is not None
        and id(frame) in _func_frame().bound_vars)
    if meta:
        frame = frame.value if isinstance(frame, _MetaVar) else frame
        # A loop over a Python sequence (``T.meta_var``): unrolled while parsing.
        if node.orelse:
            parser.report_error(node, "A TIR loop cannot have an `else` clause")
        for item in frame:
            with parser.var_table.with_frame():
                bind_python_target(parser, node.target, item)
                _visit_scoped(parser, node.body)
        return
    if not isinstance(frame, ForFrame):
        parser.report_error(
            node.iter,
            "Expect the for loop to be one of the following: range, T.serial, T.grid, "
            "T.parallel, T.vectorized, T.unroll, T.thread_binding",
        )
    if node.orelse:
        parser.report_error(node, "A TIR loop cannot have an `else` clause")
    with parser.var_table.with_frame(), frame as loop_vars:
        if isinstance(node.target, (ast.Tuple, ast.List)):
            if not isinstance(loop_vars, list) or len(loop_vars) != len(node.target.elts):
                count = len(loop_vars) if isinstance(loop_vars, list) else 1
                parser.report_error(
                    node.target,
                    f"The loop binds {count} variable(s) to {len(node.target.elts)} names",
                )
        elif isinstance(loop_vars, list) and isinstance(node.target, ast.Name):
            # ``for lvs in T.grid(m, n)``: ``lvs`` is the list; the loops are lvs_0, lvs_1...
            for k, var in enumerate(loop_vars):
                IRBuilder.name(f"{node.target.id}_{k}", var)
            parser.var_table.add(node.target.id, list(loop_vars), allow_shadowing=True)
            parser.visit_body(node.body)
            return
        _name_loop_vars(parser, node.target, loop_vars)
        parser.visit_body(node.body)


def _name_loop_vars(parser: Parser, target: ast.AST, loop_vars) -> None:
    if isinstance(target, (ast.Tuple, ast.List)):
        for elt, var in zip(target.elts, loop_vars):
            _name_loop_vars(parser, elt, var)
        return
    if not isinstance(target, ast.Name):
        parser.report_error(target, "A loop variable must be a name")
    IRBuilder.name(target.id, loop_vars)
    parser.var_table.add(target.id, loop_vars, allow_shadowing=True)


@dispatch.register("tirx", "With")
def _visit_with(parser: Parser, node: ast.With) -> None:
    _visit_with_items(parser, node, list(node.items))


def _visit_with_items(parser: Parser, node: ast.With, items) -> None:
    if not items:
        _visit_scoped(parser, node.body)
        return
    item = items[0]
    frame = parser.eval_expr(item.context_expr)
    # A TIR frame, or a script-time context manager that opens frames itself (``with
    # WarpRole(warp_id, 0):``).
    if not isinstance(frame, IRBuilderFrame) and not (
            hasattr(type(frame), "__enter__") and hasattr(type(frame), "__exit__")):
        parser.report_error(
            item.context_expr,
            f"Expected a TIR scope such as T.sblock(...), T.init() or T.attr(...), got {frame!r}",
        )
    with parser.var_table.with_frame(), frame as value:
        if item.optional_vars is not None:
            if isinstance(value, IRBuilderFrame):
                # ``with T.sblock("b") as x``: the frame itself is no value of the program.
                parser.report_error(
                    item.optional_vars,
                    f"Do not know how to bind type: {type(value).__name__} in with statement",
                )
            bind_python_target(parser, item.optional_vars, value)
        _visit_with_items(parser, node, items[1:])


@dispatch.register("tirx", "If")
def _visit_if(parser: Parser, node: ast.If) -> None:
    cond = _as_prim(parser.eval_expr(node.test))
    if isinstance(cond, (bool, int)) and not isinstance(cond, PrimExpr):
        # A condition known while parsing keeps only the branch taken, inlined as in Python:
        # names it binds (``A = T.match_buffer(...)``) stay visible after the ``if``.
        parser.visit_body(node.body if cond else node.orelse)
        return
    with B.If(cond):
        with parser.var_table.with_frame(), B.Then():
            _visit_scoped(parser, node.body)
        if node.orelse:
            with parser.var_table.with_frame(), B.Else():
                _visit_scoped(parser, node.orelse)


@dispatch.register("tirx", "While")
def _visit_while(parser: Parser, node: ast.While) -> None:
    if node.orelse:
        parser.report_error(node, "A TIR while loop cannot have an `else` clause")
    cond = parser.eval_expr(node.test)
    with parser.var_table.with_frame(), B.While(cond):
        _visit_scoped(parser, node.body)


# --- operators -------------------------------------------------------------------------------


def _as_prim(value):
    """``a == b`` on PrimExprs gives a helper object (``EqualOp``) usable as a Python bool;
    logical operators need its expression."""
    asobject = getattr(value, "asobject", None)
    return asobject() if asobject is not None else value


def _logical(make, python_op):
    def apply(a, b):
        a, b = _as_prim(a), _as_prim(b)
        if isinstance(a, PrimExpr) or isinstance(b, PrimExpr):
            return make(a, b)
        return python_op(a, b)

    return apply


dispatch.register_op("tirx", "And", 2)(_logical(tirx.And, lambda a, b: a and b))
dispatch.register_op("tirx", "Or", 2)(_logical(tirx.Or, lambda a, b: a or b))


def _const_left(make, python_op):
    """``2 <= x``: a Python integer on the left of a PrimExpr stays on the left (as TVM's
    parser builds it; Python's reflection would give ``x >= 2``)."""
    def apply(a, b):
        if (isinstance(a, int) and not isinstance(a, bool) and isinstance(b, PrimExpr)
                and "int" in str(b.dtype)):
            return make(tirx.IntImm(b.dtype, a), b)
        return python_op(a, b)

    return apply


for _name, _make, _py in (("Lt", tirx.LT, operator.lt), ("LtE", tirx.LE, operator.le),
                          ("Gt", tirx.GT, operator.gt), ("GtE", tirx.GE, operator.ge)):
    dispatch.register_op("tirx", _name, 2)(_const_left(_make, _py))


@dispatch.register_op("tirx", "Call", 1)
def _call_prim_func(func, args, kwargs):
    """``Module.sub(A.data)``: a call of another PrimFunc of the module (a ``tirx.Call`` whose
    op is the GlobalVar; dtype the callee's PrimType result, else ``void``)."""
    if not isinstance(func, GlobalVar):
        return NotImplemented
    if kwargs:
        raise TypeError(f"calling {func.name_hint} takes positional arguments only")
    ret = getattr(getattr(func, "ty", None), "ret", None)
    dtype = str(ret.dtype) if isinstance(ret, PrimType) else "void"
    return tirx.Call(dtype, func, [tirx.const(a) if isinstance(a, (bool, int, float)) else a
                                   for a in args])


@dispatch.register_op("tirx", "Not", 1)
def _not(a):
    a = _as_prim(a)
    return tirx.Not(a) if isinstance(a, PrimExpr) else not a
