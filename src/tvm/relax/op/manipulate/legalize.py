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


for _name in ("reshape", "flatten"):
    register_legalize(f"relax.{_name}", _to_out_shape(_name))


def _insert_remove_axes(call, name, keep):
    """A te compute mapping output indices to input indices, for ``expand_dims`` (``keep``:
    the output axes read from the input) and ``squeeze`` (``keep``: the input axes kept).
    Direct indexing (no reshape arithmetic) keeps the kernel a broadcast, as in TVM."""
    out_shape = list(call.ty.shape.values)

    def compute(x):
        zero = tirx.const(0, "int64")
        if name == "expand_dims":
            return te.compute(out_shape, lambda *o: x(*[o[k] for k in keep]), name="T_expand_dims")

        def body(*o):
            it = iter(o)
            return x(*[next(it) if k in keep else zero for k in range(len(x.shape))])

        return te.compute(out_shape, body, name="T_squeeze")

    compute.__name__ = name
    return compute


@register_legalize("relax.expand_dims")
def _expand_dims(bb, call):
    out_ndim = call.ty.ndim
    new_axes = {int(a) % out_ndim for a in call.attrs.axis}
    keep = [k for k in range(out_ndim) if k not in new_axes]
    te_fn = _insert_remove_axes(call, "expand_dims", keep)
    return bb.call_te(te_fn, call.args[0], primfunc_name_hint="expand_dims")


@register_legalize("relax.squeeze")
def _squeeze(bb, call):
    x = call.args[0]
    shape = list(x.ty.shape.values)
    axis = call.attrs.axis
    if axis is None:
        removed = {k for k, d in enumerate(shape) if getattr(d, "value", d) == 1}
    else:
        removed = {int(a) % len(shape) for a in axis}
    keep = {k for k in range(len(shape)) if k not in removed}
    te_fn = _insert_remove_axes(call, "squeeze", keep)
    return bb.call_te(te_fn, x, primfunc_name_hint="squeeze")


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
    """te function of ``layout_transform`` (``out[index_map(i)] = x[i]``).

    A map that only permutes the input indices is inverted directly. Any other map (a split
    such as ``(a, b // 4, b % 4)``) is computed as a gather over every input position,
    ``out[j] = sum_i (map(i) == j) * x[i]``, with ``pad_value`` where no input lands: correct,
    but O(input size x output size), so meant for small tensors until index maps can be
    inverted.
    """

    def layout_transform(x):
        ndim = len(x.shape)
        probe = [tirx.Var(f"i{k}", "int64") for k in range(ndim)]
        mapped = list(index_map.map_indices(probe))
        if len(mapped) == ndim and all(any(m is p for p in probe) for m in mapped):
            order = [next(k for k, p in enumerate(probe) if p is m) for m in mapped]
            inverse = [order.index(k) for k in range(ndim)]
            return te.compute(
                out_shape,
                lambda *o: x(*[o[inverse[k]] for k in range(ndim)]),
                name="T_layout_trans",
            )

        def hit(axes, out_index):
            target = index_map.map_indices([a.var for a in axes])
            return functools.reduce(
                operator.and_, [tirx.EQ(t, v) for t, v in zip(target, out_index)]
            )

        def gather(*o):
            axes = [reduce_axis(d, f"r{k}") for k, d in enumerate(x.shape)]
            zero = tirx.const(0, x.dtype)
            return te.sum(tirx.Select(hit(axes, o), x(*axes), zero), axis=axes)

        values = te.compute(out_shape, gather, name="T_layout_trans_gather")
        if pad_value is None:
            return values

        def count(*o):
            axes = [reduce_axis(d, f"c{k}") for k, d in enumerate(x.shape)]
            one, zero = tirx.const(1, "int32"), tirx.const(0, "int32")
            return te.sum(tirx.Select(hit(axes, o), one, zero), axis=axes)

        hits = te.compute(out_shape, count, name="T_layout_trans_hits")
        pad = tirx.const(pad_value.value, x.dtype) if hasattr(pad_value, "value") else pad_value
        return te.compute(
            out_shape,
            lambda *o: tirx.Select(hits(*o) > 0, values(*o), pad.astype(x.dtype)),
            name="T_layout_trans",
        )

    return layout_transform


def _layout_transform_inverse_te(index_map, in_shape, out_shape, pad_value):
    """te function of ``layout_transform`` through the map's inverse (None if it has none).

    ``out[j] = x[inverse(j)]``, and ``pad_value`` (0 when None) where ``inverse(j)`` is out
    of the input's bounds. O(output size), unlike the gather of ``_layout_transform_te``.
    """
    try:
        inverse, padding = index_map.non_surjective_inverse(in_shape)
    except ValueError:
        return None

    def layout_transform(x):
        def body(*o):
            vmap = dict(zip(inverse.initial_indices, o))
            idx = [tirx.stmt_functor.substitute(f, vmap) for f in inverse.final_indices]
            if isinstance(padding, tirx.IntImm) and not padding.value:
                return x(*idx)
            fill = pad_value if pad_value is not None else tirx.const(0, x.dtype)
            cond = tirx.stmt_functor.substitute(padding, vmap)
            # if_then_else: padding positions would read past the input's end.
            return tirx.if_then_else(cond, fill, x(*idx))

        return te.compute(out_shape, body, name="T_layout_trans")

    return layout_transform


@register_legalize("relax.layout_transform")
def _layout_transform(bb, call):
    index_map = call.attrs.index_map
    if isinstance(index_map, tirx.IndexMap):
        te_fn = _layout_transform_inverse_te(
            index_map,
            list(call.args[0].ty.shape.values),
            list(call.ty.shape.values),
            call.attrs.pad_value,
        )
        if te_fn is not None:
            return bb.call_te(te_fn, call.args[0], primfunc_name_hint="te_layout_transform")
        # A map the inversion does not handle: the gather of _layout_transform_te.
    te_fn = _layout_transform_te(index_map, list(call.ty.shape.values), call.attrs.pad_value)
    return bb.call_te(te_fn, call.args[0], primfunc_name_hint="te_layout_transform")
