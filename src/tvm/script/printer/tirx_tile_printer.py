"""Docsifiers of TIRx tile primitives (spec D.4), in Apache TVM 0.27's printed forms.

* a call prints under its scope's namespace: ``T.tile.<op>`` at thread scope, else
  ``T.warp.<op>``, ``T.wg.<op>`` (warpgroup), ``T.cta.<op>``, ``T.cluster.<op>``;
* operands in order, with trailing ``None`` operands left out; a unary call whose source is
  its destination (``dst``, ``src`` the same region) prints the region once;
* then ``workspace={...}`` (sorted, when not empty), ``dispatch="..."``, and the config
  options sorted by name: ``T.tile.memset(A[0:16], T.float32(1.25), dispatch="v10", bar=7,
  foo=42)``;
* ``compose_op`` prints as ``with T.tile.compose_op(...):`` around its calls;
* op operands print as ``I.Op("tirx.tile.add")``, lambdas as ``lambda i, j: i < j``.
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ...ir.op import Op
from ...tirx.stmt import BufferRegion
from ...tirx.tile_primitive import LambdaExpr, TilePrimitiveCall
from .doc import DictDoc, ExprStmtDoc, LambdaDoc, ListDoc, LiteralDoc, ScopeDoc
from .ir_docsifier import attr_path, item_path, register_printer

__all__ = []

#: The TVMScript namespace of each scope (thread scope prints through ``T.tile``).
_SCOPE_NAMESPACE = {"thread": "tile", "warp": "warp", "warpgroup": "wg", "cta": "cta",
                    "cluster": "cluster"}


def _callee(call, name, d):
    return d.prefix("T").attr(_SCOPE_NAMESPACE[call.scope.name]).attr(name)


def value_doc(value, path, d):
    """The doc of one operand or config value."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return LiteralDoc(value, path)
    if isinstance(value, Op):
        return d.prefix("I").attr("Op").call(LiteralDoc(value.name))
    if isinstance(value, (tuple, list)):
        return ListDoc([value_doc(v, item_path(path, i), d) for i, v in enumerate(value)])
    if isinstance(value, dict):
        keys = sorted(value)
        return DictDoc.from_lists([LiteralDoc(k) for k in keys],
                       [value_doc(value[k], attr_path(path, k), d) for k in keys])
    if isinstance(value, LambdaExpr):
        d.push_frame()
        try:
            params = [d.define(v, v.name or "i") for v in value.vars]
            body = d.as_doc(value.pred, attr_path(path, "pred"))
        finally:
            d.pop_frame()
        return LambdaDoc(params, body)
    return d.as_doc(value, path)


def _same_region(a, b) -> bool:
    return (isinstance(a, BufferRegion) and isinstance(b, BufferRegion)
            and a.buffer is b.buffer and structural_equal(a.region, b.region))


def _keywords(call, path, d, always_workspace: bool) -> dict:
    kwargs = {}
    if call.workspace or always_workspace:
        kwargs["workspace"] = value_doc(call.workspace, attr_path(path, "workspace"), d)
    if call.dispatch is not None:
        kwargs["dispatch"] = LiteralDoc(call.dispatch, attr_path(path, "dispatch"))
    config_path = attr_path(path, "config")
    for key in sorted(call.config):
        kwargs[key] = value_doc(call.config[key], attr_path(config_path, key), d)
    return kwargs


@register_printer(TilePrimitiveCall)
def _tile_primitive_call(call, path, d):
    args_path = attr_path(path, "args")
    if call.name == "compose_op":
        from .tirx_stmt_printer import _stmts

        body = []
        for i, inner in enumerate(call.args):
            body.extend(_stmts(inner, item_path(args_path, i), d, whole=False))
        kwargs = _keywords(call, path, d, always_workspace=False)
        return ScopeDoc(None, _callee(call, "compose_op", d).call(**kwargs), body)
    args = list(call.args)
    while args and args[-1] is None:
        args.pop()
    if len(args) == 2 and _same_region(args[0], args[1]):
        args = args[:1]
    docs = [value_doc(a, item_path(args_path, i), d) for i, a in enumerate(args)]
    return ExprStmtDoc(_callee(call, call.name, d).call(*docs, **_keywords(call, path, d, False)))
