"""Legalization rules of the manipulate family (reshape, concat, split, gather, ...).

Shape-changing ops that keep the element order (``reshape``, ``expand_dims``, ``squeeze``,
``flatten``) all become a ``topi.reshape`` to the call's inferred output shape.
"""

from __future__ import annotations

import functools
import operator

from .... import te, tirx, topi
from ...transform.legalize_ops.common import (
    prim_value,
    reduce_axis,
    register_legalize,
    shape_values,
    tuple_fields,
)


def _numel(expr):
    """The element count of a tensor expression of known shape (symbolic dims multiply)."""
    return functools.reduce(operator.mul, list(expr.ty.shape.values), 1)


def _to_out_shape(name):
    def rule(bb, call):
        shape = list(call.ty.shape.values)
        return bb.call_te(topi.reshape, call.args[0], shape, primfunc_name_hint=name)

    return rule


for _name in ("reshape", "expand_dims", "squeeze", "flatten"):
    register_legalize(f"relax.{_name}", _to_out_shape(_name))


@register_legalize("relax.permute_dims")
def _permute_dims(bb, call):
    axes = call.attrs.axes
    axes = None if axes is None else [int(a) for a in axes]
    return bb.call_te(topi.transpose, call.args[0], axes, primfunc_name_hint="transpose")


@register_legalize("relax.broadcast_to")
def _broadcast_to(bb, call):
    shape = shape_values(call.args[1])
    return bb.call_te(topi.broadcast_to, call.args[0], shape, primfunc_name_hint="broadcast_to")


@register_legalize("relax.concat")
def _concat(bb, call):
    fields = tuple_fields(call.args[0])
    axis = 0 if call.attrs.axis is None else int(call.attrs.axis)
    if call.attrs.axis is None:
        # axis=None concatenates the flattened tensors.
        fields = [
            bb.emit_te(topi.reshape, f, [_numel(f)], primfunc_name_hint="reshape") for f in fields
        ]
    return bb.call_te(topi.concatenate, fields, axis, primfunc_name_hint="concatenate")


@register_legalize("relax.stack")
def _stack(bb, call):
    fields = tuple_fields(call.args[0])
    return bb.call_te(topi.stack, fields, int(call.attrs.axis), primfunc_name_hint="stack")


@register_legalize("relax.split")
def _split(bb, call):
    spec = call.attrs.indices_or_sections
    spec = int(spec) if isinstance(spec, int) else [int(i) for i in spec]
    return bb.call_te(
        topi.split, call.args[0], spec, int(call.attrs.axis), primfunc_name_hint="split"
    )


@register_legalize("relax.collapse_sum_like")
def _collapse_sum_like(bb, call):
    target = list(call.args[1].ty.shape.values)
    return bb.call_te(topi.collapse_sum, call.args[0], target, primfunc_name_hint="collapse_sum")


@register_legalize("relax.collapse_sum_to")
def _collapse_sum_to(bb, call):
    target = shape_values(call.args[1])
    return bb.call_te(topi.collapse_sum, call.args[0], target, primfunc_name_hint="collapse_sum")


@register_legalize("relax.repeat")
def _repeat(bb, call):
    axis = call.attrs.axis
    x = call.args[0]
    if axis is None:
        # axis=None repeats the flattened tensor.
        x = bb.emit_te(topi.reshape, x, [_numel(x)], primfunc_name_hint="reshape")
        axis = 0
    return bb.call_te(
        topi.repeat, x, int(call.attrs.repeats), int(axis), primfunc_name_hint="repeat"
    )


@register_legalize("relax.tile")
def _tile(bb, call):
    reps = [int(r) for r in call.attrs.repeats]
    return bb.call_te(topi.tile, call.args[0], reps, primfunc_name_hint="tile")


@register_legalize("relax.flip")
def _flip(bb, call):
    return bb.call_te(topi.flip, call.args[0], int(call.attrs.axis), primfunc_name_hint="flip")


@register_legalize("relax.gather_elements")
def _gather_elements(bb, call):
    data, indices = call.args
    return bb.call_te(
        topi.gather_elements,
        data,
        indices,
        int(call.attrs.axis),
        primfunc_name_hint="gather_elements",
    )


@register_legalize("relax.scatter_elements")
def _scatter_elements(bb, call):
    data, indices, updates = call.args
    return bb.call_te(
        topi.scatter_elements,
        data,
        indices,
        updates,
        int(call.attrs.axis),
        call.attrs.reduction,
        primfunc_name_hint="scatter_elements",
    )


@register_legalize("relax.one_hot")
def _one_hot(bb, call):
    indices, on_value, off_value = call.args
    return bb.call_te(
        topi.one_hot,
        indices,
        prim_value(on_value),
        prim_value(off_value),
        int(call.attrs.depth),
        int(call.attrs.axis),
        call.ty.dtype,
        primfunc_name_hint="one_hot",
    )


def _layout_transform_te(index_map, out_shape, pad_value):
    """te function of ``layout_transform``.

    A map that only permutes the input indices is inverted directly. Any other map (a split
    such as ``(a, b // 4, b % 4)``) is computed as a gather over every input position,
    ``out[j] = sum_i (map(i) == j) * x[i]``: correct, but O(input size x output size), so
    meant for small tensors only until index-map inversion exists.
    """

    def layout_transform(x):
        probe = [tirx.Var(f"i{k}", "int64") for k in range(len(x.shape))]
        mapped = list(index_map(*probe))
        if all(any(m is p for p in probe) for m in mapped) and len(mapped) == len(probe):
            order = [next(k for k, p in enumerate(probe) if p is m) for m in mapped]
            inverse = [order.index(k) for k in range(len(probe))]
            return te.compute(
                out_shape,
                lambda *o: x(*[o[inverse[k]] for k in range(len(probe))]),
                name="T_layout_trans",
            )
        axes = [reduce_axis(d, f"r{k}") for k, d in enumerate(x.shape)]

        def gather(*o):
            target = index_map(*[a.var for a in axes])
            hit = functools.reduce(operator.and_, [tirx.EQ(t, v) for t, v in zip(target, o)])
            zero = tirx.const(0, x.dtype)
            return te.sum(tirx.Select(hit, x(*axes), zero), axis=axes)

        if pad_value is not None:
            raise ValueError(
                "LegalizeOps: layout_transform with a non-bijective map and pad_value is not "
                "supported yet (src/tvm/relax/op/manipulate/legalize.py)"
            )
        return te.compute(out_shape, gather, name="T_layout_trans")

    return layout_transform


@register_legalize("relax.layout_transform")
def _layout_transform(bb, call):
    te_fn = _layout_transform_te(
        call.attrs.index_map, list(call.ty.shape.values), call.attrs.pad_value
    )
    return bb.call_te(te_fn, call.args[0], primfunc_name_hint="te_layout_transform")
