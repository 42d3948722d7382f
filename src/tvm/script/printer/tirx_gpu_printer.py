"""TVMScript printing of ``tirx.CommReducer`` (the ``reduce_scope`` attribute's node) and of
``Target`` attribute values.

Prints as TVM 0.27 does: ``T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)])``.
``T.comm_reducer`` (``tvm.script.parser.tirx.builders``) parses it back.
"""

from __future__ import annotations

from ...target import Target
from ...tirx.reduction import CommReducer
from .doc import DictDoc, LambdaDoc, ListDoc, LiteralDoc, TupleDoc
from .ir_docsifier import attr_path, register_printer


@register_printer(CommReducer)
def _comm_reducer(node, path, d):
    d.push_frame()
    try:
        args = [d.define(v, v.name or "x") for v in (*node.lhs, *node.rhs)]
        results = [d.as_doc(r, attr_path(path, "result")) for r in node.result]
        body = results[0] if len(results) == 1 else TupleDoc(results)
    finally:
        d.pop_frame()
    identity = ListDoc([d.as_doc(e, attr_path(path, "identity_element"))
                        for e in node.identity_element])
    return d.prefix("T").attr("comm_reducer").call(LambdaDoc(args, body), identity)


def _config_doc(value):
    """A target option as a doc: dicts with sorted keys (the nested ``host`` too), lists."""
    if isinstance(value, dict):
        keys = sorted(value)
        return DictDoc.from_lists(
            [LiteralDoc(k) for k in keys], [_config_doc(value[k]) for k in keys]
        )
    if isinstance(value, (list, tuple)):
        return ListDoc([_config_doc(v) for v in value])
    if isinstance(value, Target):
        return _config_doc(value.export())
    if value is None or isinstance(value, (bool, int, float, str)):
        return LiteralDoc(value)
    return LiteralDoc(str(value))


@register_printer(Target)
def _target(node, path, d):
    """``T.target({"kind": "llvm", ...})``: the exported options, keys sorted (as TVM 0.27
    prints a function's ``"target"`` attribute); ``T.target`` parses it back."""
    return d.prefix("T").attr("target").call(_config_doc(node.export()))
