"""Derived views of a buffer's memory: ``view``, ``local``, ``permute``, ``sub``, ``tile``,
``chunk`` (spec D.3, "Buffer methods").

A view is a new :class:`~tvm.tirx.buffer.Buffer` over the same memory (the same ``data``
variable, or for a TMEM buffer the same column address): only its shape, dtype, layout and
``elem_offset`` change. The new layout comes from the layout algebra of
:mod:`tvm.tirx.layout` (``group``, ``permute_by_groups``, ``storage``, ``pack``...), so an
element of the view lives at the same address as the parent element it stands for.

Every view is *declared* through :data:`tvm.tirx.buffer.VIEW_DECLARERS`: while a TVMScript
function is being built, the script builder registers there a hook that emits the view's
``DeclBuffer`` (``B = A.local()`` in a kernel body is a statement); outside a builder the view
is just returned.
"""

from __future__ import annotations

import functools
from numbers import Integral

from ..ir.expr import PrimExpr
from ..runtime.data_type import DataType
from .expr import IntImm

__all__ = ["ChunkIndexer", "SubIndexer", "TileIndexer", "chunk", "local", "permute", "sub",
           "tile", "view"]


# --- helpers ----------------------------------------------------------------------------------


def _layout_mod():
    # Lazy: tvm.tirx.layout imports arith and numpy, and buffer.py is imported very early.
    from . import layout as _layout

    return _layout


def _is_no_layout(layout) -> bool:
    from .buffer import NoLayout  # buffer.py imports this module lazily

    return isinstance(layout, NoLayout)


def effective_layout(buf):
    """The layout ``buf`` is laid out by: its own, or the row-major default for ``None``;
    None for a buffer declared with an explicit ``layout=None`` (no layout)."""
    if _is_no_layout(buf.layout):
        return None
    if buf.layout is None:
        from .layout.buffer_layout import default_layout  # lazy: see _layout_mod

        return default_layout(buf.shape)
    return buf.layout


def _const(value):
    """``value`` as a Python int when it is known, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, IntImm):
        return int(value.value)
    return None


def _product(values):
    return functools.reduce(lambda a, b: a * b, values, 1)


def _simplify(expr):
    if not isinstance(expr, PrimExpr):
        return expr
    from ..arith import Analyzer  # lazy: arith is above the buffer module's own imports

    return Analyzer().simplify(expr)


def _declare(new_buf, parent):
    from .buffer import VIEW_DECLARERS, VIEW_PARENTS

    VIEW_PARENTS[new_buf] = parent
    for declare in VIEW_DECLARERS:
        declared = declare(new_buf)
        if declared is not None:
            return declared
    return new_buf


def _redecl(buf, shape, layout, *, dtype=None, elem_offset=None, addr_offset=None):
    """A view of ``buf``'s memory with ``shape``/``layout``/``dtype``/``elem_offset``."""
    from .buffer import decl_buffer

    dtype = buf.dtype if dtype is None else str(dtype)
    if layout is None:
        layout = "default"  # decl_buffer's None would mean "no layout"
    shape = [IntImm("int32", int(s)) if _const(s) is not None and not isinstance(s, PrimExpr)
             else s for s in shape]
    if buf.scope() == "tmem" and buf.allocated_addr is not None:
        # TMEM memory is named by its column address: the view moves the address.
        addr = buf.allocated_addr
        if addr_offset is not None and _const(addr_offset) != 0:
            addr = (_simplify(addr[0] + addr_offset),) + tuple(addr[1:])
        new = decl_buffer(shape, dtype, scope="tmem", data_alignment=buf.data_alignment,
                          layout=layout, allocated_addr=addr)
        return _declare(new, buf)
    offset = buf.elem_offset if elem_offset is None else _simplify(elem_offset)
    new = decl_buffer(shape, dtype, data=buf.data, strides=list(buf.strides) or None,
                      elem_offset=offset, scope=buf.scope(), data_alignment=buf.data_alignment,
                      offset_factor=buf.offset_factor, layout=layout)
    return _declare(new, buf)


def _split_swizzle(layout):
    """``(tile layout, swizzle parameters or None)`` of a layout."""
    lay = _layout_mod()
    if isinstance(layout, lay.ComposeLayout):
        return layout.tile_layout, (layout.per_element, layout.swizzle_len, layout.atom_len,
                                    layout.swizzle_inner)
    return layout, None


def _with_swizzle(layout, swizzle):
    if swizzle is None:
        return layout
    per_element, swizzle_len, atom_len, inner = swizzle
    return _layout_mod().ComposeLayout(per_element, swizzle_len, atom_len, layout, inner)


def _surgery_layout(buf, what):
    layout = effective_layout(buf)
    if layout is None:
        raise ValueError(f"Buffer.{what} of {buf.name}: the buffer has layout=None (no layout)")
    return _split_swizzle(layout)


def _dim(buf, dim, what):
    ndim = len(buf.shape)
    dim = int(dim)
    if dim < 0:
        dim += ndim
    if not 0 <= dim < ndim:
        raise ValueError(f"{what}: dim {dim} out of range for buffer {buf.name} of rank {ndim}")
    return dim


# --- view / local / permute -------------------------------------------------------------------


def view(buf, *args, layout=None):
    """``buf.view(*shape, layout=None)`` or ``buf.view(dtype)``."""
    if len(args) == 1 and isinstance(args[0], (str, DataType)) and layout is None:
        return _dtype_view(buf, str(args[0]))
    shape = list(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else list(args)
    for s in shape:
        if not (isinstance(s, Integral) or (isinstance(s, PrimExpr)
                                            and s.dtype in ("int32", "int64"))):
            raise TypeError(f"Buffer.view of {buf.name}: a shape entry must be an int or an "
                            f"int32/int64 PrimExpr, got {s!r}")
    total = [_const(s) for s in buf.shape]
    if layout is None:
        if shape.count(-1) == 1 and all(t is not None for t in total):
            known = _product(int(s) for s in shape if _const(s) != -1)
            shape[shape.index(-1)] = _product(total) // known
        new = [_const(s) for s in shape]
        if all(t is not None for t in total) and all(n is not None for n in new) and (
                _product(new) != _product(total)):
            raise ValueError(f"Buffer.view of {buf.name}: the new shape {new} has "
                             f"{_product(new)} elements, the buffer {list(total)} has "
                             f"{_product(total)}")
        layout = buf.layout  # the parent's layout, applied to the new shape
        if layout is None:
            layout = "default"
    return _redecl(buf, shape, layout)


def _dtype_view(buf, dtype):
    old, new = DataType(buf.dtype).bits, DataType(dtype).bits
    if not buf.shape:
        raise ValueError(f"Buffer.view({dtype!r}) of {buf.name}: the buffer has no dimension")
    *outer, last = buf.shape
    parent = effective_layout(buf)
    if new >= old:
        if new % old:
            raise ValueError(f"Buffer.view({dtype!r}) of {buf.name}: {new} bits is not a "
                             f"multiple of {old}")
        ratio = new // old
        if _const(last) is not None and _const(last) % ratio:
            raise ValueError(
                f"Buffer.view({dtype!r}) of {buf.name}: its last dimension {last} of "
                f"{buf.dtype} is not a whole number of {dtype} elements")
        shape = [*outer, last // ratio if _const(last) is None else _const(last) // ratio]
        layout = parent.pack(ratio) if parent is not None and ratio > 1 else parent
        offset = buf.elem_offset // ratio if ratio > 1 else buf.elem_offset
    else:
        if old % new:
            raise ValueError(f"Buffer.view({dtype!r}) of {buf.name}: {old} bits is not a "
                             f"multiple of {new}")
        ratio = old // new
        shape = [*outer, last * ratio if _const(last) is None else _const(last) * ratio]
        layout = parent.unpack(ratio) if parent is not None else None
        offset = buf.elem_offset * ratio
    if layout is None:
        layout = buf.layout
    return _redecl(buf, shape, layout, dtype=dtype, elem_offset=offset)


def local(buf, *shape, layout=None):
    """``buf.local(*shape, layout=None)``: the calling thread's own elements of a buffer laid
    out over threads, as a plain local buffer over the same registers."""
    from ..arith import Analyzer  # lazy: only a local view with a shape needs it

    parent = effective_layout(buf)
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if parent is None:
        if not shape:
            raise ValueError(f"Buffer.local of {buf.name} cannot infer a shape because the "
                             "parent buffer has layout=None; pass an explicit shape together "
                             "with layout=...")
        if layout is None:
            raise ValueError(f"Buffer.local of {buf.name} without layout= cannot check the "
                             "physical storage span because the parent buffer has "
                             "layout=None; pass an explicit layout=...")
        return _redecl(buf, shape, layout)
    storage = parent.storage()
    if not shape:
        shape = (storage.span() if layout is None else storage.size(),)
    elif layout is None:
        span = storage.span()
        total = _product(shape)
        if not Analyzer().can_prove_equal(IntImm("int32", 0) + total, span):
            raise ValueError(f"Buffer.local of {buf.name}: the local shape {list(shape)} has "
                             f"{total} elements, but the buffer has physical storage span "
                             f"{span} per thread")
    return _redecl(buf, shape, "default" if layout is None else layout)


def permute(buf, *dims):
    """``buf.permute(*dims)``: dimension ``i`` of the view is dimension ``dims[i]`` of
    ``buf``; the layout reorders its iters the same way, so addresses do not move."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    dims = [_dim(buf, d, "Buffer.permute") for d in dims]
    if sorted(dims) != list(range(len(buf.shape))):
        raise ValueError(f"Buffer.permute of {buf.name}: {dims} is not a permutation of "
                         f"{len(buf.shape)} dims")
    layout, swizzle = _surgery_layout(buf, "permute")
    grouped, seps = layout.group(list(buf.shape))
    new_layout = _with_swizzle(grouped.permute_by_groups(seps, dims), swizzle)
    return _redecl(buf, [buf.shape[d] for d in dims], new_layout)


# --- sub / tile / chunk -----------------------------------------------------------------------


def _swizzle_keeps_offset(swizzle, offset) -> bool:
    """Whether adding ``offset`` elements commutes with the swizzle (a whole period)."""
    if swizzle is None or offset is None:
        return True
    per_element, swizzle_len, atom_len, _ = swizzle
    if int(swizzle_len) == 0:
        return True
    period = 1 << (int(per_element) + int(atom_len) + int(swizzle_len))
    value = _const(offset)
    if value is not None:
        return value % period == 0
    from ..arith import Analyzer  # lazy: only symbolic offsets need it
    from .generic import floormod

    return Analyzer().can_prove_equal(floormod(offset, period), 0)


def _tmem_columns(buf, offset):
    """A TMEM element offset along columns as a 32-bit column offset."""
    if offset is None:
        return None
    bits = DataType(buf.dtype).bits * offset
    value = _const(bits)
    if value is not None:
        if value % 32:
            raise ValueError(f"sub: a tmem TCol offset must be aligned to a physical 32-bit "
                             f"column; got {offset} elements of {buf.dtype}")
        return value // 32
    from ..arith import Analyzer  # lazy: only symbolic offsets need it
    from .generic import floordiv, floormod

    if not Analyzer().can_prove_equal(floormod(bits, 32), 0):
        raise ValueError(f"sub: a tmem TCol offset must be provably aligned to a physical "
                         f"32-bit column; got {offset} elements of {buf.dtype}")
    return _simplify(floordiv(bits, 32))


def _check_tmem_axis(buf, iters, start, what):
    if buf.scope() != "tmem" or buf.allocated_addr is None or start == 0:
        return
    for it in iters:
        name = it.axis.name if it.axis is not None else None
        if name != "TCol":
            raise ValueError(f"sub: a tmem {what} with a nonzero offset needs TCol-stride "
                             f"layout iters; this dim's iter is on axis {name!r} (a lane "
                             "offset cannot move the column address)")


def _rebuild(buf, shape, shard, grouped, swizzle, offset):
    lay = _layout_mod()
    offsets = dict(grouped.offset.items()) if grouped.offset else {}
    tmem = buf.scope() == "tmem" and buf.allocated_addr is not None
    if not tmem and offset is not None and not _swizzle_keeps_offset(swizzle, offset):
        # The swizzle sees the offset: it goes into the layout's m offset.
        m_axis = lay.Axis.get("m")
        offsets[m_axis] = offset if m_axis not in offsets else offsets[m_axis] + offset
        offset = None
    new_layout = _with_swizzle(
        lay.TileLayout.from_iters(shard, list(grouped.replica), offsets), swizzle)
    if tmem:
        return _redecl(buf, shape, new_layout, addr_offset=_tmem_columns(buf, offset))
    elem_offset = buf.elem_offset if offset is None else buf.elem_offset + offset
    return _redecl(buf, shape, new_layout, elem_offset=elem_offset)


def _group_offset(group, index):
    """The offset of ``index`` along a dim made of the layout iters ``group``."""
    from .generic import floordiv, floormod

    inner = []
    for it in group[1:]:
        if _const(it.extent) is None:
            raise ValueError("sub: a dim made of several layout iters needs constant extents")
        inner.append(_const(it.extent))
    total = None
    rest = index
    for pos, it in enumerate(group):
        block = _product(inner[pos:])
        if block == 1:
            digit = rest
        elif isinstance(rest, Integral):
            digit, rest = rest // block, rest % block
        else:
            digit, rest = floordiv(rest, block), floormod(rest, block)
        term = digit * it.stride
        total = term if total is None else total + term
    return total


def _drop(buf, dim, index):
    """The view without dimension ``dim``, fixed at ``index``."""
    dim = _dim(buf, dim, "sub")
    value, extent = _const(index), _const(buf.shape[dim])
    if value is not None and (value < 0 or (extent is not None and value >= extent)):
        raise ValueError(f"sub: index {value} out of range for dim {dim} of extent "
                         f"{extent if extent is not None else buf.shape[dim]}")
    layout, swizzle = _surgery_layout(buf, "sub")
    grouped, seps = layout.group(list(buf.shape))
    iters = list(grouped.shard)
    lo, hi = seps[dim], seps[dim + 1]
    _check_tmem_axis(buf, iters[lo:hi], value, "index")
    offset = _group_offset(iters[lo:hi], index)
    shape = list(buf.shape[:dim]) + list(buf.shape[dim + 1:])
    return _rebuild(buf, shape, iters[:lo] + iters[hi:], grouped, swizzle, offset)


def _narrow(buf, dim, start, length):
    """The view keeping ``[start, start + length)`` of dimension ``dim``."""
    lay = _layout_mod()
    start_c, length_c, extent = _const(start), _const(length), _const(buf.shape[dim])
    if start_c is not None and start_c < 0:
        raise ValueError(f"sub: start {start_c} must be non-negative")
    if length_c is not None and length_c < 1:
        raise ValueError(f"sub: length {length_c} must be positive")
    if None not in (start_c, length_c, extent) and start_c + length_c > extent:
        raise ValueError(f"sub: range [{start_c}, {start_c + length_c}) exceeds dim {dim} "
                         f"extent {extent}")
    layout, swizzle = _surgery_layout(buf, "sub")
    grouped, seps = layout.group(list(buf.shape))
    iters = list(grouped.shard)
    lo, hi = seps[dim], seps[dim + 1]
    group = iters[lo:hi]
    if len(group) == 1:
        it = group[0]
        _check_tmem_axis(buf, group, start_c, "narrow")
        offset = start * it.stride
        new_group = [lay.Iter(length, it.stride, it.axis)]
    else:
        inner = 1
        for it in group[1:]:
            if _const(it.extent) is None:
                raise ValueError("sub: a dim made of several layout iters needs constant "
                                 "extents")
            inner *= _const(it.extent)
        if start_c is None or length_c is None:
            raise ValueError(f"sub: dim {dim} is made of {len(group)} layout iters; start and "
                             f"length must be constant multiples of {inner}")
        if start_c % inner or length_c % inner:
            raise ValueError(f"sub: dim {dim} start/length must be multiples of the inner "
                             f"iter block {inner}; got start={start_c} length={length_c}")
        outer = group[0]
        _check_tmem_axis(buf, [outer], start_c // inner, "narrow")
        offset = (start_c // inner) * outer.stride
        new_group = [lay.Iter(length_c // inner, outer.stride, outer.axis), *group[1:]]
    shape = list(buf.shape)
    shape[dim] = length
    return _rebuild(buf, shape, iters[:lo] + new_group + iters[hi:], grouped, swizzle, offset)


def _is_whole(item) -> bool:
    return isinstance(item, slice) and item.start is None and item.stop is None and (
        item.step is None)


class SubIndexer:
    """``buf.sub[...]``: an integer drops a dimension, a slice narrows it, ``a::k`` keeps
    every ``k``-th element starting at ``a``; the result is a view (a buffer)."""

    def __init__(self, buffer):
        self._buffer = buffer

    def __getitem__(self, items):
        items = items if isinstance(items, tuple) else (items,)
        buf = self._buffer
        if len(items) > len(buf.shape):
            raise ValueError(f"sub: {len(items)} indices for buffer {buf.name} of rank "
                             f"{len(buf.shape)}")
        dim = 0
        for item in items:
            if not isinstance(item, slice):
                buf = _drop(buf, dim, item)
                continue
            if _is_whole(item):
                dim += 1
                continue
            step = item.step
            if step is None or (isinstance(step, Integral) and step == 1):
                start = 0 if item.start is None else item.start
                stop = buf.shape[dim] if item.stop is None else item.stop
                buf = _narrow(buf, dim, start, _simplify(stop - start)
                              if isinstance(stop - start, PrimExpr) else stop - start)
            else:
                buf = self._stepped(buf, dim, item)
            dim += 1
        return buf

    @staticmethod
    def _stepped(buf, dim, item):
        step = item.step
        if not isinstance(step, Integral) or step <= 0:
            raise ValueError(f"sub: a step must be a positive int, got {step!r}")
        if item.stop is not None:
            raise ValueError("sub: a stop bound together with a step is not supported")
        extent = _const(buf.shape[dim])
        if extent is None:
            raise ValueError("sub: a stepped slice needs a constant dim extent")
        if extent % step:
            raise ValueError(f"sub: dim extent {extent} is not divisible by step {step}")
        start = 0 if item.start is None else item.start
        start_c = _const(start)
        if start_c is not None and not 0 <= start_c < step:
            raise ValueError(f"sub: a stepped slice's start {start_c} must be in [0, {step})")
        split = buf.view(*buf.shape[:dim], extent // step, step, *buf.shape[dim + 1:])
        return _drop(split, dim + 1, start)


def sub(buf):
    """``buf.sub``: the :class:`SubIndexer` of ``buf``."""
    return SubIndexer(buf)


class TileIndexer:
    """``buf.tile((dim, factors), ...)[picks]``: dimension ``dim`` splits into ``factors``;
    each factor takes an index (dropped) or ``:`` (kept; several kept factors fuse)."""

    def __init__(self, buffer, specs):
        self._buffer = buffer
        self._specs = specs

    def __getitem__(self, picks):
        picks = picks if isinstance(picks, tuple) else (picks,)
        count = sum(len(f) for _, f in self._specs)
        if len(picks) != count:
            raise ValueError(f"tile: split into {count} factor(s) but {len(picks)} index(es) "
                             "given (int/Expr picks, ':' keeps)")
        groups, pos = [], 0
        for dim, factors in self._specs:
            groups.append((dim, factors, picks[pos:pos + len(factors)]))
            pos += len(factors)
        buf = self._buffer
        for dim, factors, dim_picks in sorted(groups, key=lambda g: g[0], reverse=True):
            buf = self._split(buf, dim, factors, dim_picks)
        return buf

    @staticmethod
    def _split(buf, dim, factors, dim_picks):
        for pick in dim_picks:
            if isinstance(pick, slice) and not _is_whole(pick):
                raise ValueError("tile: a factor slice must be ':' (keep it whole)")
        kept = sum(1 for p in dim_picks if _is_whole(p))
        if kept == len(dim_picks):
            raise ValueError(f"tile: dim {dim} picks no factor (all ':'); a tile must pick at "
                             "least one factor. Use .view or .chunk for a pure reshape.")
        buf = buf.view(*buf.shape[:dim], *factors, *buf.shape[dim + 1:])
        for index in reversed(range(len(dim_picks))):
            if not _is_whole(dim_picks[index]):
                buf = _drop(buf, dim + index, dim_picks[index])
        if kept >= 2:
            buf = buf.view(*buf.shape[:dim], -1, *buf.shape[dim + kept:])
        return buf


def tile(buf, *specs):
    """``buf.tile(dim, factors)`` or ``buf.tile((dim, factors), ...)``: a
    :class:`TileIndexer`."""
    if specs and isinstance(specs[0], Integral):
        if len(specs) != 2:
            raise ValueError("tile(dim, factors) takes a dim and a factors tuple")
        specs = (specs,)
    normalized, seen = [], set()
    for spec in specs:
        if not isinstance(spec, (tuple, list)) or len(spec) != 2:
            raise ValueError(f"tile: each spec must be (dim, factors), got {spec!r}")
        dim = _dim(buf, spec[0], "tile")
        if dim in seen:
            raise ValueError(f"tile: dim {dim} is tiled more than once")
        seen.add(dim)
        factors = spec[1]
        if not isinstance(factors, (tuple, list)) or not factors:
            raise ValueError(f"tile: the factors of dim {dim} must be a non-empty tuple")
        normalized.append((dim, tuple(factors)))
    return TileIndexer(buf, normalized)


class ChunkIndexer:
    """``buf.chunk(spec)[picks]``: a dim with a count ``k`` splits into ``k`` equal chunks
    and takes one; a ``None`` dim takes the index or slice as given. The result is a buffer
    region (``buf[...]``)."""

    def __init__(self, buffer, spec):
        self._buffer = buffer
        self._spec = spec

    def __getitem__(self, picks):
        picks = picks if isinstance(picks, tuple) else (picks,)
        buf = self._buffer
        if len(picks) > len(self._spec):
            raise ValueError(f"chunk: {len(picks)} indices for a rank-{len(self._spec)} spec")
        out = []
        for dim, pick in enumerate(picks):
            count = self._spec[dim]
            if count is None:
                out.append(pick)
            elif isinstance(pick, slice):
                raise ValueError(f"chunk: chunked dim {dim} takes a chunk index, not a slice; "
                                 f"got {pick!r}")
            else:
                size = buf.shape[dim] // int(count)
                start = pick * size
                out.append(slice(start, start + size))
        out += [slice(None)] * (len(buf.shape) - len(out))  # the dims not picked stay whole
        return buf[tuple(out)]


def chunk(buf, spec):
    """``buf.chunk(spec)``: a :class:`ChunkIndexer`; ``spec`` has one entry per dim, a
    positive chunk count or None."""
    if not isinstance(spec, (tuple, list)):
        # ValueError (as 0.27): a bare count is a malformed spec, not a wrong type of object.
        raise ValueError(f"chunk: spec must be a per-dim tuple, got {spec!r}")  # noqa: TRY004
    if len(spec) != len(buf.shape):
        raise ValueError(f"chunk: spec length {len(spec)} != buffer rank {len(buf.shape)}")
    for dim, count in enumerate(spec):
        if count is not None and (not isinstance(count, Integral) or int(count) < 1):
            raise ValueError(f"chunk: spec[{dim}] must be None or a positive int, got "
                             f"{count!r}")
    return ChunkIndexer(buf, tuple(spec))
