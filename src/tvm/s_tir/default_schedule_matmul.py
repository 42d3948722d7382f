"""Rule 1 of the default CPU schedule: the tiled matmul (see ``default_schedule``'s docstring).

``C[i, j] += A(i, k) * B(k, j)`` (any operand order; ``A`` any expression of ``i`` and ``k``,
``B`` a load indexed by ``k`` and ``j`` in either order, so transposed operands work) becomes::

    for j0 in T.parallel(N // NR):                  # a strip of NR columns of C
        Bp = alloc(K, NR)                           # B's strip packed contiguously
        for k, j1 in T.grid(K, T.vectorized(NR)):
            Bp[k, j1] = B(k, j0 * NR + j1)
        for i0 in range(M // MR):
            acc = alloc(MR, NR)                     # the register tile
            acc[:, :] = 0
            for k in range(K):
                for i1 in T.unroll(MR):
                    for j1 in T.vectorized(NR):
                        acc[i1, j1] += A(i0 * MR + i1, k) * Bp[k, j1]
            C[i0 * MR + i1, j0 * NR + j1] = acc[i1, j1]          # (tile loops)
            epilogue(acc)                                        # (tile loops)

The packed strip (``K * NR`` floats) stays in the L2 cache for all row tiles and is read
with unit stride (B's own rows are 4 KiB apart for 1024 columns, which alias in the caches),
and the accumulator tile stays in vector registers. The packing is done at run time, each
call: the parameters change every training step. With fewer than ``MATMUL_PACK_MIN_ROWS``
(``MATMUL_PACK_MIN_ROWS_NARROW`` for AVX2's 16-column strips)
rows the copy does not pay off and B is read in place (unless it is read transposed).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools

from ..ffi.structural import structural_equal
from ..runtime.cpu_topology import default_num_threads, l2_cache_bytes
from ..tirx.buffer import decl_buffer
from ..tirx.expr import Add, IntImm, Mul, Var
from ..tirx.stmt import (
    BufferLoad,
    BufferStore,
    For,
    ForKind,
    IfThenElse,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ..tirx.stmt_functor import ir_transform, post_order_visit, substitute

__all__ = ["MATMUL_MIN_WORK", "MATMUL_TILES", "match_matmul", "matmul_tile", "tile_batched_matmul",
           "tile_matmul", "tile_shape", "vector_lanes", "vector_lanes_of"]

#: Rows and columns of the matmul register tile by the float32 lanes of the target's vectors
#: (:func:`vector_lanes_of`). AVX-512 (32 registers of 16 lanes): 4 x 64 is 16 accumulators.
#: AVX2 (16 registers of 8 lanes): 6 x 16 is 12 accumulators, a vector of B and a broadcast
#: of A; 4 x 64 there is 32 accumulators in 16 registers, spilled at every ``k`` (27 GFLOP/s
#: for 4096 x 1024 x 256 on one Zen 2 core, 75 with 6 x 16; OpenBLAS: 92). Rows that the
#: tile's rows leave over run as one shorter tile (the row tail).
MATMUL_TILES = {16: (4, 64), 8: (6, 16), 4: (4, 16)}
#: Smallest m * n * k given the tiled matmul schedule (smaller ones use the generic rule).
MATMUL_MIN_WORK = 4096
#: Fewest output rows for which B's strip is packed (see ``tile_matmul``).
MATMUL_PACK_MIN_ROWS = 128
#: The same for plans with 16-column strips (AVX2): a row of the strip is one cache line, and
#: B's rows read in place (1-4 KiB apart) alias in the L1 cache; packing from 16 rows on took
#: 64 x 1024 x 784 from 44 to 56-60 GFLOP/s on a Zen 2 core (NumPy: ~60).
MATMUL_PACK_MIN_ROWS_NARROW = 16
#: Most rows of the tile of a narrow output (see ``tile_shape``).
MATMUL_NARROW_ROWS = 8
#: Most packed strips per parallel task, the most bytes they may take, the fewest tasks per
#: thread that grouping must leave, and the bytes of A one row block may take (see
#: ``strip_group`` and ``row_block``: they keep a block of A in the L2 cache across strips).
#: ``None``: a quarter of the L2 cache each (``runtime.cpu_topology.l2_cache_bytes``: 512 KiB
#: for 2 MiB), so that the strips, the block of A and the output tiles stay in L2 together.
MATMUL_GROUP_MAX = 4
MATMUL_GROUP_BYTES = None
MATMUL_TASKS_PER_THREAD = 4
MATMUL_A_BLOCK_BYTES = None
#: Reduction length from which the reduction is split into blocks of ``MATMUL_K_BLOCK`` (see
#: ``_k_blocked``): a weight gradient ``X^T dY`` sums over all ``batch * seq`` rows.
MATMUL_K_BLOCK_MIN = 2048
MATMUL_K_BLOCK = 64
#: Loop order of the K-blocked matmul: strips outside the blocks (one parallel launch; the
#: default) or the blocks outside (a launch per block, a task's strips share the block of A
#: in L2). Same CPU time on one thread; one launch does not wait 64 times for the slowest
#: thread.
MATMUL_K_BLOCK_STRIPS_OUTSIDE = True
#: Most strips per task of the K-blocked matmul and the fewest tasks per thread its grouping
#: must leave (``k_strip_group``). Every task streams all of A once: on one Zen 2 core the
#: three dW matmuls of the transformer block took 84 ms with 4 strips a task, 66 with 16; on
#: two threads 51 ms with 4 tasks per thread, 36 with one.
MATMUL_K_GROUP_MAX = 16
MATMUL_K_TASKS_PER_THREAD = 1


_LANES = contextvars.ContextVar("tvm_matmul_vector_lanes", default=None)


#: x86 CPUs (LLVM's names) with AVX-512F, for targets that name a CPU without ``-mattr``.
_AVX512_CPUS = ("skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client",
                "icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids",
                "graniterapids", "graniterapids-d", "diamondrapids", "knl", "knm", "znver4",
                "znver5")


@functools.cache
def _lanes_of_key(key):
    # Lazy: llvmlite (through tvm.target.codegen) loads only when a matmul is scheduled.
    from ..target.codegen import llvm_cpu_has_features
    from ..target.target import Target

    target = Target(key) if key is not None else None
    if target is not None and str(target.kind.name) != "llvm":
        target = None  # the C backend compiles for the host
    attrs = dict(target.attrs) if target is not None else {}
    triple = str(attrs.get("mtriple") or "")
    if triple and not triple.startswith(("x86_64", "i386", "i686")):
        return 4  # NEON, RVV at 128 bits, ...
    cpu = str(attrs.get("mcpu") or "")
    if cpu and not attrs.get("mattr"):
        # Only the host's features and explicit -mattr are known: judge a named CPU by name.
        return 16 if cpu in _AVX512_CPUS else 8
    try:
        if llvm_cpu_has_features("avx512f", target):
            return 16
        if llvm_cpu_has_features("avx", target) or llvm_cpu_has_features("avx2", target):
            return 8
    except ImportError:
        return 8
    return 4


def vector_lanes_of(target=None):
    """float32 lanes of ``target``'s vector registers as the matmul schedule plans for them:
    16 with AVX-512F, 8 with AVX/AVX2, 4 otherwise (SSE, NEON); the host's CPU when
    ``target`` is None or an ``llvm`` target that names no CPU or attributes."""
    return _lanes_of_key(None if target is None else str(target))


def vector_lanes():
    """The lanes the schedule being built plans for: those of the target given to
    :func:`planning_for` around it, else the host's."""
    lanes = _LANES.get()
    return lanes if lanes is not None else vector_lanes_of(None)


@contextlib.contextmanager
def planning_for(target):
    """Schedule matmuls for ``target``'s vectors inside the ``with`` block (the default
    schedule sets it for the target it is given)."""
    token = _LANES.set(vector_lanes_of(target))
    try:
        yield
    finally:
        _LANES.reset(token)


def matmul_tile():
    """``(rows, columns)`` of the register tile for the current vectors (``MATMUL_TILES``)."""
    return MATMUL_TILES.get(vector_lanes(), MATMUL_TILES[8])


def _l2_share(value):
    return value if value is not None else l2_cache_bytes() // 4


def tile_shape(m, n, rows_contiguous=False):
    """``(rows, columns)`` of the register tile of an ``m x n`` output, or None.

    :func:`matmul_tile` when its columns divide ``n``; otherwise a half or quarter as wide
    tile (at least one vector) that divides ``n``, or, for ``n`` under the tile's width (a
    classifier's 10 columns), all the columns in one tile; a narrower tile has more rows, so
    that the tile still has about as many independent vector accumulators (a single row
    would wait on the FMA latency at every ``k``): at most ``MATMUL_NARROW_ROWS``, twice
    that when ``rows_contiguous`` (A read as ``A[k, i]``: a tile's rows are adjacent floats,
    while rows of a row-major A are 4 KiB apart for 1024 columns and more than 8 of them
    alias in the L1 cache). The rows are at most ``m``; when they do not divide ``m``, the
    ``m % rows`` rows left over run as one shorter tile (:func:`tile_matmul`).
    """
    tile_m, tile_n = matmul_tile()
    lanes = vector_lanes()
    if n % tile_n:
        width = next((w for w in (tile_n // 2, tile_n // 4) if w >= lanes and n % w == 0),
                     n if n < tile_n else None)
        if width is None:
            return None
        rows = MATMUL_NARROW_ROWS * (2 if rows_contiguous else 1)
        tile_m = max(1, min(rows, tile_m * (tile_n // lanes) // -(-width // lanes)))
        tile_n = width
    return min(tile_m, m), tile_n


def _vars_in(expr):
    found = set()
    post_order_visit(expr, lambda n: found.add(id(n)) if isinstance(n, Var) else None)
    return found


def match_matmul(headers, spatial, realize):
    """``(vi, vj, vk, a_expr, b_load)`` when the nest is a tileable matmul, else None.

    ``vi``/``vj``/``vk`` are the block iterators bound to the loops ``headers`` (in loop
    order: row, column, reduction).
    """
    block = realize.block
    if len(headers) != 3 or spatial != [True, True, False] or block.init is None:
        return None
    if not all(isinstance(h.extent, IntImm) and isinstance(h.min, IntImm) and h.min.value == 0
               for h in headers):
        return None
    if not (isinstance(realize.predicate, IntImm) and realize.predicate.value == 1):
        return None
    m, n, k = (h.extent.value for h in headers)
    if tile_shape(m, n) is None or m * n * k < MATMUL_MIN_WORK:
        return None
    by_loop = {id(v): iv.var for iv, v in zip(block.iter_vars, realize.iter_values)}
    vi, vj, vk = (by_loop.get(id(h.var)) for h in headers)
    if vi is None or vj is None or vk is None:
        return None
    store = block.body
    if not isinstance(store, BufferStore) or not isinstance(store.value, Add):
        return None
    # A batched matmul (``tile_batched_matmul``) has its batch loops' variables in front.
    prefix = list(store.indices[:-2])
    if not (len(store.indices) >= 2 and store.indices[-2] is vi and store.indices[-1] is vj):
        return None
    if any(_vars_in(ix) & {id(vi), id(vj), id(vk)} for ix in prefix):
        return None
    acc, prod = store.value.a, store.value.b
    if not (isinstance(acc, BufferLoad) and acc.buffer is store.buffer
            and structural_equal(list(acc.indices), list(store.indices))):
        return None
    init = block.init
    if not (isinstance(init, BufferStore) and init.buffer is store.buffer
            and not (_vars_in(init.value) & {id(vi), id(vj), id(vk)})):
        return None
    if not isinstance(prod, Mul):
        return None
    for a_expr, b_load in ((prod.a, prod.b), (prod.b, prod.a)):
        if not isinstance(b_load, BufferLoad) or len(b_load.indices) < 2:
            continue
        b_idx = [ix if isinstance(ix, Var) else None for ix in b_load.indices[-2:]]
        if not (b_idx == [vk, vj] or b_idx == [vj, vk]):
            continue
        if any(_vars_in(ix) & {id(vi), id(vj), id(vk)} for ix in b_load.indices[:-2]):
            continue
        a_vars = _vars_in(a_expr)
        if id(vj) in a_vars or id(store.buffer) in _buffers_in(a_expr):
            continue
        if b_load.buffer is store.buffer:
            continue
        return vi, vj, vk, a_expr, b_load
    return None


def _rows_contiguous(a_expr, vi):
    """Whether A is one load whose last index is the row iterator (``A[k, i]``)."""
    return (isinstance(a_expr, BufferLoad) and bool(a_expr.indices)
            and a_expr.indices[-1] is vi)


def _buffers_in(expr):
    found = set()
    post_order_visit(expr, lambda n: found.add(id(n.buffer)) if isinstance(n, BufferLoad)
                     else None)
    return found


def tile_matmul(headers, spatial, realize, epilogue=(), local=frozenset(), batched=False,
                cols=None):
    """The tiled schedule of a matmul-like nest, or None when the pattern does not match.

    ``epilogue`` holds ``(block, vi, vj)`` of elementwise nests (see
    ``default_schedule._matmul_chain``) run on each finished tile, in order. Buffers whose id
    is in ``local`` (the matmul's output or an epilogue's, when nothing else reads them) are
    not written to memory: they live in per-tile buffers (registers) instead. ``batched``:
    the nest runs inside a parallel batch loop (``tile_batched_matmul``), so its own loops
    stay serial, with one strip per task and the whole reduction. ``cols``: ``(first,
    count)`` of the output's columns to compute (all by default).

    An output narrower than the tile whose width is not a multiple of the vector lanes (a
    classifier's 10 columns with AVX2's 8 lanes) runs as two nests: the columns that fill
    whole vectors, then the rest (``<10 x float>`` vectors were split into 8 + 2 lanes with
    shuffles and spills at every ``k``: 64 x 10 x 256 took 90 us, NumPy 12).
    """
    matched = match_matmul(headers, spatial, realize)
    if matched is None:
        return None
    vi, vj, vk, a_expr, b_load = matched
    block = realize.block
    store = block.body
    i, j, kk = headers
    m, n, k = (h.extent.value for h in headers)
    first = 0
    if cols is not None:
        first, n = cols
    tile_m, tile_n = tile_shape(m, n, _rows_contiguous(a_expr, vi))
    lanes = vector_lanes()
    if cols is None and tile_n == n and n > lanes and n % lanes:
        whole = n - n % lanes
        parts = [tile_matmul(headers, spatial, realize, epilogue, local, batched, c)
                 for c in ((0, whole), (whole, n - whole))]
        return SeqStmt(parts)
    dt_i, dt_j, dt_k = i.var.dtype, j.var.dtype, kk.var.dtype
    i0, i1 = Var(f"{i.var.name}_0", dt_i), Var(f"{i.var.name}_1", dt_i)
    j0, j1 = Var(f"{j.var.name}_0", dt_j), Var(f"{j.var.name}_1", dt_j)
    kp = Var(f"{kk.var.name}_p", dt_k)
    jj = j0 * IntImm(dt_j, tile_n) + j1
    if first:
        jj = IntImm(dt_j, first) + jj
    dtype = store.buffer.dtype

    # B's column strip, packed: Bp[k, j1] = B(k, j0 * NR + j1).
    packed = decl_buffer((k, tile_n), b_load.buffer.dtype, name=f"{b_load.buffer.name}_packed")
    pack_store = BufferStore(packed, substitute(b_load, {vk: kp, vj: jj}), [kp, j1])
    prefix = list(store.indices[:-2])
    b_transposed = b_load.indices[-2] is vj
    if b_transposed:
        # B read transposed (B[j, k]): a row of the strip is a column of B. Copied element by
        # element along B's rows (contiguous reads); vectorized along j1 it was a stride-K
        # gather of NR scalar loads and inserts (~5x the LLVM IR of the whole pack, no faster).
        pack = For(j1, IntImm(dt_j, 0), IntImm(dt_j, tile_n), ForKind.SERIAL,
                   For(kp, IntImm(dt_k, 0), IntImm(dt_k, k), ForKind.SERIAL, pack_store))
    else:
        pack = For(kp, IntImm(dt_k, 0), IntImm(dt_k, k), ForKind.SERIAL,
                   For(j1, IntImm(dt_j, 0), IntImm(dt_j, tile_n), ForKind.VECTORIZED, pack_store))

    # A per-tile accumulator (stack memory of the task): LLVM keeps it in vector registers
    # once the tile loops are unrolled and vectorized.
    zero = block.init.value
    # Few row tiles (a batch of 64) do not repay the copy: B's strip is read in place then,
    # unless B is read transposed (B[j, k]: the copy makes the vector loads contiguous).
    pack_rows = MATMUL_PACK_MIN_ROWS if lanes >= 16 else MATMUL_PACK_MIN_ROWS_NARROW
    use_pack = m >= pack_rows or b_transposed
    b_value = packed[kk.var, j1] if use_pack else substitute(b_load, {vk: kk.var, vj: jj})

    def tile_part(rows, ii):
        """One register tile of ``rows`` rows whose row ``i1`` is the output's row ``ii``."""
        acc_buf = decl_buffer((rows, tile_n), dtype, name=f"{store.buffer.name}_local")
        tiles = {id(store.buffer): acc_buf}
        for blk, _, _ in epilogue:
            out = blk.body.buffer
            if id(out) in local and id(out) not in tiles:
                tiles[id(out)] = decl_buffer((rows, tile_n), out.dtype, name=f"{out.name}_local")
        a_value = substitute(a_expr, {vi: ii, vk: kk.var})
        update = acc_buf[i1, j1] + a_value * b_value

        def tile(stmt):
            stmt = For(j1, IntImm(dt_j, 0), IntImm(dt_j, tile_n), ForKind.VECTORIZED, stmt)
            return For(i1, IntImm(dt_i, 0), IntImm(dt_i, rows), ForKind.UNROLLED, stmt)

        stmts = [
            tile(BufferStore(acc_buf, zero, [i1, j1])),
            For(kk.var, kk.min, kk.extent, ForKind.SERIAL,
                tile(BufferStore(acc_buf, update, [i1, j1]))),
        ]
        if id(store.buffer) not in local:
            stmts.append(tile(BufferStore(store.buffer, acc_buf[i1, j1], [*prefix, ii, jj])))
        for blk, evi, evj in epilogue:
            stmts.append(tile(_epilogue_stage(blk.body, evi, evj, tiles, i1, j1, ii, jj)))
        allocs = [acc_buf] + [b for key, b in tiles.items() if key != id(store.buffer)]
        scope = SBlock((), [], [], f"{block.name_hint}_tile", SeqStmt(stmts),
                       alloc_buffers=allocs)
        return _TilePart(rows, ii, stmts, acc_buf, allocs, scope, a_value)

    # The row tiles, then the rows they leave over (fewer than tile_m) as one shorter tile.
    parts = [tile_part(tile_m, i0 * IntImm(dt_i, tile_m) + i1)]
    if m % tile_m:
        parts.append(tile_part(m % tile_m, IntImm(dt_i, m - m % tile_m) + i1))
    # One strip (a narrow output): the row tiles run in parallel after the packing instead.
    one_strip = n == tile_n
    parallel_rows = one_strip and m >= 2 * tile_m and not batched
    rows_kind = ForKind.PARALLEL if parallel_rows else ForKind.SERIAL
    kc = None if batched else k_block(k)
    if kc is not None:
        return _k_blocked(block, headers, (m, n, k), (tile_m, tile_n), kc, pack, packed,
                          parts, (i0, j0, kp, j1), b_value, use_pack, rows_kind,
                          _rows_contiguous(a_expr, vi), col0=first)
    group = 1 if batched else strip_group(n // tile_n, k, tile_n, use_pack)
    if group > 1:
        return _grouped_strips(block, headers, (m, n, k), (tile_m, tile_n), group, pack, packed,
                               parts, (i0, j0, kp, j1))
    rows = _row_tiles(i0, m // tile_m, rows_kind, parts, lambda part: part.scope)
    strip = SBlock((), [], [], f"{block.name_hint}_strip",
                   SeqStmt([pack, rows]) if use_pack else rows,
                   alloc_buffers=[packed] if use_pack else [])
    return For(j0, IntImm(dt_j, 0), IntImm(dt_j, n // tile_n),
               ForKind.SERIAL if one_strip or batched else ForKind.PARALLEL,
               SBlockRealize((), IntImm("bool", 1), strip))


class _TilePart:
    """The statements of one register tile (``tile_matmul``): ``rows`` rows, row ``i1`` at
    the output's row ``ii``; ``stmts`` zero the accumulator ``acc_buf``, run the reduction,
    store and run the epilogue; ``scope`` is the block holding them and ``allocs``;
    ``a_value`` is A's element of tile row ``i1`` at the reduction loop's ``k``."""

    def __init__(self, rows, ii, stmts, acc_buf, allocs, scope, a_value):
        self.rows, self.ii, self.stmts = rows, ii, stmts
        self.acc_buf, self.allocs, self.scope = acc_buf, allocs, scope
        self.a_value = a_value


def _row_tiles(i0, count, kind, parts, scope_of):
    """``for i0 in range(count): <the first part's tile>``, then the row tail's tile (the second
    part, if any) once; ``scope_of(part)`` is the block each runs."""
    rows = For(i0, IntImm(i0.dtype, 0), IntImm(i0.dtype, count), kind,
               SBlockRealize((), IntImm("bool", 1), scope_of(parts[0])))
    if len(parts) == 1:
        return rows
    return SeqStmt([rows, SBlockRealize((), IntImm("bool", 1), scope_of(parts[1]))])


def tile_batched_matmul(headers, spatial, realize):
    """The tiled schedule of a batched matmul, or None when the pattern does not match.

    ``C[b..., i, j] += A(b..., i, k) * B(b..., k, j)`` (``R.matmul`` with batch dimensions:
    attention's ``Q K^T`` and ``P V`` and their gradients, transposed operands included; a
    batch index of A or B may be missing, broadcast): the batch loops go outside, the
    outermost one parallel, and each batch element runs the tiled 2-D schedule of
    ``tile_matmul`` with serial loops inside (a B strip packed per batch element when it
    pays, as in 2-D)::

        for b in T.parallel(B):
            for j0 in range(N // NR): <pack B[b] strip; row tiles, as tile_matmul>
    """
    batch = len(headers) - 3
    if batch < 1 or spatial != [True] * (batch + 2) + [False]:
        return None
    if not all(isinstance(h.extent, IntImm) and isinstance(h.min, IntImm) and h.min.value == 0
               for h in headers[:batch]):
        return None
    block = realize.block
    bound = {id(v): iv for iv, v in zip(block.iter_vars, realize.iter_values)}
    batch_ivs = [bound.get(id(h.var)) for h in headers[:batch]]
    if any(iv is None for iv in batch_ivs):
        return None
    # The block's batch iterators become the batch loops' variables: the inner nest is a
    # 2-D matmul (its store's leading indices are those variables).
    vmap = {iv.var: h.var for iv, h in zip(batch_ivs, headers[:batch])}
    keep = [(iv, v) for iv, v in zip(block.iter_vars, realize.iter_values)
            if all(iv is not b for b in batch_ivs)]
    inner_block = block.replace(
        iter_vars=tuple(iv for iv, _ in keep), reads=(), writes=(),
        body=substitute(block.body, vmap),
        init=None if block.init is None else substitute(block.init, vmap))
    inner = SBlockRealize(tuple(v for _, v in keep), realize.predicate, inner_block)
    store = inner_block.body
    if not (isinstance(store, BufferStore) and len(store.indices) == batch + 2
            and all(ix is h.var for ix, h in zip(store.indices, headers[:batch]))):
        return None
    tiled = tile_matmul(headers[batch:], spatial[batch:], inner, batched=True)
    if tiled is None:
        return None
    for pos in reversed(range(batch)):
        h = headers[pos]
        kind = ForKind.PARALLEL if pos == 0 and h.extent.value > 1 else ForKind.SERIAL
        tiled = For(h.var, h.min, h.extent, kind, tiled)
    return tiled


def k_block(k):
    """Rows of the reduction per block of the K-blocked schedule (``_k_blocked``), or None:
    ``MATMUL_K_BLOCK`` when ``k`` is at least ``MATMUL_K_BLOCK_MIN`` and a multiple of it."""
    if MATMUL_K_BLOCK_MIN is None or k < MATMUL_K_BLOCK_MIN or k % MATMUL_K_BLOCK:
        return None
    return MATMUL_K_BLOCK


def _k_blocked(block, headers, shape, tile, kc, pack, packed, parts, loop_vars, b_value,
               use_pack, rows_kind, rows_contiguous, col0=0):
    """The matmul nest with its reduction split into blocks of ``kc`` (a long reduction)::

        Cs = alloc(M, N)                          # partial sums between the blocks
        for g in T.parallel(N // NR // G):        # (MATMUL_K_BLOCK_STRIPS_OUTSIDE)
            for kb in range(K // KC):
                Bp = alloc(G, KC, NR)             # G strips' rows of this block: in L1/L2
                for s in range(G): pack Bp[s, kc, j1] = B(kb * KC + kc, (g * G + s) * NR + j1)
                for i0 in range(M // MR):         # (and the row tail's tile)
                    Ap[kc, i1] = A(i0 * MR + i1, kb * KC + kc)    # the tile's rows of A
                    for s in range(G):
                        acc = 0 if kb == 0 else Cs[tile]
                        for kc in range(KC): acc += Ap[kc, i1] * Bp[s, kc, j1]
                        if kb < K // KC - 1: Cs[tile] = acc
                        else: <store C, epilogue>

    With one block of ``K`` rows per strip (the packed strip is ``K * NR`` floats, 1 MiB
    for ``K = 4096``), every row tile streams the whole strip from L2 and reads ``A`` at
    ``K`` rows, each in its own page when ``A`` is read transposed (``X^T dY``): no
    prefetching, a TLB miss per row. Here a block of ``A`` (``KC`` rows) and of ``B`` stay in
    the caches across all row tiles; the partial sums (``M x NR`` per strip) go through L2.
    A tile's rows of A are copied once per block into ``Ap`` (``KC x MR``, contiguous): read
    in place, ``A[k, i]`` is ``KC`` rows ``M`` floats apart, which for ``M = 1024`` all fall
    in one set of the L1 cache; the ``G`` strips of a task (:func:`k_strip_group`) then read
    the copy from L1, and A comes from memory once per task instead of once per strip.
    The copy is vectorized along the tile's rows when they are adjacent in A
    (``rows_contiguous``: ``A[k, i]``), unrolled otherwise.
    """
    i, j, kk = headers
    m, n, k = shape
    tile_m, tile_n = tile
    i0, j0, kp, jv = loop_vars
    dt_i, dt_j, dt_k = i.var.dtype, j.var.dtype, kk.var.dtype
    kb = Var(f"{kk.var.name}_b", dt_k)
    g = Var(f"{j.var.name}_g", dt_j)
    sv = Var(f"{j.var.name}_s", dt_j)
    blocks = k // kc
    strips = n // tile_n
    group = k_strip_group(strips, use_pack)
    acc0 = parts[0].acc_buf
    # (Columns from ``col0`` on: a narrow output's last columns, see ``tile_matmul``.)
    partial = decl_buffer((m, col0 + n), acc0.dtype, name=f"{acc0.name}_partial")
    k_abs = kb * IntImm(dt_k, kc) + kk.var
    packed_kc = decl_buffer((group, kc, tile_n), packed.dtype, name=packed.name)
    strip_of = {j0: g * IntImm(dt_j, group) + sv}
    # B's value at the block's row kk (from the group's packed block, or in place).
    b_kc = (BufferLoad(packed_kc, [sv, kk.var, jv]) if use_pack
            else substitute(substitute(b_value, {kk.var: k_abs}), strip_of))

    def blocked_scope(part):
        stmts, acc_buf, ii = part.stmts, part.acc_buf, part.ii
        i1 = stmts[0].loop_var

        def tile(stmt):
            stmt = For(jv, IntImm(dt_j, 0), IntImm(dt_j, tile_n), ForKind.VECTORIZED, stmt)
            return For(i1, IntImm(dt_i, 0), IntImm(dt_i, part.rows), ForKind.UNROLLED, stmt)

        a_tile = decl_buffer((kc, part.rows), part.a_value.dtype, name=f"{acc_buf.name}_a")
        pack_a = For(kk.var, IntImm(dt_k, 0), IntImm(dt_k, kc), ForKind.SERIAL,
                     For(i1, IntImm(dt_i, 0), IntImm(dt_i, part.rows),
                         ForKind.VECTORIZED if rows_contiguous else ForKind.UNROLLED,
                         BufferStore(a_tile, substitute(part.a_value, {kk.var: k_abs}),
                                     [kk.var, i1])))
        value = acc_buf[i1, jv] + BufferLoad(a_tile, [kk.var, i1]) * b_kc
        update = For(kk.var, IntImm(dt_k, 0), IntImm(dt_k, kc), ForKind.SERIAL,
                     tile(BufferStore(acc_buf, value, [i1, jv])))
        jj = j0 * IntImm(dt_j, tile_n) + jv
        if col0:
            jj = IntImm(dt_j, col0) + jj
        first = IfThenElse(kb == IntImm(dt_k, 0), stmts[0],
                           tile(BufferStore(acc_buf, BufferLoad(partial, [ii, jj]), [i1, jv])))
        finish = IfThenElse(kb < IntImm(dt_k, blocks - 1),
                            tile(BufferStore(partial, BufferLoad(acc_buf, [i1, jv]), [ii, jj])),
                            SeqStmt(stmts[2:]) if len(stmts) > 3 else stmts[2])
        strip = substitute(SeqStmt([first, update, finish]), strip_of)
        per_strip = For(sv, IntImm(dt_j, 0), IntImm(dt_j, group), ForKind.SERIAL,
                        SBlockRealize((), IntImm("bool", 1),
                                      SBlock((), [], [], f"{block.name_hint}_tile", strip,
                                             alloc_buffers=part.allocs)))
        return SBlock((), [], [], f"{block.name_hint}_rows", SeqStmt([pack_a, per_strip]),
                      alloc_buffers=[a_tile])

    one_strip = strips == 1
    rows = _row_tiles(i0, m // tile_m, rows_kind, parts, blocked_scope)
    if use_pack:
        def to_block(node):
            if isinstance(node, BufferStore) and node.buffer is packed:
                return BufferStore(packed_kc, node.value, [sv, *node.indices])
            return None

        pack_kc = ir_transform(pack, None, to_block, ["tirx.BufferStore"])
        pack_kc = _retarget_pack(pack_kc, kp, kc, kb * IntImm(dt_k, kc) + kp, dt_k)
        pack_kc = For(sv, IntImm(dt_j, 0), IntImm(dt_j, group), ForKind.SERIAL,
                      substitute(pack_kc, strip_of))
        strip_body = SeqStmt([pack_kc, rows])
        strip_allocs = [packed_kc]
    else:
        strip_body, strip_allocs = rows, []
    strip = SBlock((), [], [], f"{block.name_hint}_strip", strip_body,
                   alloc_buffers=strip_allocs)
    strip_kind = ForKind.SERIAL if one_strip else ForKind.PARALLEL
    tasks = strips // group
    if MATMUL_K_BLOCK_STRIPS_OUTSIDE:
        # One parallel launch: each task runs all blocks of its strips.
        blocks_loop = For(kb, IntImm(dt_k, 0), IntImm(dt_k, blocks), ForKind.SERIAL,
                          SBlockRealize((), IntImm("bool", 1), strip))
        outer = For(g, IntImm(dt_j, 0), IntImm(dt_j, tasks), strip_kind, blocks_loop)
    else:
        groups = For(g, IntImm(dt_j, 0), IntImm(dt_j, tasks), strip_kind,
                     SBlockRealize((), IntImm("bool", 1), strip))
        outer = For(kb, IntImm(dt_k, 0), IntImm(dt_k, blocks), ForKind.SERIAL, groups)
    scope = SBlock((), [], [], f"{block.name_hint}_kblocks", outer, alloc_buffers=[partial])
    return SBlockRealize((), IntImm("bool", 1), scope)


def k_strip_group(strips, use_pack, threads=None):
    """Strips per parallel task of the K-blocked matmul: doubles up to ``MATMUL_K_GROUP_MAX``
    while at least ``MATMUL_K_TASKS_PER_THREAD`` tasks per thread remain (a block's packed
    strips take ``G * KC * NR`` floats, a few KiB; each task streams all of A once); 1 when
    B is read in place."""
    if not use_pack:
        return 1
    return _group(strips, MATMUL_K_GROUP_MAX, MATMUL_K_TASKS_PER_THREAD, threads)


def _retarget_pack(pack, kp, kc, k_abs, dt_k):
    """The pack loop nest over ``kc`` rows, reading B at row ``k_abs`` (its ``kp`` -> ``k_abs``
    in the loads only; the packed buffer's own row stays ``kp``)."""

    def fix(node):
        if isinstance(node, For) and node.loop_var is kp:
            return For(kp, IntImm(dt_k, 0), IntImm(dt_k, kc), node.kind, node.body,
                       node.thread_binding, node.annotations)
        if isinstance(node, BufferStore):
            return BufferStore(node.buffer, substitute(node.value, {kp: k_abs}),
                               list(node.indices))
        return None

    return ir_transform(pack, None, fix, ["tirx.For", "tirx.BufferStore"])


def strip_group(strips, k, tile_n, use_pack, threads=None):
    """How many of B's packed strips one parallel task takes (1: one strip per task).

    A task with ``G`` strips packs them all (``G * K * NR`` floats, at most
    ``MATMUL_GROUP_BYTES``, by default a quarter of the L2 cache), then runs blocks of A's
    rows (``row_block``) against each strip
    in turn: a block of A is read from memory once and from the L2 cache ``G - 1`` more
    times, where one strip per task reads all of A from memory (or L3) once per strip. That
    stream is what two threads share (section "Threads" of ``docs/arch/codegen.md``). ``G``
    doubles while at least ``MATMUL_TASKS_PER_THREAD`` tasks per thread remain (the thread
    count at compile time, :func:`tvm.runtime.cpu_topology.default_num_threads`), up to
    ``MATMUL_GROUP_MAX``.
    """
    if not use_pack:
        return 1
    budget = _l2_share(MATMUL_GROUP_BYTES)
    return _group(strips, MATMUL_GROUP_MAX, MATMUL_TASKS_PER_THREAD, threads,
                  lambda group: group * k * tile_n * 4 <= budget)


def _group(strips, most, per_thread, threads, fits=None):
    """Strips per task: doubles while it stays at most ``most``, divides ``strips``, leaves
    at least ``per_thread`` tasks per thread (``threads``: the compile-time default when
    None) and, when given, ``fits(group)``."""
    if threads is None:
        threads = default_num_threads()
    group = 1
    while (group * 2 <= most and strips % (group * 2) == 0
           and strips // (group * 2) >= per_thread * threads
           and (fits is None or fits(group * 2))):
        group *= 2
    return group


def row_block(m, k, tile_m):
    """Rows of A a grouped task runs against each of its strips before the next block: all
    ``m`` when ``m * K`` floats fit ``MATMUL_A_BLOCK_BYTES`` (by default a quarter of the L2
    cache), else the largest multiple of
    ``tile_m`` dividing ``m`` that fits (at least ``tile_m``)."""
    limit = max(1, _l2_share(MATMUL_A_BLOCK_BYTES) // (4 * k))
    if m <= limit:
        return m
    best = tile_m
    for rows in range(tile_m, limit + 1, tile_m):
        if m % rows == 0:
            best = rows
    return best


def _grouped_strips(block, headers, shape, tile, group, pack, packed, parts, loop_vars):
    """The matmul nest with ``group`` strips per parallel task (see :func:`strip_group`)::

        for g in T.parallel(N // NR // G):
            Bp = alloc(G, K, NR)
            for s in range(G): pack strip g * G + s into Bp[s]
            for r in range(M // MB):                 # MB rows of A, kept in the L2 cache
                for s in range(G):
                    for i0 in range(MB // MR): <the register tile of strip g * G + s>
            for s in range(G): <the row tail's tile of strip g * G + s>   # (M % MR rows)
    """
    i, j, _ = headers
    m, n, k = shape
    tile_m, tile_n = tile
    i0, j0, _, _ = loop_vars
    dt_i, dt_j = i.var.dtype, j.var.dtype
    g = Var(f"{j.var.name}_g", dt_j)
    sv = Var(f"{j.var.name}_s", dt_j)
    rb = Var(f"{i.var.name}_b", dt_i)
    main_rows = m - m % tile_m
    rows_per_block = row_block(main_rows, k, tile_m)
    grouped = decl_buffer((group, k, tile_n), packed.dtype, name=packed.name)

    def to_group(node):
        if isinstance(node, BufferLoad) and node.buffer is packed:
            return BufferLoad(grouped, [sv, *node.indices])
        if isinstance(node, BufferStore) and node.buffer is packed:
            return BufferStore(grouped, node.value, [sv, *node.indices])
        return None

    def on_strip(stmt, rows=None):
        """``stmt`` on strip ``g * G + s`` of the grouped packed buffer; its row tile ``i0``
        of the row block ``rb`` when ``rows`` is given."""
        stmt = ir_transform(stmt, None, to_group, ["tirx.BufferLoad", "tirx.BufferStore"])
        vmap = {j0: g * IntImm(dt_j, group) + sv}
        if rows is not None:
            vmap[i0] = rb * IntImm(dt_i, rows // tile_m) + i0
        return substitute(stmt, vmap)

    tiles = For(i0, IntImm(dt_i, 0), IntImm(dt_i, rows_per_block // tile_m), ForKind.SERIAL,
                SBlockRealize((), IntImm("bool", 1), on_strip(parts[0].scope, rows_per_block)))
    per_block = For(rb, IntImm(dt_i, 0), IntImm(dt_i, main_rows // rows_per_block),
                    ForKind.SERIAL,
                    For(sv, IntImm(dt_j, 0), IntImm(dt_j, group), ForKind.SERIAL, tiles))
    packs = For(sv, IntImm(dt_j, 0), IntImm(dt_j, group), ForKind.SERIAL, on_strip(pack))
    body = [packs, per_block]
    if len(parts) > 1:
        body.append(For(sv, IntImm(dt_j, 0), IntImm(dt_j, group), ForKind.SERIAL,
                        SBlockRealize((), IntImm("bool", 1), on_strip(parts[1].scope))))
    strip = SBlock((), [], [], f"{block.name_hint}_strip", SeqStmt(body),
                   alloc_buffers=[grouped])
    return For(g, IntImm(dt_j, 0), IntImm(dt_j, n // tile_n // group), ForKind.PARALLEL,
               SBlockRealize((), IntImm("bool", 1), strip))


def _epilogue_stage(body, vi, vj, tiles, i1, j1, ii, jj):
    """An epilogue block body on one tile: per-tile buffers replace the local ones."""

    def redirect(node):
        if isinstance(node, BufferLoad) and id(node.buffer) in tiles:
            return BufferLoad(tiles[id(node.buffer)], [i1, j1])
        if isinstance(node, BufferStore) and id(node.buffer) in tiles:
            return BufferStore(tiles[id(node.buffer)], node.value, [i1, j1])
        return None

    body = ir_transform(body, None, redirect, ["tirx.BufferLoad", "tirx.BufferStore"])
    return substitute(body, {vi: ii, vj: jj})

