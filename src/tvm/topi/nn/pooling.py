"""Pooling: ``pool2d`` (max/avg with padding, dilation, ``ceil_mode``, ``count_include_pad``,
NCHW or NHWC), ``adaptive_pool`` (avg/max), ``global_pool`` and ``pool_grad`` (the backward
of ``pool2d``).

Output extent per spatial axis: ``(extent + pad_before + pad_after - (dilation * (k - 1) + 1)
+ (stride - 1 if ceil_mode else 0)) // stride + 1``. A max window with no input element gives
the dtype's lowest finite value (``tirx.min_value``, as TVM; the Relax reference says
``-inf``); an average window divides by the number of positions
inside the padded input (``count_include_pad``) or inside the input, at least 1.

Static-shape windows that never reach the padding or past the input read it without a bounds
condition. ``pool_grad`` with non-overlapping windows (stride >= kernel, no dilation: the
usual 2x2/stride-2 max pool) is elementwise over the input, each position reading its one
window; overlapping windows loop over the kernel positions of every window.
"""

from __future__ import annotations

from ... import te, tirx
from ...tirx import generic as _g
from ..utils import (
    as_index,
    const_like,
    expand_tuple,
    get_const_int,
    is_const_int,
    reduce_axis,
    simplify,
)

__all__ = ["adaptive_pool", "global_pool", "layout_spatial_axes", "pool2d", "pool_grad", "pool_nd"]


def _hw(layout):
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"pool2d: layout must be 'NCHW' or 'NHWC', got {layout!r}")
    return layout.index("H"), layout.index("W")


class _Window:
    """Geometry of a 2-D pooling window: which input row/column a (output, kernel) pair hits."""

    def __init__(self, data, kernel, stride, dilation, padding, ceil_mode, layout):
        self.hax, self.wax = _hw(layout)
        self.h, self.w = data.shape[self.hax], data.shape[self.wax]
        self.kernel = expand_tuple(kernel, 2, "pool2d: pool_size")
        self.stride = expand_tuple(stride, 2, "pool2d: strides")
        self.dilation = expand_tuple(dilation, 2, "pool2d: dilation")
        pads = list(padding) if not is_const_int(padding) else [get_const_int(padding)] * 4
        pads = [get_const_int(p) for p in pads]
        if len(pads) == 2:
            pads = pads * 2
        if len(pads) != 4:
            raise ValueError(f"pool2d: padding needs 2 or 4 values, got {pads}")
        self.pads = pads  # top, left, bottom, right
        self.out = []
        for s, extent in enumerate((self.h, self.w)):
            dt = extent.dtype
            eff = self.dilation[s] * (self.kernel[s] - 1) + 1
            span = extent + const_like(pads[s] + pads[s + 2] - eff +
                                       (self.stride[s] - 1 if ceil_mode else 0), dt)
            self.out.append(simplify(_g.floordiv(span, const_like(self.stride[s], dt)) +
                                      const_like(1, dt)))

    def pos(self, s, out_index, k_index):
        """Input position (may be in the padding) of output ``out_index``, kernel ``k_index``."""
        dt = out_index.dtype
        return out_index * const_like(self.stride[s], dt) - const_like(self.pads[s], dt) + \
            as_index(k_index, dt) * const_like(self.dilation[s], dt)

    def fits(self):
        """Whether every window lies inside the input (static shapes, no padding reached)."""
        for s, extent in enumerate((self.h, self.w)):
            if not (is_const_int(extent) and is_const_int(self.out[s])):
                return False
            last = (get_const_int(self.out[s]) - 1) * self.stride[s] - self.pads[s] + \
                self.dilation[s] * (self.kernel[s] - 1)
            if self.pads[s] > 0 or last >= get_const_int(extent):
                return False
        return True

    def covered(self, s):
        """Whether every input position along axis ``s`` has a window at ``(p + pad) // stride``."""
        extent = (self.h, self.w)[s]
        if not (is_const_int(extent) and is_const_int(self.out[s])):
            return False
        return (get_const_int(extent) - 1 + self.pads[s]) // self.stride[s] < \
            get_const_int(self.out[s])

    def inside(self, s, p, low_pad=0, high_pad=0):
        extent = (self.h, self.w)[s]
        dt = p.dtype
        return _g.logical_and(_g.greater_equal(p, const_like(-low_pad, dt)),
                              _g.less(p, as_index(extent, dt) + const_like(high_pad, dt)))

    def count(self, count_include_pad):
        """``count[oh, ow]``: how many window positions the average divides by."""
        ra, rb = reduce_axis(self.kernel[0], "ra"), reduce_axis(self.kernel[1], "rb")
        dt = self.h.dtype

        def body(i, j):
            p, q = self.pos(0, i, ra.var), self.pos(1, j, rb.var)
            if count_include_pad:
                ok = _g.logical_and(self.inside(0, p, self.pads[0], self.pads[2]),
                                    self.inside(1, q, self.pads[1], self.pads[3]))
            else:
                ok = _g.logical_and(self.inside(0, p), self.inside(1, q))
            return te.sum(tirx.Select(ok, const_like(1, dt), const_like(0, dt)), axis=[ra, rb])

        return te.compute(tuple(self.out), body, name="pool_count")


def pool2d(data, kernel, stride, dilation, padding, pool_type, ceil_mode=False,
           layout="NCHW", count_include_pad=True):
    """2-D max or average pooling over the ``H`` and ``W`` axes of ``layout`` (``NCHW``,
    ``NHWC``, ``NCHW16c``...): :func:`pool_nd` (see there for the stages)."""
    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    axes = layout_spatial_axes(layout, "HW", "pool2d")
    pads = list(padding) if not is_const_int(padding) else [get_const_int(padding)] * 4
    if len(pads) == 2:
        pads = pads * 2
    if len(pads) != 4:
        raise ValueError(f"pool2d: padding needs 2 or 4 values, got {pads}")
    return pool_nd(data, expand_tuple(kernel, 2, "pool2d: pool_size"),
                   expand_tuple(stride, 2, "pool2d: strides"),
                   expand_tuple(dilation, 2, "pool2d: dilation"), pads, pool_type, ceil_mode,
                   axes, count_include_pad)


def layout_spatial_axes(layout, letters, op_name):
    """The positions of the primal axes ``letters`` (``"HW"``) in ``layout``, whose sub-axes
    (``16c`` of ``NCHW16c``) count as axes too; a split spatial axis is not supported."""
    axes, pos, i = {}, 0, 0
    while i < len(layout):
        ch = layout[i]
        if ch.isdigit():
            while i < len(layout) and layout[i].isdigit():
                i += 1
            continue
        if ch.isupper() and ch in letters:
            axes[ch] = pos
        elif ch.islower() and ch.upper() in letters:
            raise ValueError(f"{op_name}: layout {layout!r} splits the spatial axis "
                             f"{ch.upper()!r}, which is not supported")
        pos += 1
        i += 1
    if any(c not in axes for c in letters):
        raise ValueError(f"{op_name}: layout {layout!r} must contain the axes {letters!r}")
    return [axes[c] for c in letters]


def pool_nd(data, kernel, stride, dilation, padding, pool_type, ceil_mode, axes,
            count_include_pad=True):
    """Max or average pooling over the spatial ``axes`` of ``data``, staged as TVM's.

    ``padding`` holds the ``len(axes)`` leading then the ``len(axes)`` trailing widths. Padded
    inputs are materialized first (``pad_temp``, filled with the dtype's lowest value for max,
    zero for average; ``ceil_mode`` pads ``stride - 1`` more at the end); ``pool_max`` or
    ``pool_sum`` reduces over ``rv0, rv1...``; ``pool_avg`` divides by the number of window
    positions inside the padded input (``count_include_pad``) or inside the input, at least 1.
    """
    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool2d: pool_type must be 'max' or 'avg', got {pool_type!r}")
    k = len(axes)
    padding = list(padding)
    if len(padding) != 2 * k:
        raise ValueError(f"pool2d: padding needs {2 * k} values, got {padding}")
    shape = list(data.shape)
    dt = shape[axes[0]].dtype

    def c(v):
        return const_like(v, dt)

    kern = [get_const_int(v) for v in kernel]
    strd = [get_const_int(v) for v in stride]
    dil = [get_const_int(v) for v in dilation]
    head = [get_const_int(v) for v in padding[:k]]
    tail = [get_const_int(v) for v in padding[k:]]
    offset = [s - 1 if ceil_mode else 0 for s in strd]
    tail = [t + o for t, o in zip(tail, offset)]
    rv = [reduce_axis(c(kern[i]), f"rv{i}") for i in range(k)]
    before = [c(0)] * len(shape)
    after = [c(0)] * len(shape)
    out_shape = list(shape)
    for i, ax in enumerate(axes):
        before[ax], after[ax] = c(head[i]), c(tail[i])
        numerator = shape[ax] - c((kern[i] - 1) * dil[i] + 1 - head[i] - tail[i])
        out_shape[ax] = simplify(_g.floordiv(numerator, c(strd[i])) + c(1))
    do_pad = any(head) or any(tail)

    def window_index(out):
        idx = list(out)
        for i, ax in enumerate(axes):
            idx[ax] = out[ax] * c(strd[i]) + rv[i].var * c(dil[i])
        return idx

    if pool_type == "max":
        from .pad import pad  # lazy: pad sits beside pooling; one import direction

        temp = pad(data, before, after, tirx.min_value(data.dtype), name="pad_temp") \
            if do_pad else data
        return te.compute(tuple(out_shape), lambda *o: te.max(temp(*window_index(o)), axis=rv),
                          name="pool_max", tag="pool_max",
                          attrs={"schedule_rule": "meta_schedule.pool_max"})
    from .pad import pad  # lazy: as above

    temp = pad(data, before, after, 0.0, name="pad_temp") if do_pad else data
    total = te.compute(tuple(out_shape), lambda *o: te.sum(temp(*window_index(o)), axis=rv),
                       name="pool_sum", tag="pool_sum")

    def average(*o):
        count = None
        for i, ax in enumerate(axes):
            start = o[ax] * c(strd[i]) - c(head[i])
            end = start + c((kern[i] - 1) * dil[i])
            if count_include_pad:
                end = _g.min(end, shape[ax] + c(tail[i] - 1 - offset[i]))
                n = _g.truncdiv(end - start, c(dil[i])) + c(1)
            else:
                jumps = _g.truncdiv(c(dil[i] - 1) - start, c(dil[i]))
                jumps = _g.max(jumps, c(0))
                end = _g.min(end, shape[ax] - c(1))
                n = _g.truncdiv(end - (start + c(dil[i]) * jumps), c(dil[i])) + c(1)
            count = n if count is None else count * n
        if not count_include_pad:
            count = _g.max(count, c(1))
        return total(*o) / _g.cast(count, data.dtype)

    return te.compute(tuple(out_shape), average, name="pool_avg", tag="elemwise",
                      attrs={"schedule_rule": "meta_schedule.pool_avg"})


def _adaptive_bounds(o, out_extent, extent):
    """``[start, end)`` of adaptive window ``o``: ``floor(o*n/m)`` to ``ceil((o+1)*n/m)``."""
    dt = o.dtype
    n, m = as_index(extent, dt), as_index(out_extent, dt)
    start = _g.floordiv(o * n, m)
    end = _g.floordiv((o + const_like(1, dt)) * n + m - const_like(1, dt), m)
    return start, end


def _even_adaptive_pool(data, out, pool_type, axes):
    """Adaptive pooling whose windows tile the input (static extents, each a multiple of its
    output size), staged as TVM's: window ``o`` of an axis reads ``o * n // m + rv`` for
    ``rv < n // m``; the average divides the ``adaptive_pool_sum`` by the window size."""
    dt = data.shape[axes[0]].dtype
    windows = [get_const_int(data.shape[ax]) // get_const_int(m) for ax, m in zip(axes, out)]
    rv = [reduce_axis(const_like(k, dt), f"rv{i}") for i, k in enumerate(windows)]
    shape = list(data.shape)
    for ax, m in zip(axes, out):
        shape[ax] = m

    def window_index(o):
        idx = list(o)
        for i, ax in enumerate(axes):
            start = _g.floordiv(o[ax] * data.shape[ax], as_index(out[i], dt))
            idx[ax] = start + rv[i].var
        return idx

    if pool_type == "max":
        return te.compute(tuple(shape), lambda *o: te.max(data(*window_index(o)), axis=rv),
                          name="adaptive_pool_max", tag="adaptive_pool_max",
                          attrs={"schedule_rule": "meta_schedule.adaptive_pool_max"})
    total = te.compute(tuple(shape), lambda *o: te.sum(data(*window_index(o)), axis=rv),
                       name="adaptive_pool_sum", tag="adaptive_pool_sum")
    size = windows[0] * windows[1]

    def average(*o):
        return total(*o) if size == 1 else total(*o) / const_like(float(size), data.dtype)

    return te.compute(tuple(shape), average, name="adaptive_pool_avg", tag="elemwise",
                      attrs={"schedule_rule": "meta_schedule.adaptive_pool_avg"})


def adaptive_pool(data, output_size, pool_type, layout="NCHW"):
    """Adaptive 2-D pooling: output cell ``(i, j)`` pools rows ``floor(i*h/oh)`` to
    ``ceil((i+1)*h/oh)`` (same for columns); ``output_size`` ``None`` keeps the input size."""
    if pool_type not in ("max", "avg"):
        raise ValueError(f"adaptive_pool: pool_type must be 'max' or 'avg', got {pool_type!r}")
    hax, wax = layout_spatial_axes(layout, "HW", "adaptive_pool")
    h, w = data.shape[hax], data.shape[wax]
    if output_size is None:
        out = [h, w]
    else:
        sizes = [output_size] if is_const_int(output_size) else list(output_size)
        sizes = sizes * 2 if len(sizes) == 1 else sizes
        out = [h if s is None else as_index(s, h.dtype) for s in sizes]
    if all(is_const_int(n) and is_const_int(m) and get_const_int(n) % get_const_int(m) == 0
           for n, m in ((h, out[0]), (w, out[1]))):
        return _even_adaptive_pool(data, out, pool_type, (hax, wax))
    # A window spans at most ceil(n / m) + 1 positions; symbolic extents scan the whole axis.
    bounds = []
    for extent, m in ((h, out[0]), (w, out[1])):
        if is_const_int(extent) and is_const_int(m):
            n_, m_ = get_const_int(extent), get_const_int(m)
            bounds.append(min(n_, -(-n_ // m_) + 1))
        else:
            bounds.append(extent)
    ra, rb = reduce_axis(bounds[0], "ra"), reduce_axis(bounds[1], "rb")
    shape = list(data.shape)
    shape[hax], shape[wax] = out

    def window(i):
        (r0, r1), (c0, c1) = (_adaptive_bounds(i[hax], out[0], h),
                              _adaptive_bounds(i[wax], out[1], w))
        p, q = r0 + as_index(ra.var, r0.dtype), c0 + as_index(rb.var, c0.dtype)
        idx = list(i)
        idx[hax], idx[wax] = p, q
        return idx, _g.logical_and(_g.less(p, r1), _g.less(q, c1)), (r1 - r0) * (c1 - c0)

    if pool_type == "max":
        def body_max(*i):
            idx, ok, _ = window(i)
            return te.max(tirx.if_then_else(ok, data(*idx), tirx.min_value(data.dtype)),
                          axis=[ra, rb])

        return te.compute(tuple(shape), body_max, name="adaptive_pool_max",
                          tag="adaptive_pool_max")

    def body_sum(*i):
        idx, ok, _ = window(i)
        return te.sum(tirx.if_then_else(ok, data(*idx), const_like(0, data.dtype)),
                      axis=[ra, rb])

    total = te.compute(tuple(shape), body_sum, name="adaptive_pool_sum",
                       tag="adaptive_pool_sum")

    def average(*i):
        _, _, size = window(i)
        return total(*i) / _g.cast(size, data.dtype)

    return te.compute(tuple(shape), average, name="adaptive_pool_avg", tag="elemwise")


def global_pool(data, pool_type, layout="NCHW"):
    """Pooling over the whole spatial extent (output 1 x 1)."""
    return adaptive_pool(data, (1, 1), pool_type, layout)


def pool_grad(grads, data, kernel, stride, padding, pool_type, ceil_mode=False,
              count_include_pad=True, layout="NCHW", dilation=(1, 1)):
    """Gradient of :func:`pool2d` with respect to ``data``, given the output gradient.

    Max pooling routes each window's gradient to the window's first maximal input (in
    row-major kernel order); average pooling spreads it evenly over the inside positions,
    divided by the forward count. ``dilation`` is an extension of TVM's signature (Relax's
    pooling backward ops carry it).
    """
    if pool_type not in ("max", "avg"):
        raise ValueError(f"pool_grad: pool_type must be 'max' or 'avg', got {pool_type!r}")
    win = _Window(data, kernel, stride, dilation, padding, ceil_mode, layout)
    kh, kw = win.kernel
    if pool_type == "max":
        choice = _first_max(data, win)
    else:
        count = win.count(count_include_pad)
    if _disjoint(win):
        return _disjoint_grad(grads, win, choice if pool_type == "max" else count, pool_type,
                              data.shape)
    ra, rb = reduce_axis(kh, "ra"), reduce_axis(kw, "rb")

    def body(*i):
        r, s = i[win.hax], i[win.wax]
        dt = r.dtype
        conds, outs = [], []
        for axis, (p, k) in enumerate(((r, ra.var), (s, rb.var))):
            # Output o covers p when p = o * stride - pad + k * dilation.
            full = p + const_like(win.pads[axis], dt) - as_index(k, dt) * \
                const_like(win.dilation[axis], dt)
            st = const_like(win.stride[axis], dt)
            o = _g.floordiv(full, st)
            conds += [_g.equal(_g.floormod(full, st), const_like(0, dt)),
                      _g.greater_equal(full, const_like(0, dt)),
                      _g.less(o, as_index(win.out[axis], dt))]
            outs.append(o)
        ok = conds[0]
        for c in conds[1:]:
            ok = _g.logical_and(ok, c)
        idx = list(i)
        idx[win.hax], idx[win.wax] = outs
        g = grads(*idx)
        if pool_type == "max":
            flat = as_index(ra.var, dt) * const_like(kw, dt) + as_index(rb.var, dt)
            ok_max = _g.equal(choice(*idx), flat)
            value = tirx.if_then_else(ok, tirx.if_then_else(ok_max, g, const_like(0, g.dtype)),
                                      const_like(0, g.dtype))
        else:
            n = count(outs[0], outs[1])
            value = tirx.if_then_else(ok, g / _g.cast(_g.max(n, const_like(1, n.dtype)),
                                                      g.dtype), const_like(0, g.dtype))
        return te.sum(value, axis=[ra, rb])

    return te.compute(data.shape, body, name="pool_grad", tag="pool_grad")


def _first_max(data, win):
    """``choice[..., oh, ow]``: the row-major kernel offset of each window's first maximum."""
    maxed = _max_pool(data, win)
    ra, rb = reduce_axis(win.kernel[0], "ra"), reduce_axis(win.kernel[1], "rb")
    shape = list(data.shape)
    shape[win.hax], shape[win.wax] = win.out
    dt = win.h.dtype

    def body(*i):
        idx = list(i)
        p, q = win.pos(0, i[win.hax], ra.var), win.pos(1, i[win.wax], rb.var)
        idx[win.hax], idx[win.wax] = p, q
        if win.fits():
            hit = _g.equal(data(*idx), maxed(*i))
        else:
            ok = _g.logical_and(win.inside(0, p), win.inside(1, q))
            hit = _g.logical_and(ok, _g.equal(tirx.if_then_else(ok, data(*idx),
                                                                tirx.min_value(data.dtype)),
                                              maxed(*i)))
        flat = as_index(ra.var, dt) * const_like(win.kernel[1], dt) + as_index(rb.var, dt)
        return te.min(tirx.Select(hit, flat, tirx.max_value(dt)), axis=[ra, rb])

    return te.compute(tuple(shape), body, name="pool_argmax")


def _max_pool(data, win):
    """Max pooling with ``win``'s geometry (``pool2d`` and the routing of ``pool_grad``)."""
    ra, rb = reduce_axis(win.kernel[0], "ra"), reduce_axis(win.kernel[1], "rb")
    shape = list(data.shape)
    shape[win.hax], shape[win.wax] = win.out

    def body(*i):
        idx = list(i)
        p, q = win.pos(0, i[win.hax], ra.var), win.pos(1, i[win.wax], rb.var)
        idx[win.hax], idx[win.wax] = p, q
        if win.fits():
            return te.max(data(*idx), axis=[ra, rb])
        ok = _g.logical_and(win.inside(0, p), win.inside(1, q))
        return te.max(tirx.if_then_else(ok, data(*idx), tirx.min_value(data.dtype)),
                      axis=[ra, rb])

    return te.compute(tuple(shape), body, name="pool_max", tag="pool_max")


def _disjoint(win):
    """Whether each input position lies in at most one window (stride >= kernel, no dilation)."""
    return all(win.dilation[a] == 1 and win.stride[a] >= win.kernel[a] for a in (0, 1))


def _disjoint_grad(grads, win, table, pool_type, shape):
    """``pool_grad`` for non-overlapping windows: elementwise over the input.

    Input position ``p`` (``full = p + pad``) belongs to window ``full // stride`` at kernel
    offset ``full % stride`` (when that offset is inside the kernel and the window exists), so
    its gradient is read from that one window: no loop over the kernel positions, most of whose
    iterations would find nothing. ``table`` is the first-max choice (max) or the count (avg).
    """
    kw = win.kernel[1]

    def body(*i):
        dt = i[win.hax].dtype
        conds, outs, offs = [], [], []
        for axis, p in enumerate((i[win.hax], i[win.wax])):
            full = p + const_like(win.pads[axis], dt)
            st = const_like(win.stride[axis], dt)
            o, off = _g.floordiv(full, st), _g.floormod(full, st)
            if not win.covered(axis):
                conds.append(_g.less(o, as_index(win.out[axis], dt)))
            if win.stride[axis] > win.kernel[axis]:
                conds.append(_g.less(off, const_like(win.kernel[axis], dt)))
            outs.append(o)
            offs.append(off)
        idx = list(i)
        idx[win.hax], idx[win.wax] = outs
        g = grads(*idx)
        zero = const_like(0, g.dtype)
        if pool_type == "max":
            flat = offs[0] * const_like(kw, dt) + offs[1]
            conds.append(_g.equal(table(*idx), flat))
            value = g
        else:
            n = table(outs[0], outs[1])
            value = g / _g.cast(_g.max(n, const_like(1, n.dtype)), g.dtype)
        if not conds:
            return value
        ok = conds[0]
        for c in conds[1:]:
            ok = _g.logical_and(ok, c)
        return tirx.if_then_else(ok, value, zero)

    return te.compute(shape, body, name="pool_grad", tag="pool_grad")
