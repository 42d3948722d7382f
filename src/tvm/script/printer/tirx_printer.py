"""Docsifiers for TIR scalar expressions (PrimExpr): ``n * 2``, ``T.Cast("float32", i)``, ...

Constants follow Apache TVM 0.27: an integer of ``int_dtype`` (``int32`` by default) prints
as a bare number, others as ``T.int64(3)``; ``bool`` as ``T.bool(True)``; floats as
``T.float32(1.5)`` (17 significant digits, like C's ``%.17g``; integral values in fixed
notation with every digit: ``T.float32(100000000000000000.0)``). Inside Relax (shapes,
``R.prim_value``), ``int64`` integers print bare too: ``R.shape([n * 2, 4])``.

Only expressions are covered here; PrimFunc, statements and buffers register their own
docsifiers when those classes exist (not yet printed: see the package docstring).
"""

from __future__ import annotations

import math

from ... import tirx
from ...ir.op import Op
from .doc import AssignDoc, CallDoc, IdDoc, LiteralDoc, OperationDoc, OperationKind
from .ir_docsifier import attr_path, item_path, register_printer

__all__ = ["format_float", "int_doc"]

K = OperationKind


def format_float(value: float) -> str:
    """Text of a float as TVM 0.27 prints it: ``1.5``, ``0.10000000000000001``, ``1.0``.

    An integral value prints all its digits in fixed notation (``1e17`` as
    ``100000000000000000.0``, ``-FLT_MAX`` as ``-340282346638528859811704183484516925440.0``);
    others as C's ``%.17g`` (``9.9999999999999995e-21``). Every float dtype uses this rule.
    """
    if math.isfinite(value) and value == math.floor(value):
        return f"{value:.1f}"
    text = f"{value:.17g}"
    if "." not in text and "e" not in text and "n" not in text:
        text += ".0"
    return text


class _RawDoc(IdDoc):
    """A preformatted token (a float's digits); printed as is."""


def int_doc(value: int, dtype: str, d, path=None):
    """The doc of an integer constant of ``dtype`` under the printer's rules."""
    if dtype == "bool":
        return d.prefix("T").attr("bool").call(LiteralDoc(bool(value)))
    if dtype == d.cfg.int_dtype or (dtype == "int64" and d.state.get("in_relax")):
        return LiteralDoc(int(value), path)
    return d.prefix("T").attr(dtype).call(LiteralDoc(int(value)))


@register_printer(getattr(tirx, "IntImm", None))
def _int_imm(imm, path, d):
    return int_doc(imm.value, imm.dtype, d)


@register_printer(getattr(tirx, "FloatImm", None))
def _float_imm(imm, path, d):
    value = imm.value
    if math.isnan(value) or math.isinf(value):
        arg = LiteralDoc(str(value) if not math.isnan(value) else "nan")
    else:
        arg = _RawDoc(format_float(value))
    if imm.dtype == d.cfg.float_dtype:
        return arg
    return d.prefix("T").attr(imm.dtype).call(arg)


@register_printer(getattr(tirx, "StringImm", None))
def _string_imm(imm, path, d):
    return LiteralDoc(imm.value)


@register_printer(getattr(tirx, "Var", None))
def _var(var, path, d):
    doc = d.var_doc(var)
    if doc is not None:
        return doc
    later_params = d.state.get("later_params")
    if later_params and id(var) in later_params:
        # A PrimFunc parameter first used in an earlier buffer's shape: ``T.Buffer(("n",))``.
        return LiteralDoc(d.define(var, var.name).name)
    # First use where declarations are collected (a function body): ``m = T.int64()``.
    decl = d.prefix("T").attr(var.dtype).call()
    doc = d.declare(var, var.name, lambda name: AssignDoc(IdDoc(name), decl))
    if doc is not None:
        return doc
    # A free variable prints as its name (as TVM does for ``str(n * 2)``).
    return IdDoc(var.name or "v")


@register_printer(getattr(tirx, "Cast", None))
def _cast(node, path, d):
    value = d.as_doc(node.value, attr_path(path, "value"))
    return d.prefix("T").attr("Cast").call(LiteralDoc(node.dtype), value)


_BINARY = {
    "Add": K.Add,
    "Sub": K.Sub,
    "Mul": K.Mult,
    "FloorDiv": K.FloorDiv,
    "FloorMod": K.Mod,
    "EQ": K.Eq,
    "NE": K.NotEq,
    "LT": K.Lt,
    "LE": K.LtE,
    "GT": K.Gt,
    "GE": K.GtE,
    "And": K.And,
    "Or": K.Or,
    "BitwiseAnd": K.BitAnd,
    "BitwiseOr": K.BitOr,
    "BitwiseXor": K.BitXor,
    "LShift": K.LShift,
    "RShift": K.RShift,
}
# Binary nodes without a Python operator print as calls.
_BINARY_CALL = {"Div": "Div", "Mod": "truncmod", "Min": "min", "Max": "max"}


def _binary(node, path, d):
    name = type(node).__name__
    a = d.as_doc(node.a, attr_path(path, "a"))
    b = d.as_doc(node.b, attr_path(path, "b"))
    kind = _BINARY.get(name)
    if name == "Div" and node.dtype.startswith(("float", "bfloat")):
        kind = K.Div  # TVM 0.27 prints a float division as ``x / y``; ``T.Div`` for integers
    if kind is not None:
        return OperationDoc(kind, [a, b])
    return d.prefix("T").attr(_BINARY_CALL[name]).call(a, b)


register_printer(*(getattr(tirx, n, None) for n in list(_BINARY) + list(_BINARY_CALL)))(_binary)


@register_printer(getattr(tirx, "Not", None))
def _not(node, path, d):
    return OperationDoc(K.Not, [d.as_doc(node.a, attr_path(path, "a"))])


@register_printer(getattr(tirx, "BitwiseNot", None))
def _bitwise_not(node, path, d):
    return OperationDoc(K.Invert, [d.as_doc(node.a, attr_path(path, "a"))])


@register_printer(getattr(tirx, "Select", None))
def _select(node, path, d):
    return d.prefix("T").attr("Select").call(
        d.as_doc(node.condition, attr_path(path, "condition")),
        d.as_doc(node.true_value, attr_path(path, "true_value")),
        d.as_doc(node.false_value, attr_path(path, "false_value")),
    )


@register_printer(getattr(tirx, "Ramp", None))
def _ramp(node, path, d):
    return d.prefix("T").attr("Ramp").call(
        d.as_doc(node.base, attr_path(path, "base")),
        d.as_doc(node.stride, attr_path(path, "stride")),
        d.as_doc(node.lanes, attr_path(path, "lanes")),
    )


@register_printer(getattr(tirx, "Broadcast", None))
def _broadcast(node, path, d):
    return d.prefix("T").attr("Broadcast").call(
        d.as_doc(node.value, attr_path(path, "value")),
        d.as_doc(node.lanes, attr_path(path, "lanes")),
    )


@register_printer(getattr(tirx, "Let", None))
def _let(node, path, d):
    # ``T.Let(body, where={var: value})``; the var is printed by name.
    from .doc import DictDoc  # local: only Let needs it

    var = IdDoc(node.var.name or "v")
    value = d.as_doc(node.value, attr_path(path, "value"))
    body = d.as_doc(node.body, attr_path(path, "body"))
    return CallDoc(d.prefix("T").attr("Let"), [body], ["where"], [DictDoc([var], [value])])


_DTYPE_FIRST = {"call_extern", "call_pure_extern", "call_llvm_intrin", "call_llvm_pure_intrin",
                "call_packed", "call_cpacked", "call_intrin", "reinterpret",
                "type_annotation", "mma_store", "mma_fill", "get_active_lane_mask"}


@register_printer(getattr(tirx, "Call", None))
def _call(node, path, d):
    args = [d.as_doc(arg, item_path(attr_path(path, "args"), i)) for i, arg in enumerate(node.args)]
    op = node.op
    if isinstance(op, Op):
        base = op.name
        for prefix in ("tirx.", "tir."):
            if base.startswith(prefix):
                base = base[len(prefix):]
                break
        if base == "cuda.func_call" and node.args:
            # T.cuda.func_call("f", *args, source_code=..., return_type=...)
            keys, values = ["source_code"], [args[-1]]
            if node.dtype not in ("", "void"):
                keys.append("return_type")
                values.append(LiteralDoc(node.dtype))
            return CallDoc(d.prefix("T").attr("cuda").attr("func_call"), args[:-1], keys, values)
        # An op may name its printed form (``tvm_call_packed`` prints as ``T.call_packed``,
        # ``tirx.cuda.wgmma_noop_barrier`` as ``T.cuda.wgmma.noop_barrier``).
        printed = op.get_attr("TScriptPrinterName") or base
        for prefix in ("tirx.", "tir."):
            if printed.startswith(prefix):
                printed = printed[len(prefix):]
                break
        callee = d.prefix("T")
        for part in printed.split("."):
            callee = callee.attr(part)
        if base in _DTYPE_FIRST:
            # ``T.call_extern("int32", "foo", ...)``: these intrinsics take the dtype first;
            # a pointer result type prints as 0.27 does, ``T.handle("uint64", "shared").ty``.
            ptr_type = getattr(node, "type_annotation", None)
            if ptr_type is not None:
                args.insert(0, d.as_doc(ptr_type, attr_path(path, "type_annotation")).attr("ty"))
            else:
                args.insert(0, LiteralDoc(node.dtype))
        return callee.call(*args)
    # A GlobalVar callee (a call to another PrimFunc).
    return d.as_doc(op, attr_path(path, "op")).call(*args)


@register_printer(getattr(tirx, "IndexMap", None))
def _index_map(imap, path, d):
    # ``T.index_map(lambda i, j: (j, i))``: the lambda's parameters are names local to it.
    from .doc import LambdaDoc, TupleDoc  # local: only index maps print lambdas

    d.push_frame()
    old_in_relax = d.state.get("in_relax")
    if d.state.get("in_body"):
        # Inside a Relax function (``R.layout_transform``) TVM 0.27 prints int64 constants
        # bare: ``i // 4``; a standalone map prints ``i // T.int64(4)``.
        d.state["in_relax"] = True
    try:
        params = [d.define(v, v.name or "i") for v in imap.initial_indices]
        finals = [
            d.as_doc(f, item_path(attr_path(path, "final_indices"), k))
            for k, f in enumerate(imap.final_indices)
        ]
    finally:
        d.state["in_relax"] = old_in_relax
        d.pop_frame()
    return d.prefix("T").attr("index_map").call(LambdaDoc(params, TupleDoc(finals)))
