"""Docsifiers for module-level IR: ``IRModule`` (``@I.ir_module class Module:``), ``Op``.

Functions print in Apache TVM 0.27's order: PrimFuncs first, then external functions
(``name = R.ExternFunc("symbol")``), then the other functions sorted by name, with ``main``
last. Module attributes print first as ``I.module_attrs({...})`` and
global infos as ``I.module_global_infos({...})``.
"""

from __future__ import annotations

from tvm_ffi import Shape

from ...ir.attrs import DictAttrs
from ...ir.global_info import VDevice
from ...ir.module import IRModule
from ...ir.op import Op
from .doc import AssignDoc, ClassDoc, ExprStmtDoc, IdDoc, LiteralDoc
from .ir_docsifier import attr_path, map_path, register_printer
from .relax_printer import attr_value_doc

__all__ = []


def _is_prim_func(func) -> bool:
    return type(func).__name__ == "PrimFunc"


def _order_key(item):
    gvar, func = item
    kind = 0 if _is_prim_func(func) else 1 if type(func).__name__ == "ExternFunc" else 2
    return (kind, gvar.name_hint == "main", gvar.name_hint)


@register_printer(IRModule)
def _ir_module(mod, path, d):
    d.in_module = True
    d.module_gvars = {id(g) for g in mod.functions}
    d.state["module_vdevices"] = list((mod.global_infos or {}).get("vdevice", ()))
    body = []
    if mod.attrs is not None and len(mod.attrs.values):
        attrs = attr_value_doc(dict(mod.attrs.values), attr_path(path, "attrs"), d)
        body.append(ExprStmtDoc(d.prefix("I").attr("module_attrs").call(attrs)))
    if mod.global_infos:
        infos = attr_value_doc(dict(mod.global_infos), attr_path(path, "global_infos"), d)
        body.append(ExprStmtDoc(d.prefix("I").attr("module_global_infos").call(infos)))
    functions_path = attr_path(path, "functions")
    for gvar, func in sorted(mod.functions.items(), key=_order_key):
        d.state["func_name"] = gvar.name_hint
        doc = d.as_doc(func, map_path(functions_path, gvar))
        if type(func).__name__ == "ExternFunc":
            # ``name = R.ExternFunc("symbol")``, as in TVM 0.27.
            doc = AssignDoc(IdDoc(gvar.name_hint), doc, None)
        body.append(doc)
        d.state.pop("func_name", None)
    name = d.cfg.name or "Module"
    return ClassDoc(IdDoc(name), [d.prefix("I").attr("ir_module")], body)


@register_printer(VDevice)
def _vdevice(vdev, path, d):
    """``I.vdevice({target config}, vdevice_id, "memory_scope")``."""
    target = vdev.target
    config = {} if target is None else dict(sorted(target.export().items()))
    config = {k: list(v) if isinstance(v, tuple) else v for k, v in config.items()}
    return d.prefix("I").attr("vdevice").call(
        attr_value_doc(config, attr_path(path, "target"), d),
        LiteralDoc(int(vdev.vdevice_id)),
        LiteralDoc(str(vdev.memory_scope)),
    )


@register_printer(Op)
def _op(op, path, d):
    name = op.name
    for prefix, dialect in (("relax.", "R"), ("tirx.", "T"), ("tir.", "T")):
        if name.startswith(prefix):
            doc = d.prefix(dialect)
            for part in name[len(prefix):].split("."):
                doc = doc.attr(part)
            return doc
    return d.prefix("I").attr("Op").call(LiteralDoc(name))


@register_printer(DictAttrs)
def _dict_attrs(attrs, path, d):
    return attr_value_doc(dict(attrs.values), path, d)


@register_printer(Shape)
def _ffi_shape(shape, path, d):
    """A runtime shape (``tvm.runtime.ShapeTuple``) alone: ``Shape(1, 2)``, as TVM 0.27."""
    return IdDoc("Shape").call(*[LiteralDoc(int(v)) for v in shape])
