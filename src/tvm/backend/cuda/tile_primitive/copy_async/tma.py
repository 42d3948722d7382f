"""``Tx.copy_async`` with the Tensor Memory Accelerator: variants ``tma_auto`` and
``tma_explicit`` (priority 10, one thread).

A TMA copy moves a *box* of a global tensor to or from shared memory with one
``cp.async.bulk.tensor`` instruction, described by a ``CUtensorMap`` the host encodes
(:mod:`tvm.backend.cuda.tensormap`). The variants plan it from the two operands:

* the shared operand's layout is cut into *modes* (extent, step in its buffer dimension,
  shared stride): the default row-major layout, a ``TileLayout`` of ``m`` iters, or one of
  those under the TMA byte swizzle (``ComposeLayout(log2(16 B / element), 1/2/3, 3, ...)``,
  what :func:`~tvm.backend.cuda.tile_primitive.tma_utils.mma_shared_layout` makes for 32, 64
  and 128-byte swizzles);
* the box is the chain of modes whose shared strides are ``1, e0, e0*e1, ...`` (TMA writes
  a box densely, innermost dimension first); each box mode becomes one tensor-map
  dimension over a whole global dimension (step 1), the innermost being the contiguous
  one. A box dimension longer than 256 is cut and the rest issued in a loop;
* every other mode is issued: a ``T.unroll`` loop around the instruction moves the
  coordinates and the shared address;
* global dimensions outside the box become tensor-map dimensions with box extent 1 (their
  region start is a coordinate).

``tma_explicit`` takes the same plan but requires a single instruction (no issue loop);
``tma_auto`` allows the loops.

The descriptor is built on the host before the kernel launch: a ``T.TensorMap()`` variable
``<buffer>_tensormap`` bound to ``T.tvm_stack_alloca("tensormap", 1)`` and filled by
``T.call_packed("runtime.cuTensorMapEncodeTiled", ...)``; the kernel takes it
``const __grid_constant__ CUtensorMap`` by value (SplitHostDevice) and the instruction reads
its address. Two calls with the same descriptor share it.

Operands and options (``Tx.copy_async(dst, src, dispatch=..., **config)``):

* global -> shared (``g2s``): ``mbar=`` (required) the mbarrier that receives the
  transaction bytes (a pointer, ``bar.ptr_to([0])``; ``mbarrier_addr=True`` when it is
  already a 32-bit shared address), ``cta_mask=`` a 16-bit mask of the cluster's CTAs to
  multicast to (``.multicast::cluster``). The caller arms the barrier
  (``mbarrier.arrive.expect_tx`` with the tile's bytes) and waits on it;
* shared -> global (``s2g``): ``.bulk_group`` completion (``use_tma_reduce="add"`` etc.
  reduces into global memory with ``cp.reduce.async.bulk.tensor``); the caller commits and waits
  (``T.ptx.cp.async.bulk.commit_group()``, ``wait_group``), after
  ``fence.proxy.async.shared::cta`` if the tile was written by threads.

A swizzled shared tile must start at a multiple of its swizzle period (1024 bytes for
128-byte swizzle) in shared memory; the plan checks the offsets inside the buffer, the
buffer's own alignment is the allocation's. Not supported yet: ``cache_hint``, ``oob``,
``cta_group``, ``gather4``, ``prefetch_tensormap`` options, a global
buffer view with an element offset, tensor-map dimensions made by splitting one global
dimension (a box mode that steps a global dimension by more than one element).
"""

from __future__ import annotations

import math

from .....arith import Analyzer
from .....runtime.data_type import DataType
from .....tirx.buffer import decl_buffer
from .....tirx.cuda_ops import cuda
from .....tirx.expr import Cast, IntImm, StringImm, Var
from .....tirx.function import PrimFunc
from .....tirx.layout import ComposeLayout, TileLayout
from .....tirx.op import address_of, call_packed, tvm_stack_alloca
from .....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from .....tirx.ptx import ptx
from .....tirx.stmt import Bind, BufferRegion, DeclBuffer, Evaluate, For, ForKind, SeqStmt
from .....tirx.type import tensormap_pointer_type
from .._arch import target_sm
from .._common import const_int, memory_kind, provably_multiple

__all__ = ["MAX_BOX", "TMAPlan", "plan_tma", "shared_modes"]

#: The longest box dimension of a tiled tensor map (elements).
MAX_BOX = 256
#: The most tensor-map dimensions.
MAX_RANK = 5
#: Config keys the variants read.
_KNOWN_CONFIG = {"mbar", "mbarrier_addr", "cta_mask", "use_tma_reduce"}
#: ``use_tma_reduce=`` operations of a shared -> global copy (``cp.reduce.async.bulk.tensor``).
TMA_REDUCE_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
_NOT_YET = {"cache_hint", "oob", "cta_group", "gather4", "src_selector",
            "prefetch_tensormap", "tma_dtype", "tensormap_l2_promotion"}
#: How many TMA instructions an issue loop may unroll to.
MAX_ISSUES = 1024
#: L2 promotion written into every descriptor (CU_TENSOR_MAP_L2_PROMOTION_L2_128B, as 0.27).
L2_PROMOTION = 2


# --- the shared operand ----------------------------------------------------------------------
def _layout_parts(buffer):
    """``(shard [(extent, stride)] outer -> inner, swizzle mode 0..3)`` of a shared buffer's
    layout; rejects what TMA cannot write."""
    layout = buffer.layout
    shape = [const_int(s, f"shared buffer {buffer.name} extent") for s in buffer.shape]
    if layout is None:
        strides, acc = [], 1
        for e in reversed(shape):
            strides.append(acc)
            acc *= e
        return list(zip(shape, reversed(strides))), 0
    swizzle = 0
    if isinstance(layout, ComposeLayout):
        eb = DataType(buffer.dtype).bits
        want = (128 // eb).bit_length() - 1 if eb <= 128 else -1
        if (not layout.swizzle_inner or layout.atom_len != 3 or layout.per_element != want
                or layout.swizzle_len not in (1, 2, 3)):
            fail(f"shared buffer {buffer.name} has the swizzle {layout}; TMA writes only the "
                 f"16-byte-unit swizzles ComposeLayout({want}, 1|2|3, 3, ...)")
        swizzle = layout.swizzle_len
        layout = layout.tile_layout
    if not isinstance(layout, TileLayout):
        fail(f"shared buffer {buffer.name} has a {type(layout).__name__}; TMA needs a "
             "TileLayout (optionally swizzled)")
    if layout.replica or any(not (isinstance(v, int) and v == 0) and
                             not (isinstance(v, IntImm) and v.value == 0)
                             for v in dict(layout.offset or {}).values()):
        fail(f"shared buffer {buffer.name}: a layout with replicas or an offset is not a "
             "TMA destination")
    shard = []
    for it in layout.shard:
        if it.axis.name != "m":
            fail(f"shared buffer {buffer.name}: layout iter on axis {it.axis.name} (TMA writes "
                 "memory, axis m)")
        shard.append((const_int(it.extent, "layout extent"), const_int(it.stride, "layout stride")))
    if math.prod(e for e, _ in shard) != math.prod(shape):
        fail(f"shared buffer {buffer.name}: the layout covers {math.prod(e for e, _ in shard)} "
             f"elements, the buffer {math.prod(shape)}")
    return shard, swizzle


def shared_modes(buffer):
    """Per buffer dimension, its modes ``(extent, step, shared stride)`` outer -> inner, and
    the swizzle mode (0: none, 1/2/3: 32/64/128-byte).

    ``step`` is how far one step of the mode moves in the buffer dimension; the modes of a
    dimension multiply to its extent.
    """
    shard, swizzle = _layout_parts(buffer)
    shape = [const_int(s, "shared extent") for s in buffer.shape]
    iters = [list(t) for t in shard if t[0] != 1]
    dims = []
    for n in reversed(shape):
        modes, remaining, step = [], n, 1
        while remaining > 1:
            if not iters:
                fail(f"shared buffer {buffer.name}: the layout does not split along the "
                     f"buffer's dimensions {shape}")
            e, s = iters[-1]
            if remaining % e == 0:
                modes.append((e, step, s))
                step *= e
                remaining //= e
                iters.pop()
            elif e % remaining == 0:
                modes.append((remaining, step, s))
                iters[-1] = [e // remaining, s * remaining]
                step *= remaining
                remaining = 1
            else:
                fail(f"shared buffer {buffer.name}: layout extent {e} and buffer extent {n} "
                     "do not nest")
        dims.append(list(reversed(modes)))
    return list(reversed(dims)), swizzle


def _region_modes(region: BufferRegion, what: str):
    """The modes the region covers: ``[(dim, extent, step, shared stride)]`` and the
    unswizzled shared element offset of the region's first element."""
    buf = region.buffer
    dims, swizzle = shared_modes(buf)
    analyzer = Analyzer()
    base = buf.elem_offset if buf.elem_offset is not None else IntImm("int32", 0)
    out = []
    for d, (rng, modes) in enumerate(zip(region.region, dims)):
        ext = const_int(rng.extent, f"{what} region extent")
        covered, taken = 1, []
        for e, step, s in reversed(modes):  # innermost first
            if covered == ext:
                break
            if ext % (covered * e) == 0:
                taken.append((e, step, s))
                covered *= e
            elif e % (ext // covered) == 0 and ext % covered == 0:
                taken.append((ext // covered, step, s))
                covered = ext
            else:
                break
        if covered != ext:
            fail(f"{what} {buf.name}: region extent {ext} of dimension {d} does not follow "
                 "the layout's split of that dimension")
        if not provably_multiple(rng.min, covered, analyzer):
            fail(f"{what} {buf.name}: region start {rng.min} of dimension {d} is not a "
                 f"multiple of {covered} (the layout block it covers)")
        for e, step, s in taken:
            if e > 1:
                out.append((d, e, step, s))
        for e, step, s in modes:  # the start's offset
            digit = (rng.min // step) % e if e > 1 else 0
            base = base + digit * s
    return out, analyzer.simplify(base), swizzle


# --- the plan --------------------------------------------------------------------------------
class TMAPlan:
    """A TMA copy: the descriptor fields (driver order, dimension 0 innermost), the
    coordinates and shared offset of the first instruction, and the issue loops.

    Attributes
    ----------
    dims, strides, box : list
        Tensor-map global extents, byte strides (dims 1..), box extents.
    tmap_dims : list of int
        The global buffer dimension of each tensor-map dimension.
    coords : list of PrimExpr
        The first instruction's coordinates.
    smem_offset : PrimExpr
        The shared element offset (from the shared buffer's data) of the first instruction.
    issues : list of (extent, tensor-map dim, coordinate step, shared stride)
        One unrolled loop each.
    swizzle : int
        0 none, 1/2/3 = 32/64/128-byte.
    box_bytes : int
        Bytes one instruction moves.
    """

    def __init__(self, **fields):
        self.__dict__.update(fields)

    @property
    def rank(self) -> int:
        """The tensor-map rank (number of descriptor dimensions)."""
        return len(self.dims)

    @property
    def num_issues(self) -> int:
        """The number of TMA instructions issued: the product of the issue-loop extents."""
        return math.prod(e for e, *_ in self.issues)


def _global_dims(buf, what):
    shape = list(buf.shape)
    if buf.strides:
        strides = [const_int(s, f"{what} {buf.name} stride") for s in buf.strides]
    else:
        strides, acc = [], 1
        for k in reversed(range(len(shape))):
            strides.insert(0, acc)
            if k:
                acc *= const_int(shape[k], f"{what} {buf.name} inner extent")
    if buf.layout is not None:
        layout = buf.layout
        ok = isinstance(layout, TileLayout) and not layout.replica and all(
            it.axis.name == "m" for it in layout.shard)
        if not ok:
            fail(f"{what} {buf.name} has the layout {layout}; a TMA global operand needs the "
                 "default row-major layout")
    if buf.elem_offset is not None and not (
            isinstance(buf.elem_offset, IntImm) and buf.elem_offset.value == 0):
        fail(f"{what} {buf.name} is a view with element offset {buf.elem_offset}: not "
             "supported yet by the TMA variants (encode the descriptor from the base tensor)")
    return shape, strides


def plan_tma(shared: BufferRegion, glob: BufferRegion, direction: str) -> TMAPlan:
    """Plan the TMA copy between ``shared`` and ``glob`` (``direction`` ``"g2s"`` or
    ``"s2g"``); ``DispatchFail`` with the reason when TMA cannot do it."""
    sbuf, gbuf = shared.buffer, glob.buffer
    if sbuf.dtype != gbuf.dtype:
        fail(f"copy_async from {glob.buffer.dtype} to {sbuf.dtype}: TMA does not convert")
    eb = DataType(gbuf.dtype).bits // 8
    if DataType(gbuf.dtype).bits % 8:
        fail(f"dtype {gbuf.dtype}: sub-byte TMA copies are not supported yet")
    modes, smem_base, swizzle = _region_modes(shared, "shared operand")
    gshape, gstrides = _global_dims(gbuf, "global operand")
    if len(gshape) > MAX_RANK:
        fail(f"global operand {gbuf.name} has {len(gshape)} dimensions; a tensor map has at "
             f"most {MAX_RANK}")
    g_ext = [const_int(r.extent, "global region extent") for r in glob.region]
    s_nonunit = sorted({d for d, *_ in modes})
    g_nonunit = [k for k, e in enumerate(g_ext) if e != 1]
    s_ext = [const_int(r.extent, "shared region extent") for r in shared.region]
    if [s_ext[d] for d in s_nonunit] != [g_ext[k] for k in g_nonunit]:
        fail(f"the shared region {[s_ext[d] for d in s_nonunit]} and the global region "
             f"{[g_ext[k] for k in g_nonunit]} do not have the same non-unit extents")
    to_global = dict(zip(s_nonunit, g_nonunit))
    # modes in global terms: (global dim, extent, step, shared stride)
    gmodes = [(to_global[d], e, step, s) for d, e, step, s in modes]
    # the box: the dense chain of shared strides 1, e0, e0*e1, ... over distinct global
    # dims with step 1; the innermost must be contiguous in global memory
    box, used, expect, rest = [], set(), 1, list(gmodes)
    while True:
        pick = next((m for m in rest if m[3] == expect and m[2] == 1 and m[0] not in used),
                    None)
        if pick is None:
            break
        rest.remove(pick)
        g, e, step, s = pick
        if not box and gstrides[g] != 1:
            fail(f"the shared tile's contiguous elements run along dimension {g} of "
                 f"{gbuf.name}, which has stride {gstrides[g]}: TMA needs the innermost box "
                 "dimension contiguous in global memory")
        used.add(g)
        if e > MAX_BOX:
            b = max(f for f in range(1, MAX_BOX + 1) if e % f == 0)
            box.append((g, b))
            rest.append((g, e // b, b, s * b))
            break
        box.append((g, e))
        expect *= e
    if not box:
        if not gmodes:  # a single element
            fail("a one-element copy is not a TMA box (the inner box must be 16 bytes)")
        fail(f"no mode of the shared tile of {sbuf.name} has stride 1 in the shared layout "
             f"and step 1 in {gbuf.name}: TMA cannot write this tile")
    inner_bytes = box[0][1] * eb
    if inner_bytes % 16:
        fail(f"the inner box dimension is {inner_bytes} bytes ({box[0][1]} x {gbuf.dtype}); TMA "
             "needs a multiple of 16 bytes")
    if swizzle:
        span = 16 << swizzle
        if inner_bytes != span:
            fail(f"the inner box dimension is {inner_bytes} bytes; with the {span}-byte swizzle "
                 f"of {sbuf.name} it must be exactly {span} bytes")
    # tensor-map dimensions: the box, then the other global dims innermost first
    tmap_dims = [g for g, _ in box] + [k for k in reversed(range(len(gshape))) if k not in used]
    if len(tmap_dims) > MAX_RANK:
        fail(f"the copy needs {len(tmap_dims)} tensor-map dimensions, more than {MAX_RANK}")
    box_ext = [e for _, e in box] + [1] * (len(tmap_dims) - len(box))
    issues = []
    for g, e, step, s in rest:
        issues.append((e, tmap_dims.index(g), step, s))
    if swizzle:
        period = (8 << swizzle) * 16 // eb  # elements in one swizzle period
        for value in [smem_base] + [s for *_, s in issues]:
            if not provably_multiple(value, period):
                fail(f"shared offset {value} of {sbuf.name} is not a multiple of the swizzle "
                     f"period ({period} elements): TMA would swizzle it differently")
    for k, g in enumerate(tmap_dims[1:], 1):
        if (gstrides[g] * eb) % 16:
            fail(f"dimension {g} of {gbuf.name} has a byte stride of {gstrides[g] * eb}; TMA "
                 "needs multiples of 16 bytes")
    num = math.prod(e for e, *_ in issues)
    if num > MAX_ISSUES:
        fail(f"the copy needs {num} TMA instructions (more than {MAX_ISSUES})")
    analyzer = Analyzer()
    coords = [analyzer.simplify(glob.region[g].min) for g in tmap_dims]
    return TMAPlan(
        direction=direction, dtype=str(gbuf.dtype), gbuf=gbuf, sbuf=sbuf, swizzle=swizzle,
        tmap_dims=tmap_dims, dims=[gshape[g] for g in tmap_dims],
        strides=[gstrides[g] * eb for g in tmap_dims[1:]], box=box_ext, coords=coords,
        smem_offset=smem_base, issues=issues,
        box_bytes=math.prod(box_ext) * eb)


# --- the config ------------------------------------------------------------------------------
def _direction(call):
    if len(call.args) < 2:
        fail("copy_async needs a destination and a source")
    dst, src = call.args[0], call.args[1]
    for r, what in ((dst, "destination"), (src, "source")):
        if not isinstance(r, BufferRegion):
            fail(f"the {what} must be a buffer region")
    kinds = (memory_kind(dst.buffer), memory_kind(src.buffer))
    if kinds == ("shared", "global"):
        return "g2s", dst, src
    if kinds == ("global", "shared"):
        return "s2g", src, dst
    fail(f"TMA copies global <-> shared; this copy is {kinds[1]} -> {kinds[0]}")
    return None


def _check_config(call, direction):
    config = dict(call.config or {})
    not_yet = sorted(set(config) & _NOT_YET)
    if not_yet:
        fail(f"TMA option(s) {not_yet} not supported yet")
    unknown = sorted(set(config) - _KNOWN_CONFIG)
    if unknown:
        fail(f"unknown TMA option(s) {unknown} (known: {sorted(_KNOWN_CONFIG)})")
    reduce_op = config.get("use_tma_reduce")
    if reduce_op is not None:
        reduce_op = config["use_tma_reduce"] = str(getattr(reduce_op, "value", reduce_op))
        if direction != "s2g":
            fail("use_tma_reduce= applies to shared -> global TMA copies only")
        if reduce_op not in TMA_REDUCE_OPS:
            fail(f"use_tma_reduce={reduce_op!r} is not one of {', '.join(TMA_REDUCE_OPS)}")
    if direction == "g2s":
        if config.get("mbar") is None:
            fail("a global -> shared TMA copy needs mbar= (the mbarrier that counts the bytes)")
    else:
        for key in ("mbar", "cta_mask"):
            if config.get(key) is not None:
                fail(f"{key}= applies to global -> shared TMA copies only")
    mask = config.get("cta_mask")
    if isinstance(mask, (int, IntImm)) and not 0 <= int(mask) <= 0xFFFF:
        fail(f"cta_mask {int(mask)} does not fit 16 bits")
    return config


def _applicable(call, ctx, *, single):
    if ctx.scope_kind != "thread":
        return False, (f"TMA is issued by one thread: use thread scope (inside `if tid == 0`), "
                       f"got {ctx.scope_kind}")
    sm = target_sm(ctx)
    if sm is not None and sm < 90:
        return False, f"TMA needs sm_90 or newer, the target is sm_{sm}"
    direction, shared, glob = _direction(call)
    _check_config(call, direction)
    plan = plan_tma(shared, glob, direction)
    if single and plan.issues:
        return False, (f"tma_explicit issues one instruction; this copy needs {plan.num_issues} "
                       "(use tma_auto)")
    return True, None


# --- emission --------------------------------------------------------------------------------
def _descriptor(plan: TMAPlan, ctx):
    """The host-side tensor-map variable of ``plan`` (encoded once per lowering)."""
    key = ("tma_descriptor", id(plan.gbuf.data), plan.dtype, tuple(map(str, plan.dims)),
           tuple(map(str, plan.strides)), tuple(plan.box), plan.swizzle)
    key = repr(key)
    found = ctx.cache_get(key)
    if found is not None:
        return found
    count = ctx.cache_get("tma_descriptor_count") or 0
    ctx.cache_set("tma_descriptor_count", count + 1)
    name = f"{plan.gbuf.name}_tensormap" + (f"_{count}" if count else "")
    var = Var(name, ty=tensormap_pointer_type())
    rank = plan.rank
    args = [var, StringImm(plan.dtype), IntImm("int32", rank), plan.gbuf.data,
            *plan.dims, *plan.strides, *plan.box, *([1] * rank),
            0, plan.swizzle, L2_PROMOTION, 0]
    encode = Evaluate(call_packed("runtime.cuTensorMapEncodeTiled", *args))
    ctx.add_init_stmt(SeqStmt([Bind(var, tvm_stack_alloca("tensormap", 1)), encode]),
                      host=True)
    ctx.cache_set(key, var)
    return var


def _s32(value):
    if isinstance(value, int):
        return IntImm("int32", value)
    return value if value.dtype == "int32" else Cast("int32", value)


def _emit(plan: TMAPlan, config, ctx) -> PrimFunc:
    tmap = _descriptor(plan, ctx)
    view = decl_buffer((1,), plan.sbuf.dtype, f"{plan.sbuf.name}_tma", data=plan.sbuf.data,
                       scope=plan.sbuf.scope())
    rank = plan.rank
    mask = config.get("cta_mask")
    multicast = mask is not None and not (isinstance(mask, (int, IntImm)) and int(mask) == 0)
    if plan.direction == "g2s":
        chain = (f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile"
                 f".mbarrier::complete_tx::bytes" + (".multicast::cluster" if multicast else ""))
        mbar = config["mbar"]
        if not config.get("mbarrier_addr", False):
            mbar = cuda.cvta_generic_to_shared(mbar)
    elif config.get("use_tma_reduce") is not None:
        chain = (f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta."
                 f"{config['use_tma_reduce']}.tile.bulk_group")
    else:
        chain = f"cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group"
    loop_vars = [Var(f"tma_i{k}", "int32") for k in range(len(plan.issues))]
    coords = list(plan.coords)
    offset = plan.smem_offset
    for v, (_, dim, step, stride) in zip(loop_vars, plan.issues):
        coords[dim] = coords[dim] + v * step
        offset = offset + v * stride
    analyzer = Analyzer()
    coords = [_s32(analyzer.simplify(c)) for c in coords]
    smem = cuda.cvta_generic_to_shared(view.ptr_to([analyzer.simplify(offset)]))
    tmap_addr = address_of(tmap)
    if plan.direction == "g2s":
        args = [smem, tmap_addr, *coords, mbar]
        if multicast:
            args.append(Cast("uint16", mask) if not isinstance(mask, int)
                        else IntImm("uint16", mask))
    else:
        args = [tmap_addr, *coords, smem]
    body = Evaluate(ptx[chain](*args))
    for v, (extent, *_rest) in reversed(list(zip(loop_vars, plan.issues))):
        body = For(v, IntImm("int32", 0), IntImm("int32", extent), ForKind.UNROLLED, body)
    return PrimFunc([], SeqStmt([DeclBuffer(view), body]))


def _lower(call, ctx):
    direction, shared, glob = _direction(call)
    config = _check_config(call, direction)
    return _emit(plan_tma(shared, glob, direction), config, ctx)


@register_dispatch("copy_async", "cuda", variant="tma_auto", priority=10,
                   when=[predicate("tma_applicable", _applicable, single=False)])
def copy_async_tma_auto(call, ctx):
    """TMA copy global <-> shared, as many instructions as the shared layout needs (module
    docstring)."""
    return _lower(call, ctx)


@register_dispatch("copy_async", "cuda", variant="tma_explicit", priority=10,
                   when=[predicate("tma_single_box", _applicable, single=True)])
def copy_async_tma_explicit(call, ctx):
    """TMA copy global <-> shared as one instruction (module docstring)."""
    return _lower(call, ctx)
