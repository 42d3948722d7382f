"""Legalization rules of the search family (``argmax``, ``sort``, ``topk``, ...)."""

from __future__ import annotations

from .... import topi
from ...transform.legalize_ops.common import register_legalize


def _arg_reduction(topi_fn):
    def rule(bb, call):
        axis = call.attrs.axis
        return bb.call_te(
            topi_fn,
            call.args[0],
            None if axis is None else int(axis),
            bool(call.attrs.keepdims),
            primfunc_name_hint=topi_fn.__name__,
        )

    return rule


register_legalize("relax.argmax", _arg_reduction(topi.argmax))
register_legalize("relax.argmin", _arg_reduction(topi.argmin))


@register_legalize("relax.sort")
def _sort(bb, call):
    return bb.call_te(
        topi.sort,
        call.args[0],
        int(call.attrs.axis),
        not call.attrs.descending,
        primfunc_name_hint="sort",
    )


@register_legalize("relax.argsort")
def _argsort(bb, call):
    return bb.call_te(
        topi.argsort,
        call.args[0],
        axis=int(call.attrs.axis),
        is_ascend=not call.attrs.descending,
        dtype=call.attrs.dtype,
        primfunc_name_hint="argsort",
    )


@register_legalize("relax.topk")
def _topk(bb, call):
    attrs = call.attrs
    return bb.call_te(
        topi.topk,
        call.args[0],
        int(attrs.k),
        int(attrs.axis),
        attrs.ret_type,
        not attrs.largest,
        attrs.dtype,
        primfunc_name_hint="topk",
    )
