"""Lowering (LegalizeOps) of the 1-D and 3-D pooling ops (imported by ``legalize.py``).

Pooling over any number of spatial axes, written with te for unpacked layouts (any
permutation of ``NCW`` / ``NCDHW``): the window of output position ``o`` along an axis covers
input positions ``o * stride - pad_before + k * dilation`` for ``k < pool_size``. Positions
outside the input take no part in a maximum (the dtype's lowest value stands in) and count in
an average only with ``count_include_pad`` (and only within the padding); a window with no
position divides by 1. Adaptive pooling averages input positions ``floor(o * n / m)`` to
``ceil((o + 1) * n / m)``. The result is computed in the data layout and transposed to
``out_layout``. Packed layouts (``NCW16c``) are not lowered yet (LegalizeOps raises).
"""

from __future__ import annotations

from .... import te, tirx, topi
from ....tirx import generic as _g
from ...transform.legalize_ops.common import register_legalize

__all__ = []

_PRIMAL = {1: "NCW", 3: "NCDHW"}


def _check_unpacked(layout, out_layout, name):
    for lay in (layout, out_layout):
        if not lay.isupper():
            raise ValueError(
                f"LegalizeOps: relax.nn.{name} with the packed layout {lay!r} is not supported "
                "yet (unpacked layouts such as NCW/NWC only)"
            )


def _to_layout(bb_tensor, layout, out_layout):
    """Transpose a te tensor from ``layout`` to ``out_layout`` (no-op when equal)."""
    if layout == out_layout:
        return bb_tensor
    return topi.transpose(bb_tensor, [layout.index(c) for c in out_layout])


def _idx(value, dtype):
    return tirx.const(value, dtype) if isinstance(value, int) else value


def _window_pool(data, attrs, kind, out_extents):
    """Max/avg pooling of te tensor ``data`` in ``attrs.layout``; ``out_extents`` maps each
    spatial axis letter to its (inferred) output extent."""
    layout = attrs.layout
    spatial = _PRIMAL[len(attrs.pool_size)][2:]
    axes = [layout.index(a) for a in spatial]
    nsp = len(spatial)
    shape = list(data.shape)
    for a, ax in zip(spatial, axes):
        shape[ax] = out_extents[a]
    rs = [te.reduce_axis((0, int(k)), f"r{a.lower()}") for a, k in zip(spatial, attrs.pool_size)]
    dtype = data.dtype

    def positions(i, raxes):
        idx, inside, in_pad = list(i), [], []
        for s, ax in enumerate(axes):
            dt = i[ax].dtype
            extent = _idx(data.shape[ax], dt)
            pos = (i[ax] * _idx(int(attrs.strides[s]), dt) - _idx(int(attrs.padding[s]), dt)
                   + _g.cast(raxes[s].var, dt) * _idx(int(attrs.dilation[s]), dt))
            idx[ax] = pos
            inside.append(_g.logical_and(_g.greater_equal(pos, _idx(0, dt)),
                                         _g.less(pos, extent)))
            lo = _idx(-int(attrs.padding[s]), dt)
            hi = extent + _idx(int(attrs.padding[s + nsp]), dt)
            in_pad.append(_g.logical_and(_g.greater_equal(pos, lo), _g.less(pos, hi)))
        return idx, _all(inside), _all(in_pad)

    if kind == "max":
        def body_max(*i):
            idx, ok, _ = positions(i, rs)
            return te.max(tirx.if_then_else(ok, data(*idx), tirx.min_value(dtype)), axis=rs)

        return te.compute(tuple(shape), body_max, name="pool_max")

    def body_sum(*i):
        idx, ok, _ = positions(i, rs)
        return te.sum(tirx.if_then_else(ok, data(*idx), tirx.const(0, dtype)), axis=rs)

    total = te.compute(tuple(shape), body_sum, name="pool_sum")
    count_rs = [te.reduce_axis((0, int(k)), f"c{a.lower()}")
                for a, k in zip(spatial, attrs.pool_size)]

    def body_count(*i):
        _, ok, in_pad = positions(i, count_rs)
        cond = in_pad if attrs.count_include_pad else ok
        one, zero = tirx.const(1, "int32"), tirx.const(0, "int32")
        return te.sum(tirx.Select(cond, one, zero), axis=count_rs)

    count = te.compute(tuple(shape), body_count, name="pool_count")

    def average(*i):
        n = _g.max(count(*i), tirx.const(1, "int32"))
        return total(*i) / _g.cast(n, dtype)

    return te.compute(tuple(shape), average, name="pool_avg")


def _all(conds):
    out = conds[0]
    for c in conds[1:]:
        out = _g.logical_and(out, c)
    return out


def _adaptive_avg(data, attrs, out_extents):
    """Adaptive average pooling of te tensor ``data`` (static input extents)."""
    layout = attrs.layout
    spatial = _PRIMAL[3 if len(layout) == 5 else 1][2:]
    axes = [layout.index(a) for a in spatial]
    shape = list(data.shape)
    bounds = []
    for a, ax in zip(spatial, axes):
        n, m = int(data.shape[ax]), int(out_extents[a])
        shape[ax] = out_extents[a]
        bounds.append(min(n, -(-n // m) + 1))
    rs = [te.reduce_axis((0, b), f"r{a.lower()}") for a, b in zip(spatial, bounds)]

    def window(i):
        idx, ok, size = list(i), [], None
        for s, ax in enumerate(axes):
            dt = i[ax].dtype
            n, m = _idx(int(data.shape[ax]), dt), _idx(int(out_extents[spatial[s]]), dt)
            start = _g.floordiv(i[ax] * n, m)
            end = _g.floordiv((i[ax] + _idx(1, dt)) * n + m - _idx(1, dt), m)
            pos = start + _g.cast(rs[s].var, dt)
            idx[ax] = pos
            ok.append(_g.less(pos, end))
            size = (end - start) if size is None else size * (end - start)
        return idx, _all(ok), size

    def body_sum(*i):
        idx, ok, _ = window(i)
        return te.sum(tirx.if_then_else(ok, data(*idx), tirx.const(0, data.dtype)), axis=rs)

    total = te.compute(tuple(shape), body_sum, name="adaptive_pool_sum")

    def average(*i):
        return total(*i) / _g.cast(window(i)[2], data.dtype)

    return te.compute(tuple(shape), average, name="adaptive_pool_avg")


def _out_extents(call):
    """``{axis: extent}`` of the call's inferred output (in its out_layout)."""
    values = list(call.ty.shape.values)
    return {a: values[k] for k, a in enumerate(call.attrs.out_layout)}


def _pool_rule(kind, name):
    def rule(bb, call):
        attrs = call.attrs
        _check_unpacked(attrs.layout, attrs.out_layout, name)
        ext = _out_extents(call)

        def compute(x):
            return _to_layout(_window_pool(x, attrs, kind, ext), attrs.layout, attrs.out_layout)

        return bb.call_te(compute, call.args[0], primfunc_name_hint=name)

    return rule


def _adaptive_rule(name):
    def rule(bb, call):
        attrs = call.attrs
        _check_unpacked(attrs.layout, attrs.out_layout, name)
        ext = _out_extents(call)
        data_ty = call.args[0].ty
        if data_ty.shape is None or not all(
            isinstance(getattr(d, "value", None), int) for d in data_ty.shape.values
        ):
            raise ValueError(
                f"LegalizeOps: relax.nn.{name} needs a static input shape (symbolic extents "
                "are not supported yet)"
            )

        def compute(x):
            return _to_layout(_adaptive_avg(x, attrs, ext), attrs.layout, attrs.out_layout)

        return bb.call_te(compute, call.args[0], primfunc_name_hint=name)

    return rule


for _d in (1, 3):
    register_legalize(f"relax.nn.max_pool{_d}d", _pool_rule("max", f"max_pool{_d}d"))
    register_legalize(f"relax.nn.avg_pool{_d}d", _pool_rule("avg", f"avg_pool{_d}d"))
    register_legalize(f"relax.nn.adaptive_avg_pool{_d}d", _adaptive_rule(f"adaptive_pool{_d}d"))
