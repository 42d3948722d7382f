"""Shape manipulation computes: reshape, transpose, expand_dims, squeeze, concatenate, stack,
split, broadcast_to, repeat, tile, flip, collapse_sum, layout_transform.

Every function is a pure index remapping (``out[i] = a[f(i)]``) except ``collapse_sum``, which
sums the broadcast axes. Shapes may be symbolic where the remapping allows it.
"""

from __future__ import annotations

import math

from .. import te, tirx
from ..tirx import generic as _g
from .broadcast import broadcast_index, broadcast_shape
from .utils import (
    as_index,
    compute,
    const_like,
    get_const_int,
    is_const_int,
    normalize_axes,
    normalize_axis,
    reduce_axis,
    shape_dtype,
    simplify,
)

__all__ = [
    "broadcast_to", "collapse_sum", "concatenate", "expand_dims", "flatten", "flip",
    "layout_transform", "layout_transform_index_map", "matmul", "repeat", "reshape", "split", "squeeze", "stack", "tile", "transpose",
]


def _dim(value, dtype):
    return as_index(value, dtype)


def _product(dims, dtype):
    total = const_like(1, dtype)
    for d in dims:
        total = total * _dim(d, dtype)
    return total


def _const_product(dims) -> int:
    """The product of constant extents, as a Python int."""
    return math.prod(get_const_int(d) for d in dims)


def ravel_index(indices, shape, dtype):
    """The row-major flat position of ``indices`` in ``shape``."""
    flat = const_like(0, dtype)
    for i, dim in zip(indices, shape):
        flat = flat * _dim(dim, dtype) + _dim(i, dtype)
    return flat


def unravel_index(flat, shape, dtype):
    """The row-major ``indices`` of ``flat`` in ``shape``."""
    out = []
    for dim in reversed(list(shape)):
        d = _dim(dim, dtype)
        out.append(_g.floormod(flat, d))
        flat = _g.floordiv(flat, d)
    return tuple(reversed(out))


def _infer_newshape(a, newshape):
    dtype = shape_dtype(a.shape)
    newshape = list(newshape)
    minus = [i for i, s in enumerate(newshape) if is_const_int(s) and get_const_int(s) == -1]
    if len(minus) > 1:
        raise ValueError(f"reshape: at most one -1 in the new shape, got {newshape}")
    if minus:
        known = [s for i, s in enumerate(newshape) if i != minus[0]]
        if not all(is_const_int(s) for s in list(a.shape) + known):
            raise ValueError("reshape: -1 needs constant extents (symbolic shapes: give them)")
        total, part = _const_product(a.shape), _const_product(known)
        if part == 0 or total % part:
            raise ValueError(f"reshape: cannot reshape {list(a.shape)} to {newshape}")
        newshape[minus[0]] = total // part
    out = tuple(_dim(s, dtype) for s in newshape)
    if all(is_const_int(s) for s in list(a.shape) + list(out)):
        src, dst = _const_product(a.shape), _const_product(out)
        if src != dst:
            raise ValueError(f"reshape: cannot reshape {list(a.shape)} ({src} elements) to "
                             f"{[get_const_int(s) for s in out]} ({dst} elements)")
    return out


def reshape(a, newshape):
    """``a`` with the same row-major elements in shape ``newshape`` (one -1 may be inferred)."""
    shape = _infer_newshape(a, newshape)
    dtype = shape_dtype(list(a.shape) + list(shape))

    def body(*i):
        flat = ravel_index(i, shape, dtype)
        return a(*[as_index(v, a.shape[k].dtype) for k, v in
                   enumerate(unravel_index(flat, a.shape, dtype))])

    return compute(shape, body, name="T_reshape", tag="injective")


def flatten(a):
    """``a`` as a 1-D tensor (Relax's ``flatten``; ``topi.nn.flatten`` keeps the batch axis)."""
    return reshape(a, (_product(a.shape, shape_dtype(a.shape)),))


def transpose(a, axes=None):
    """``a`` with its axes permuted (``axes=None`` reverses them)."""
    ndim = a.ndim
    if axes is None:
        axes = list(range(ndim - 1, -1, -1))
    axes = [normalize_axis(x, ndim, "transpose") for x in axes]
    if sorted(axes) != list(range(ndim)):
        raise ValueError(f"transpose: axes {list(axes)} are not a permutation of {ndim} axes")
    shape = tuple(a.shape[x] for x in axes)

    def body(*i):
        idx = [None] * ndim
        for out_pos, src in enumerate(axes):
            idx[src] = i[out_pos]
        return a(*idx)

    return compute(shape, body, name="T_transpose", tag="injective")


def expand_dims(a, axis, num_newaxis=1):
    """``a`` with ``num_newaxis`` extent-1 axes inserted at ``axis`` (a list inserts at each).

    A list of axes (Relax's ``expand_dims``) names positions in the output.
    """
    dtype = shape_dtype(a.shape)
    if isinstance(axis, (list, tuple)):
        out_ndim = a.ndim + len(axis)
        new = normalize_axes(axis, out_ndim, "expand_dims")
    else:
        axis = get_const_int(axis)
        if not -a.ndim - 1 <= axis <= a.ndim:
            raise ValueError(f"expand_dims: axis {axis} out of range for {a.ndim}-D input")
        start = axis % (a.ndim + 1)
        new = list(range(start, start + num_newaxis))
        out_ndim = a.ndim + num_newaxis
    shape, src_pos = [], []
    it = iter(a.shape)
    for d in range(out_ndim):
        if d in new:
            shape.append(const_like(1, dtype))
        else:
            shape.append(next(it))
            src_pos.append(d)
    return compute(tuple(shape), lambda *i: a(*[i[d] for d in src_pos]),
                      name="T_expand_dims", tag="broadcast")


def squeeze(a, axis=None):
    """``a`` without extent-1 axes (all of them, or those in ``axis``).

    As Relax's ``squeeze``, a listed axis whose extent is a constant other than 1 is kept; a
    listed symbolic extent is assumed to be 1.
    """
    if axis is None:
        drop = [d for d, s in enumerate(a.shape) if is_const_int(s) and get_const_int(s) == 1]
    else:
        drop = [d for d in normalize_axes(axis, a.ndim, "squeeze")
                if not is_const_int(a.shape[d]) or get_const_int(a.shape[d]) == 1]
    keep = [d for d in range(a.ndim) if d not in drop]
    shape = tuple(a.shape[d] for d in keep)

    def body(*i):
        idx = [const_like(0, a.shape[d].dtype) for d in range(a.ndim)]
        for pos, d in enumerate(keep):
            idx[d] = i[pos]
        return a(*idx)

    return compute(shape, body, name="T_squeeze", tag="injective")


def concatenate(a_tuple, axis=0):
    """The tensors of ``a_tuple`` joined along ``axis`` (other extents must agree)."""
    tensors = list(a_tuple)
    if not tensors:
        raise ValueError("concatenate needs at least one tensor")
    ndim = tensors[0].ndim
    axis = normalize_axis(axis, ndim, "concatenate")
    dtype = shape_dtype(tensors[0].shape)
    offsets, total = [], const_like(0, dtype)
    for t in tensors:
        if t.ndim != ndim:
            raise ValueError(f"concatenate: tensors have {ndim} and {t.ndim} dimensions")
        offsets.append(total)
        total = simplify(total + _dim(t.shape[axis], dtype))
    shape = list(tensors[0].shape)
    shape[axis] = total

    def body(*i):
        pos = _dim(i[axis], dtype)
        value = None
        # Last tensor first: each earlier tensor takes the positions below its end.
        for t, off in reversed(list(zip(tensors, offsets))):
            idx = list(i)
            idx[axis] = as_index(pos - off, t.shape[axis].dtype)
            load = t(*idx)
            # if_then_else, not Select: the other tensors' loads would be out of bounds.
            value = load if value is None else tirx.if_then_else(
                _g.less(pos, off + _dim(t.shape[axis], dtype)), load, value)
        return value

    return compute(tuple(shape), body, name="T_concat", tag="injective")


def stack(tensors, axis=0):
    """The tensors (of one shape) stacked along a new axis ``axis``."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    ndim = tensors[0].ndim
    axis = get_const_int(axis)
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"stack: axis {axis} out of range for {ndim}-D inputs")
    axis %= ndim + 1
    dtype = shape_dtype(tensors[0].shape)
    shape = list(tensors[0].shape)
    shape.insert(axis, const_like(len(tensors), dtype))

    def body(*i):
        rest = list(i[:axis]) + list(i[axis + 1:])
        value = tensors[-1](*rest)
        for k in range(len(tensors) - 2, -1, -1):
            value = tirx.Select(_g.equal(i[axis], const_like(k, i[axis].dtype)),
                                tensors[k](*rest), value)
        return value

    return compute(tuple(shape), body, name="T_stack", tag="injective")


def split(ary, indices_or_sections, axis=0):
    """Pieces of ``ary`` along ``axis``: ``k`` sections of ``ceil(n / k)`` (the last one
    smaller), or cuts at the given indices (as Relax's ``split``)."""
    axis = normalize_axis(axis, ary.ndim, "split")
    n = ary.shape[axis]
    dtype = n.dtype
    if is_const_int(indices_or_sections):
        k = get_const_int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"split expects a positive number of sections, got {k}")
        if is_const_int(n):
            size = -(-get_const_int(n) // k)
            cuts = [min(size * j, get_const_int(n)) for j in range(1, k)]
        else:
            size = tirx.ceildiv(n, const_like(k, dtype))
            cuts = [size * j for j in range(1, k)]
    else:
        cuts = list(indices_or_sections)
    starts = [const_like(0, dtype)] + [as_index(c, dtype) for c in cuts]
    ends = [as_index(c, dtype) for c in cuts] + [n]
    outs = []
    for j, (start, end) in enumerate(zip(starts, ends)):
        extent = simplify(_g.max(end - start, const_like(0, dtype)))
        shape = list(ary.shape)
        shape[axis] = extent

        def body(*i, start=start):
            idx = list(i)
            idx[axis] = as_index(i[axis], dtype) + start
            return ary(*idx)

        name = "T_split_sections" if is_const_int(indices_or_sections) else "T_split"
        outs.append(compute(tuple(shape), body, name=name, tag="injective"))
    return outs


def broadcast_to(data, shape):
    """``data`` broadcast (NumPy rules) to ``shape``."""
    dtype = shape_dtype(data.shape)
    target = tuple(_dim(s, dtype) for s in shape)
    out = broadcast_shape(data.shape, target, "broadcast_to")
    if len(out) != len(target):
        raise ValueError(f"broadcast_to: cannot broadcast {list(data.shape)} to {list(shape)}")
    return compute(target, lambda *i: data(*broadcast_index(data, target, i)),
                      name="T_broadcast_to", tag="broadcast")


def repeat(a, repeats, axis=None):
    """Each element of ``a`` repeated ``repeats`` times along ``axis`` (``None``: flattened)."""
    repeats = get_const_int(repeats)
    if repeats < 1:
        raise ValueError(f"repeat: repeats must be positive, got {repeats}")
    if axis is None:
        a, axis = flatten(a), 0
    axis = normalize_axis(axis, a.ndim, "repeat")
    shape = list(a.shape)
    shape[axis] = simplify(shape[axis] * const_like(repeats, shape[axis].dtype))

    def body(*i):
        idx = list(i)
        idx[axis] = _g.floordiv(i[axis], const_like(repeats, i[axis].dtype))
        return a(*idx)

    return compute(tuple(shape), body, name="T_repeat", tag="broadcast")


def tile(a, reps):
    """``a`` repeated ``reps[d]`` times along each axis (NumPy ``tile`` rules for ranks)."""
    reps = [get_const_int(r) for r in reps]
    ndim = max(a.ndim, len(reps))
    reps = [1] * (ndim - len(reps)) + reps
    lead = ndim - a.ndim
    dtype = shape_dtype(a.shape)
    in_shape = [const_like(1, dtype)] * lead + list(a.shape)
    shape = tuple(simplify(s * const_like(r, s.dtype)) for s, r in zip(in_shape, reps))

    def body(*i):
        return a(*[_g.floormod(i[lead + d], a.shape[d]) for d in range(a.ndim)])

    return compute(shape, body, name="T_tile", tag="broadcast")


def flip(a, axis=0):
    """``a`` reversed along ``axis``."""
    axis = normalize_axis(axis, a.ndim, "flip")

    def body(*i):
        idx = list(i)
        idx[axis] = a.shape[axis] - const_like(1, a.shape[axis].dtype) - i[axis]
        return a(*idx)

    return compute(a.shape, body, name="T_reverse_sequence", tag="injective")


def collapse_sum(data, target_shape):
    """``data`` summed down to ``target_shape`` (the inverse of broadcasting).

    Leading axes are summed away; an axis of ``target_shape`` with extent 1 is summed where
    ``data``'s extent is not 1.
    """
    dtype = shape_dtype(data.shape)
    target = [_dim(s, dtype) for s in target_shape]
    lead = data.ndim - len(target)
    if lead < 0:
        raise ValueError(f"collapse_sum: target {list(target_shape)} has more axes than "
                         f"{list(data.shape)}")
    axes = list(range(lead))
    for k, s in enumerate(target):
        src = data.shape[lead + k]
        if is_const_int(s) and get_const_int(s) == 1 and not (
                is_const_int(src) and get_const_int(src) == 1):
            axes.append(lead + k)
    raxes = [reduce_axis(data.shape[d], f"k{d}") for d in axes]

    def body(*i):
        idx, r = [], 0
        for d in range(data.ndim):
            if d in axes:
                idx.append(raxes[r].var)
                r += 1
            else:
                idx.append(i[d - lead])
        if not raxes:
            return data(*idx)
        return te.sum(data(*idx), axis=raxes)

    return compute(tuple(target), body, name="T_collapse_sum", tag="comm_reduce")


def layout_transform(array, src_layout, dst_layout, schedule_rule="None"):
    """``array`` from ``src_layout`` to ``dst_layout`` when one is a permutation of the other
    (``"NCHW"`` -> ``"NHWC"``).

    Limitation: split layouts such as ``"NCHW4c"`` are not supported (``ValueError``); Relax's
    ``layout_transform`` with an index map is lowered elsewhere.
    """
    src, dst = str(src_layout), str(dst_layout)
    if not (src.isalpha() and dst.isalpha() and sorted(src) == sorted(dst)
            and len(set(src)) == len(src) and len(src) == array.ndim):
        raise ValueError(
            f"layout_transform supports only axis permutations of the same letters, got "
            f"{src!r} -> {dst!r} for a {array.ndim}-D tensor (split layouts are not supported)"
        )
    return transpose(array, [src.index(c) for c in dst])



def matmul(a, b, transp_a=False, transp_b=False):
    """``op(a) @ op(b)`` (``topi.matmul``; see :func:`tvm.topi.nn.matmul` for the rules)."""
    # Lazy: nn.dense imports broadcast helpers; importing it here at call time avoids a cycle.
    from .nn.dense import matmul as _matmul

    return _matmul(a, b, transpose_a=transp_a, transpose_b=transp_b)


def _map_pieces(outs, in_vars):
    """For each input variable, how the output indices read it: ``{var_pos: {kind: (out_pos,
    factor)}}`` with kinds ``"id"`` (``v``), ``"div"`` (``v // c``) and ``"mod"`` (``v % c``)."""
    pieces = {d: {} for d in range(len(in_vars))}
    for pos, expr in enumerate(outs):
        kind, var, factor = None, expr, None
        if isinstance(expr, (tirx.FloorDiv, tirx.FloorMod)) and is_const_int(expr.b):
            kind = "div" if isinstance(expr, tirx.FloorDiv) else "mod"
            var, factor = expr.a, get_const_int(expr.b)
        elif isinstance(expr, tirx.Var):
            kind = "id"
        d = next((k for k, v in enumerate(in_vars) if v is var), None)
        if kind is None or d is None or kind in pieces[d]:
            raise ValueError(
                f"layout_transform: output index {expr} is not an input index, or an input "
                "index split by a constant (i // c, i % c); other index maps are not supported"
            )
        pieces[d][kind] = (pos, factor)
    return pieces


def layout_transform_index_map(data, index_map, pad_value=None):
    """``data`` rearranged by ``index_map`` (a callable from input indices to output indices,
    as Relax's ``layout_transform``): ``out[index_map(i)] = data[i]``.

    Supported maps: each output index is an input index ``i``, or ``i // c`` and ``i % c``
    together (a split, e.g. NCHW -> NCHW4c: ``lambda n, c, h, w: (n, c // 4, h, w, c % 4)``).
    Output positions that no input maps to (a split of an extent ``c`` does not divide) hold
    ``pad_value`` (default 0).
    """
    dtype = shape_dtype(data.shape)
    in_vars = [tirx.Var(f"i{d}", dtype) for d in range(data.ndim)]
    outs = index_map(*in_vars)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    pieces = _map_pieces(outs, in_vars)
    shape = [None] * len(outs)
    for d, kinds in pieces.items():
        extent = _dim(data.shape[d], dtype)
        if set(kinds) == {"id"}:
            shape[kinds["id"][0]] = extent
        elif set(kinds) == {"div", "mod"} and kinds["div"][1] == kinds["mod"][1]:
            c = const_like(kinds["div"][1], dtype)
            shape[kinds["div"][0]] = simplify(tirx.ceildiv(extent, c))
            shape[kinds["mod"][0]] = c
        else:
            raise ValueError(f"layout_transform: input axis {d} must appear once, or split as "
                             f"i // c and i % c with the same c; got {sorted(kinds)}")
    fill = const_like(0 if pad_value is None else pad_value, data.dtype)

    def body(*j):
        idx, inside = [], None
        for d, kinds in pieces.items():
            if "id" in kinds:
                idx.append(j[kinds["id"][0]])
                continue
            c = const_like(kinds["div"][1], j[0].dtype)
            v = j[kinds["div"][0]] * c + j[kinds["mod"][0]]
            idx.append(v)
            ok = _g.less(v, _dim(data.shape[d], v.dtype))
            inside = ok if inside is None else _g.logical_and(inside, ok)
        if inside is None:
            return data(*idx)
        # if_then_else: positions past the extent would read out of bounds.
        return tirx.if_then_else(inside, data(*idx), fill)

    return compute(tuple(shape), body, name="T_layout_trans", tag="injective")
