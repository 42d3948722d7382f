"""TVMScript printing of ``tirx.CommReducer`` (the ``reduce_scope`` attribute's node).

Prints as TVM 0.27 does: ``T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)])``.
Parsing it back is not supported yet.
"""

from __future__ import annotations

from ...tirx.reduction import CommReducer
from .doc import LambdaDoc, ListDoc
from .ir_docsifier import attr_path, register_printer


@register_printer(CommReducer)
def _comm_reducer(node, path, d):
    d.push_frame()
    try:
        args = [d.define(v, v.name or "x") for v in (*node.lhs, *node.rhs)]
        results = [d.as_doc(r, attr_path(path, "result")) for r in node.result]
        body = results[0] if len(results) == 1 else ListDoc(results)
    finally:
        d.pop_frame()
    identity = ListDoc([d.as_doc(e, attr_path(path, "identity_element"))
                        for e in node.identity_element])
    return d.prefix("T").attr("comm_reducer").call(LambdaDoc(args, body), identity)
