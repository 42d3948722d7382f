"""Docsifiers for Relax: expressions, bindings, blocks, functions and types.

Formats follow Apache TVM 0.27 (checked against it): ``R.Tensor((3, 3), dtype="float32")``,
``R.Any`` for the object type, ``T.int64`` for a scalar ``PrimType``, ``R.shape([3, 3])``,
op calls with the op's attributes as keywords (``R.sum(x, axis=None, keepdims=False)``),
``with R.dataflow():`` blocks closed by ``R.output(...)``.

Symbolic shape variables: those that appear in a function's parameter types are declared
once at file level as ``n = TypeVar("n")`` (0.27's form); others are declared at the top of
the function body as ``m = T.int64()``. In a signature, a compound shape expression prints as
a string (``R.Tensor(("n * 2", 4), ...)``).

How a call prints is data-driven: an op may carry an ``FPrintCall`` attribute
(``fn(call, path, d) -> ExprDoc``, registered with ``tvm.ir.op.register_op_attr``) or an entry
made with :func:`register_call_printer`; otherwise the call prints as ``R.<op name>(args...,
attr=value...)`` with the attribute node's fields as keywords in declared order.
"""

from __future__ import annotations

import numpy as np

from ... import relax, runtime, tirx
from ...ffi.node import Node, walk
from ...ffi.structural import structural_equal as tvm_structural_equal
from ...ir.attrs import Attrs, DictAttrs
from ...ir.expr import GlobalVar
from ...ir.op import Op
from ...ir.type import PrimType, StringType, TupleType
from .doc import (
    AssignDoc,
    CallDoc,
    CommentDoc,
    DictDoc,
    ExprStmtDoc,
    FunctionDoc,
    IdDoc,
    IfDoc,
    IndexDoc,
    ListDoc,
    LiteralDoc,
    ReturnDoc,
    ScopeDoc,
    StmtBlockDoc,
    TupleDoc,
)
from .ir_docsifier import attr_path, has_printer, item_path, register_printer
from .tirx_printer import _RawDoc, format_float

__all__ = ["CONSTANT_METADATA_KEY", "attr_value_doc", "register_call_printer", "type_doc"]

#: ``metadata[...]`` key of non-scalar constants (what Apache TVM 0.27 prints).
CONSTANT_METADATA_KEY = "ir.GenericConst"
#: ``metadata[...]`` key of runtime arrays in attributes (``params``), as TVM 0.27 prints.
TENSOR_METADATA_KEY = "ffi.Tensor"

# op name -> (fn(call, path, d) -> ExprDoc, annotate the bound var?)
_CALL_PRINTERS: dict[str, tuple] = {}


def register_call_printer(op_name: str, annotate_binding: bool = True):
    """Register ``fn(call, path, d) -> ExprDoc`` printing calls of ``op_name``.

    ``annotate_binding=False`` drops the type annotation of a variable bound to such a call
    (TVM does so for ``R.call_tir``, whose ``out_ty`` already states it).
    """

    def _register(fn):
        _CALL_PRINTERS[op_name] = (fn, annotate_binding)
        return fn

    return _register


# --- helpers --------------------------------------------------------------------------------


def _r(d, *names):
    doc = d.prefix("R")
    for name in names:
        doc = doc.attr(name)
    return doc


def attr_value_doc(value, path, d):
    """The doc of an attribute value: literals, lists, dicts, dtypes, or IR nodes."""
    if value is None or isinstance(value, (bool, str)):
        # An explicit "void" dtype prints as given (TVM 0.27); an unset one is None.
        return LiteralDoc(value, path)
    if isinstance(value, (int, np.integer)):
        return LiteralDoc(int(value), path)
    if isinstance(value, (float, np.floating)):
        return _RawDoc(format_float(float(value))).add_path(path)
    if isinstance(value, (list, tuple)):
        return ListDoc(
            [attr_value_doc(v, item_path(path, i), d) for i, v in enumerate(value)]
        ).add_path(path)
    if isinstance(value, dict):
        keys = sorted(value, key=str)
        return DictDoc.from_lists(
            [attr_value_doc(k, None, d) for k in keys],
            [attr_value_doc(value[k], (path, "map", k), d) for k in keys],
        ).add_path(path)
    if isinstance(value, DictAttrs):
        return attr_value_doc(dict(value.values), path, d)
    if isinstance(value, tirx.IntImm) and not d.state.get("in_relax"):
        # An integer attribute (``num_input``) prints bare.
        return LiteralDoc(int(value.value), path)
    if isinstance(value, Node) or has_printer(type(value)):  # a Target: T.target({...})
        return d.as_doc(value, path)
    if isinstance(value, runtime.Tensor):
        # An array (the torch frontend's ``params``) is a metadata reference, as in TVM 0.27.
        index = d.add_metadata(TENSOR_METADATA_KEY, value)
        return IdDoc("metadata")[LiteralDoc(TENSOR_METADATA_KEY)][LiteralDoc(index)]
    # Anything else (a DataType, a runtime string) prints as its string form.
    return LiteralDoc(str(value), path)


def _prim_doc(expr, path, d):
    """A PrimExpr in Relax context (int64 constants print bare)."""
    old = d.state.get("in_relax")
    d.state["in_relax"] = True
    try:
        if d.state.get("in_signature") and not isinstance(expr, (tirx.Var, tirx.IntImm)):
            # A signature can only define plain variables; other expressions are strings.
            from .doc_printer import to_python_script  # local: avoids a module cycle

            text = to_python_script(d.as_doc(expr, None))
            return LiteralDoc(text, path)
        return d.as_doc(expr, path)
    finally:
        d.state["in_relax"] = old


# --- types ----------------------------------------------------------------------------------


def type_doc(ty, path, d):
    """The annotation doc of a Relax type (``None`` when the type is unknown)."""
    if ty is None:
        return None
    return d.as_doc(ty, path)


def _shape_dims(values, path, d):
    return [_prim_doc(v, item_path(path, i), d) for i, v in enumerate(values)]


@register_printer(relax.TensorType)
def _tensor_type(ty, path, d):
    args, keys, values = [], [], []
    shape = ty.shape
    if shape is not None:
        dims = getattr(shape, "values", None)
        shape_path = attr_path(path, "shape")
        if dims is not None:
            args.append(TupleDoc(_shape_dims(dims, attr_path(shape_path, "values"), d)))
        else:
            args.append(d.as_doc(shape, shape_path))
    if ty.dtype and ty.dtype != "void":
        keys.append("dtype")
        values.append(LiteralDoc(ty.dtype))
    if shape is None and ty.ndim != -1:
        keys.append("ndim")
        values.append(LiteralDoc(ty.ndim))
    if ty.vdevice is not None:
        keys.append("vdevice")
        values.append(LiteralDoc(_vdevice_text(ty.vdevice, d)))
    if not args and not keys:
        return _r(d, "Tensor")
    return CallDoc.from_lists(_r(d, "Tensor"), args, keys, values)


def _vdevice_text(vdev, d) -> str:
    """``"<kind>:<index>:<scope>"``: the index among the module's virtual devices of the same
    kind (-1 outside a module or when not listed), as TVM 0.27 prints it."""
    kind = vdev.target.kind.name if vdev.target is not None else ""
    same_kind = [
        v for v in d.state.get("module_vdevices", ())
        if v.target is not None and v.target.kind.name == kind
    ]
    index = next((i for i, v in enumerate(same_kind) if v.same_as(vdev)), -1)
    if index < 0:
        index = next(
            (i for i, v in enumerate(same_kind) if tvm_structural_equal(v, vdev)), -1
        )
    return f"{kind}:{index}:{vdev.memory_scope}"


@register_printer(relax.ShapeType)
def _shape_type(ty, path, d):
    if ty.values is not None:
        dims = _shape_dims(ty.values, attr_path(path, "values"), d)
        return _r(d, "Shape").call(ListDoc(dims))
    # TVM 0.27 spells out ``ndim=-1`` too (a bare ``R.Shape`` parses to the same type).
    return _r(d, "Shape").call(ndim=LiteralDoc(ty.ndim))


@register_printer(TupleType)
def _tuple_type(ty, path, d):
    if not ty.fields:
        return _r(d, "Tuple")
    fields = [d.as_doc(f, item_path(attr_path(path, "fields"), i)) for i, f in enumerate(ty.fields)]
    return _r(d, "Tuple").call(*fields)


@register_printer(relax.ObjectType)
def _object_type(ty, path, d):
    return _r(d, "Any")


@register_printer(PrimType)
def _prim_type(ty, path, d):
    return d.prefix("T").attr(ty.dtype)


@register_printer(StringType)
def _string_type(ty, path, d):
    return d.prefix("I").attr("StringType").call()


@register_printer(relax.FuncType)
def _func_type(ty, path, d):
    if ty.params is None:
        # An opaque function type (an ExternFunc's, say) prints bare, as in TVM 0.27.
        return _r(d, "Callable")
    ret = d.as_doc(ty.ret, attr_path(path, "ret"))
    params = [
        d.as_doc(p, item_path(attr_path(path, "params"), i)) for i, p in enumerate(ty.params)
    ]
    return _r(d, "Callable").call(TupleDoc(params), ret, LiteralDoc(bool(ty.purity)))


@register_printer(getattr(relax, "PackedFuncType", None))
def _packed_func_type(ty, path, d):
    return _r(d, "Any")


# --- leaf expressions -----------------------------------------------------------------------


def _is_unit(ty) -> bool:
    return isinstance(ty, TupleType) and not ty.fields


@register_printer(relax.Var)
def _var(var, path, d):
    if _is_unit(var.ty) and d.state.get("in_body"):
        # TVM 0.27 prints a use of an empty-tuple variable as the value itself.
        return _r(d, "tuple").call()
    doc = d.var_doc(var)
    if doc is not None:
        return doc
    decls = d.state.get("free_var_decls")
    if decls is not None:
        # Printing a fragment: declare the free variable before it (``x: R.Tensor(...)``).
        name = d.define(var, var.name_hint, frame=-1).name
        if var.ty is not None:
            decls.append(AssignDoc(IdDoc(name), None, d.as_doc(var.ty, None)))
        else:
            decls.append(ExprStmtDoc(IdDoc(name)))
        return IdDoc(name)
    return IdDoc(var.name_hint or "v")


@register_printer(GlobalVar)
def _global_var(gv, path, d):
    if d.in_module and id(gv) in d.module_gvars:
        if not d.cfg.module_alias:
            # No alias (module_alias=""): functions are reached through the module's name.
            return IdDoc(d.cfg.name or "Module").attr(gv.name_hint)
        d.state["uses_module_alias"] = True
        return IdDoc(d.cfg.module_alias).attr(gv.name_hint)
    if path == ():
        # Printed alone (the root object), as in TVM 0.27: ``I.GlobalVar("name")``.
        return d.prefix("I").attr("GlobalVar").call(LiteralDoc(gv.name_hint))
    return IdDoc(gv.name_hint)


@register_printer(relax.Constant)
def _constant(const, path, d):
    array = np.asarray(const.data.numpy())
    dtype = str(array.dtype)
    if array.ndim == 0:
        value = array.item()
        if isinstance(value, float):
            value_doc = _RawDoc(format_float(value))
        else:
            value_doc = LiteralDoc(value)
        return _r(d, "const").call(value_doc, LiteralDoc(dtype))
    index = d.add_metadata(CONSTANT_METADATA_KEY, const)
    return IdDoc("metadata")[LiteralDoc(CONSTANT_METADATA_KEY)][LiteralDoc(index)]


@register_printer(relax.Tuple)
def _tuple(tup, path, d):
    if not tup.fields:
        return _r(d, "tuple").call()
    fields_path = attr_path(path, "fields")
    return TupleDoc([d.as_doc(f, item_path(fields_path, i)) for i, f in enumerate(tup.fields)])


@register_printer(relax.TupleGetItem)
def _tuple_get_item(node, path, d):
    value = d.as_doc(node.tuple_value, attr_path(path, "tuple_value"))
    return IndexDoc(value, [LiteralDoc(node.index, attr_path(path, "index"))])


@register_printer(relax.ShapeExpr)
def _shape_expr(node, path, d):
    dims = _shape_dims(node.values, attr_path(path, "values"), d)
    return _r(d, "shape").call(ListDoc(dims))


@register_printer(relax.PrimValue)
def _prim_value(node, path, d):
    # Apache TVM 0.27 prints a PrimValue as the bare expression (annotated ``T.int64``).
    return _prim_doc(node.value, attr_path(path, "value"), d)


@register_printer(relax.StringImm)
def _string_imm(node, path, d):
    return _r(d, "str").call(LiteralDoc(node.value))


@register_printer(relax.DataTypeImm)
def _dtype_imm(node, path, d):
    return _r(d, "dtype").call(LiteralDoc(str(node.value)))


@register_printer(relax.ExternFunc)
def _extern_func(node, path, d):
    args = [LiteralDoc(node.global_symbol)]
    ty = node.ty
    if isinstance(ty, relax.FuncType) and ty.params is not None:
        # A declared signature prints as the second argument, as in TVM 0.27.
        args.append(d.as_doc(ty, attr_path(path, "ty")))
    return _r(d, "ExternFunc").call(*args)


# --- calls ----------------------------------------------------------------------------------


def _args_docs(call, path, d, start=0):
    args_path = attr_path(path, "args")
    return [
        d.as_doc(arg, item_path(args_path, i))
        for i, arg in enumerate(call.args)
        if i >= start
    ]


def _ty_arg_doc(call, path, d):
    """``out_ty=`` value: one type, or a list of them for a tuple output."""
    ty = call.ty_args[0]
    ty_path = item_path(attr_path(path, "ty_args"), 0)
    if isinstance(ty, TupleType) and ty.fields:
        fields_path = attr_path(ty_path, "fields")
        return ListDoc([d.as_doc(f, item_path(fields_path, i)) for i, f in enumerate(ty.fields)])
    return d.as_doc(ty, ty_path)


def _call_printer_entry(call):
    op = call.op
    if isinstance(op, Op):
        custom = op.get_attr("FPrintCall")
        if custom is not None:
            return custom, True
        return _CALL_PRINTERS.get(op.name)
    return None


@register_printer(relax.Call)
def _call(call, path, d):
    entry = _call_printer_entry(call)
    if entry is not None:
        return entry[0](call, path, d)
    op = call.op
    op_path = attr_path(path, "op")
    if isinstance(op, Op):
        name = op.name.removeprefix("relax.")
        callee = _r(d, *name.split(".")).add_path(op_path)
        args = _args_docs(call, path, d)
        if call.args and isinstance(call.args[0], relax.ExternFunc):
            # TVM 0.27 prints an ExternFunc first argument as its name (R.call_pure_packed("f")).
            args[0] = LiteralDoc(call.args[0].global_symbol, item_path(attr_path(path, "args"), 0))
        keys, values = [], []
        attrs = call.attrs
        if isinstance(attrs, Attrs) and not isinstance(attrs, DictAttrs):
            for fname in attrs._field_names:
                keys.append(fname)
                values.append(attr_value_doc(getattr(attrs, fname), None, d))
        if call.ty_args:
            # TVM 0.27 prints an op call's type arguments (``R.invoke_pure_closure``...).
            keys.append("ty_args")
            values.append(_ty_args_tuple_doc(call, path, d))
        return CallDoc.from_lists(callee, args, keys, values)
    if isinstance(op, relax.ExternFunc):
        args = [LiteralDoc(op.global_symbol, op_path)] + _args_docs(call, path, d)
        keys, values = [], []
        if call.ty_args:
            keys.append("ty_args")
            values.append(_ty_args_tuple_doc(call, path, d))
        return CallDoc.from_lists(_r(d, "call_packed"), args, keys, values)
    callee = d.as_doc(op, op_path)
    return callee.call(*_args_docs(call, path, d))


def _call_tir_like(name):
    def _print(call, path, d):
        args = call.args
        callee_path = item_path(attr_path(path, "args"), 0)
        if isinstance(args[0], relax.ExternFunc):
            callee = LiteralDoc(args[0].global_symbol, callee_path)
        else:
            callee = d.as_doc(args[0], callee_path)
        inputs = args[1]
        inputs_path = item_path(attr_path(path, "args"), 1)
        if isinstance(inputs, relax.Tuple):
            in_doc = TupleDoc(
                [d.as_doc(f, item_path(attr_path(inputs_path, "fields"), i))
                 for i, f in enumerate(inputs.fields)]
            ).add_path(inputs_path)
        else:
            in_doc = d.as_doc(inputs, inputs_path)
        keys, values = [], []
        if call.ty_args:
            keys.append("out_ty")
            values.append(_ty_arg_doc(call, path, d))
        if name == "call_tir_with_grad":
            # The TE gradient's name, then its kwargs when there are any (TVM 0.27's order).
            attrs_path = attr_path(path, "attrs")
            keys.append("te_grad_name")
            values.append(LiteralDoc(call.attrs.te_grad_name, attr_path(attrs_path, "te_grad_name")))
            if call.attrs.te_grad_kwargs:
                keys.append("te_grad_kwargs")
                kw_path = attr_path(attrs_path, "te_grad_kwargs")
                values.append(attr_value_doc(dict(call.attrs.te_grad_kwargs), kw_path, d))
        if name == "call_tir_inplace":
            indices_path = attr_path(attr_path(path, "attrs"), "inplace_indices")
            keys.append("inplace_indices")
            values.append(ListDoc(
                [LiteralDoc(int(i), item_path(indices_path, k))
                 for k, i in enumerate(call.attrs.inplace_indices)]
            ).add_path(indices_path))
        if len(args) > 2:
            keys.append("tir_vars")
            values.append(d.as_doc(args[2], item_path(attr_path(path, "args"), 2)))
        return CallDoc.from_lists(_r(d, name), [callee, in_doc], keys, values)

    return _print


register_call_printer("relax.call_tir", annotate_binding=False)(_call_tir_like("call_tir"))
register_call_printer("relax.call_dps_packed", annotate_binding=False)(
    _call_tir_like("call_dps_packed")
)
# Unlike call_tir, TVM 0.27 annotates a call_tir_with_grad binding with its type.
register_call_printer("relax.call_tir_with_grad")(_call_tir_like("call_tir_with_grad"))


@register_call_printer("relax.unique")
def _print_unique(call, path, d):
    """``R.unique(x, sorted=True, ..., axis=1)``: the flag arguments as keywords (TVM's form)."""
    args_path = attr_path(path, "args")
    names = ["sorted", "return_index", "return_inverse", "return_counts", "axis"]
    keys, values = [], []
    for i, (name, arg) in enumerate(zip(names, call.args[1:]), start=1):
        value = getattr(arg, "value", None)
        literal = getattr(value, "value", None)
        keys.append(name)
        if literal is None:
            values.append(d.as_doc(arg, item_path(args_path, i)))
        else:
            literal = bool(literal) if name != "axis" else int(literal)
            values.append(LiteralDoc(literal, item_path(args_path, i)))
    x_doc = d.as_doc(call.args[0], item_path(args_path, 0))
    return CallDoc.from_lists(_r(d, "unique"), [x_doc], keys, values)


# TVM 0.27 annotates a call_tir_inplace binding with its type too.
register_call_printer("relax.call_tir_inplace")(_call_tir_like("call_tir_inplace"))


def _ty_args_tuple_doc(call, path, d):
    """``ty_args=(t1, ...)``: every type argument of a call, always as a tuple."""
    ty_path = attr_path(path, "ty_args")
    return TupleDoc([d.as_doc(t, item_path(ty_path, i)) for i, t in enumerate(call.ty_args)])


@register_call_printer("relax.print")
def _print_call(call, path, d):
    # The format string is the op's first argument but prints last, as ``format=`` (TVM 0.27).
    fmt = d.as_doc(call.args[0], item_path(attr_path(path, "args"), 0))
    return CallDoc.from_lists(_r(d, "print"), _args_docs(call, path, d, start=1), ["format"], [fmt])


@register_call_printer("relax.assert_op")
def _assert_call(call, path, d):
    # Arguments [cond, format, *format_args] print as R.assert_op(cond, *args, format=...).
    args_path = attr_path(path, "args")
    cond = d.as_doc(call.args[0], item_path(args_path, 0))
    fmt = d.as_doc(call.args[1], item_path(args_path, 1))
    args = [cond] + _args_docs(call, path, d, start=2)
    return CallDoc.from_lists(_r(d, "assert_op"), args, ["format"], [fmt])


# --- bindings and blocks --------------------------------------------------------------------


def _annotation(var, value, d):
    if var.ty is None or not d.cfg.show_all_ty:
        # ``show_all_ty=False`` leaves the types of bindings to inference, as TVM does.
        return None
    if isinstance(value, relax.Call):
        entry = _call_printer_entry(value)
        if entry is not None and not entry[1]:
            return None
    return d.as_doc(var.ty, None)


def _binding_stmts(binding, path, d):
    """The statements of one binding (a list: an ``if`` or a nested function is several)."""
    var = binding.var
    value = binding.value
    value_path = attr_path(path, "value")
    if isinstance(binding, relax.MatchCast):
        rhs = _r(d, "match_cast").call(
            d.as_doc(value, value_path), d.as_doc(binding.ty, attr_path(path, "ty"))
        )
        ann = d.as_doc(var.ty, None) if var.ty is not None else None
        return [AssignDoc(d.define(var, var.name_hint), rhs, ann).add_path(path)]
    if isinstance(value, relax.Function):
        name = d.define(var, var.name_hint)
        func_doc = _function_doc(value, value_path, d, name.name, nested=True)
        type_vars = d.state.pop("nested_type_vars", [])
        # TVM 0.27 repeats the import header (and a blank, indented line) before a nested
        # function, then declares the symbolic variables its signature introduces.
        stmts = [CommentDoc("from typing import TypeVar")] if type_vars else []
        stmts += [CommentDoc("from tvm.script import relax as R"), ExprStmtDoc(IdDoc(""))]
        stmts += [AssignDoc(IdDoc(v), IdDoc("TypeVar").call(LiteralDoc(v))) for v in type_vars]
        return [*stmts, func_doc.add_path(path)]
    if isinstance(value, relax.If):
        return [_if_doc(var, value, value_path, d).add_path(path)]
    rhs = d.as_doc(value, value_path)
    if _is_unit(var.ty):
        # An empty-tuple binding prints as its value alone (uses print ``R.tuple()``).
        return [ExprStmtDoc(rhs).add_path(path)]
    ann = _annotation(var, value, d)
    return [AssignDoc(d.define(var, var.name_hint), rhs, ann).add_path(path)]


def _branch_stmts(var_doc_name, var, seq, path, d):
    stmts = []
    if isinstance(seq, relax.SeqExpr):
        stmts.extend(_blocks_stmts(seq.blocks, attr_path(path, "blocks"), d))
        body, body_path = seq.body, attr_path(path, "body")
    else:
        body, body_path = seq, path
    ann = _annotation(var, body, d)
    stmts.append(AssignDoc(IdDoc(var_doc_name), d.as_doc(body, body_path), ann))
    return stmts


def _if_doc(var, node, path, d):
    cond = d.as_doc(node.cond, attr_path(path, "cond"))
    name = d.define(var, var.name_hint).name
    branches = []
    for attr in ("true_branch", "false_branch"):
        # Each branch is its own scope (as in TVM 0.27): its names are free again after it.
        d.push_frame()
        try:
            branches.append(_branch_stmts(name, var, getattr(node, attr), attr_path(path, attr), d))
        finally:
            d.pop_frame()
    return IfDoc(cond, *branches)


def _block_stmts(block, path, d):
    bindings_path = attr_path(path, "bindings")
    stmts = []
    for i, binding in enumerate(block.bindings):
        stmts.extend(_binding_stmts(binding, item_path(bindings_path, i), d))
    if isinstance(block, relax.DataflowBlock):
        outputs = [
            d.as_doc(b.var, attr_path(item_path(bindings_path, i), "var"))
            for i, b in enumerate(block.bindings)
            if not isinstance(b.var, relax.DataflowVar)
        ]
        stmts.append(ExprStmtDoc(_r(d, "output").call(*outputs)))
        return [ScopeDoc(None, _r(d, "dataflow").call(), stmts).add_path(path)]
    return stmts


def _blocks_stmts(blocks, path, d):
    stmts = []
    for i, block in enumerate(blocks):
        stmts.extend(_block_stmts(block, item_path(path, i), d))
    return stmts


@register_printer(relax.BindingBlock)
def _binding_block(block, path, d):
    return StmtBlockDoc(_block_stmts(block, path, d))


@register_printer(relax.VarBinding, relax.MatchCast)
def _binding(binding, path, d):
    return StmtBlockDoc(_binding_stmts(binding, path, d))


@register_printer(relax.SeqExpr)
def _seq_expr(seq, path, d):
    stmts = _blocks_stmts(seq.blocks, attr_path(path, "blocks"), d)
    stmts.append(ExprStmtDoc(d.as_doc(seq.body, attr_path(path, "body"))))
    return StmtBlockDoc(stmts)


@register_printer(relax.If)
def _if_expr(node, path, d):
    # An ``If`` outside a binding (not in normal form): print it as a statement.
    cond = d.as_doc(node.cond, attr_path(path, "cond"))
    then = d.as_doc(node.true_branch, attr_path(path, "true_branch"))
    other = d.as_doc(node.false_branch, attr_path(path, "false_branch"))
    return IfDoc(cond, [then], [other])


# --- functions ------------------------------------------------------------------------------


def _symbolic_vars(objs):
    """tirx Vars under ``objs`` in first-appearance order (no duplicates)."""
    seen, out = set(), []
    for obj in objs:
        if obj is None:
            continue
        for node in walk(obj):
            if isinstance(node, tirx.Var) and id(node) not in seen:
                seen.add(id(node))
                out.append(node)
    return out


def _carried_symbolic_vars(params) -> dict:
    """``id(symbolic var) -> parameter`` for parameters ``n: R.Prim(value=n)`` of its own name.

    LambdaLift passes a captured symbolic variable ``n`` this way; TVM 0.27 prints such a
    parameter as ``n: T.int64`` (not ``n_1``), so the parameter and the variable share the
    printed name. Only when no earlier parameter's type already mentions the variable.
    """
    carried, seen = {}, set()
    for param in params:
        ty = param.ty
        value = getattr(ty, "value", None) if isinstance(ty, PrimType) else None
        if (
            isinstance(value, tirx.Var)
            and value.name == param.name_hint
            and id(value) not in seen
            and id(value) not in carried
        ):
            carried[id(value)] = param
        if ty is not None:
            seen.update(id(v) for v in _symbolic_vars([ty]))
    return carried


def _function_doc(func, path, d, name, nested=False):
    d.push_frame()
    saved_decls = (d.state.get("func_decls"), d.state.get("decl_frame"))
    saved_alias = d.state.get("uses_module_alias", False)
    d.state["uses_module_alias"] = False
    nested_type_vars = []
    # Symbolic variables first met outside the parameters are declared when the tirx Var
    # docsifier meets them (``m = T.int64()``) and inserted at the top of the body.
    decls = d.open_declarations()
    try:
        # Symbolic variables: those in parameter types become file-level TypeVars. Their
        # names belong to the function (TVM 0.27 scopes them per function): another
        # function may name a variable ``n`` too.
        # A nested function declares its new ones in the enclosing body, before its ``def``,
        # under fresh names (``n_1`` when the enclosing function has an ``n``), as TVM does.
        carried = _carried_symbolic_vars(func.params)
        sig_types = [p.ty for p in func.params] + [func.ret_ty]
        # Within one function they are declared in name order (as TVM 0.27 does).
        sig_vars = sorted(_symbolic_vars(sig_types), key=lambda v: v.name)
        for var in sig_vars:
            if d.is_defined(var):
                continue
            if nested and id(var) not in carried:
                nested_type_vars.append(d.define(var, var.name, frame=d.depth - 2).name)
                continue
            if id(var) in carried:
                d.define_named(var, var.name)
                continue
            # Two variables of one name get ``m``, ``m_1`` (TVM's names).
            var_name = d.define(var, var.name).name
            if var_name not in d.type_vars:
                d.type_vars.append(var_name)
        args = []
        d.state["in_signature"] = True
        for i, param in enumerate(func.params):
            ann = d.as_doc(param.ty, None) if param.ty is not None else None
            if carried.get(id(getattr(param.ty, "value", None))) is param:
                param_doc = d.define_named(param, param.name_hint)
            else:
                param_doc = d.define(param, param.name_hint)
            args.append(AssignDoc(param_doc, None, ann))
        ret = d.as_doc(func.ret_ty, None) if func.ret_ty is not None else None
        d.state["in_signature"] = False

        body = []
        attrs = dict(func.attrs.values) if func.attrs is not None else {}
        symbol = attrs.get("global_symbol")
        if symbol is not None and (nested or symbol == name or not d.in_module):
            attrs.pop("global_symbol")
        if attrs:
            body.append(ExprStmtDoc(_r(d, "func_attr").call(attr_value_doc(attrs, None, d))))
        header_len = len(body)
        seq = func.body
        body_path = attr_path(path, "body")
        saved_in_body = d.state.get("in_body")
        d.state["in_body"] = True
        if isinstance(seq, relax.SeqExpr):
            body.extend(_blocks_stmts(seq.blocks, attr_path(body_path, "blocks"), d))
            ret_value = d.as_doc(seq.body, attr_path(body_path, "body"))
        else:
            ret_value = d.as_doc(seq, body_path)
        body.append(ReturnDoc(ret_value))
        d.state["in_body"] = saved_in_body
        body[header_len:header_len] = decls
        header_len += len(decls)
        if d.state.get("uses_module_alias") and d.in_module:
            module_name = d.cfg.name or "Module"
            body.insert(header_len, AssignDoc(IdDoc(d.cfg.module_alias), IdDoc(module_name)))
    finally:
        d.state["func_decls"], d.state["decl_frame"] = saved_decls
        d.state["uses_module_alias"] = saved_alias
        d.state["in_signature"] = False
        d.pop_frame()

    decorator = _r(d, "function")
    keys, values = [], []
    if not func.is_pure:
        keys.append("pure")
        values.append(LiteralDoc(False))
    if not nested and symbol is None:
        keys.append("private")
        values.append(LiteralDoc(True))
    if keys:
        decorator = CallDoc.from_lists(decorator, [], keys, values)
    if nested:
        # Read by the binding printer, which writes ``n = TypeVar("n")`` before the ``def``.
        d.state["nested_type_vars"] = nested_type_vars
    return FunctionDoc(IdDoc(name), args, [decorator], ret, body)


@register_printer(relax.Function)
def _function(func, path, d):
    name = d.state.pop("func_name", None)
    if name is None:
        symbol = func.attrs.values.get("global_symbol") if func.attrs is not None else None
        name = d.cfg.name or symbol or "main"
    return _function_doc(func, path, d, name)
