"""Default CPU schedules for unscheduled PrimFuncs (such as those of ``te.create_prim_func``).

``tvm.s_tir.Schedule`` is being written separately, so these rules are direct loop-nest
transformations on the s_tir function (before the blocks are lowered). They apply to a
function whose loops are all serial without annotations (nothing scheduled yet) and that does
not carry the attribute ``"tirx.is_scheduled"``. Each loop nest that is a perfect nest of
``For`` loops around one block, bound one loop per block iterator, is rewritten by the first
rule that matches (a function of several nests, such as FuseTIR's, has each nest scheduled;
FuseTIR's functions have no ``"s_tir"`` attribute, a root block realize marks them):

0. **producer inlining** (first, ``default_schedule_inline``): a nest that computes an
   intermediate buffer elementwise (``T_less[i, j] = x[i, j] < 0``) is removed and its value
   is substituted into the later spatial nests that read it (TVM's ``compute_inline``): one
   loop and no full-size intermediate instead of two. A pure permutation
   (``T[i, j] = X[j, i]``, FuseOps' ``permute_dims`` before a matmul) is also inlined into
   reductions: the matmul then reads ``X`` in place. Other producers are not inlined into
   reductions (they would be recomputed for every reduction step).
1. **matmul-like** (``C[i, j] += A(i, k) * B(k, j)`` up to operand order: two spatial
   iterators, one reduction, constant extents, ``m * n * k >= MATMUL_MIN_WORK``; ``A`` any
   expression of ``i, k`` such as ``A[k, i]``, ``B`` read as ``B[k, j]`` or ``B[j, k]``): a
   register tile over a packed strip of B (``default_schedule_matmul``)::

       for j0 in T.parallel(N // NR):
           Bp[k, j1] = B(k, j0 * NR + j1)              # K x NR strip, contiguous
           for i0 in range(M // MR):
               acc[MR, NR] = 0
               for k in range(K):
                   for i1 in T.unroll(MR):
                       for j1 in T.vectorized(NR):
                           acc[i1, j1] += A(i0 * MR + i1, k) * Bp[k, j1]
               C[i0 * MR + i1, j0 * NR + j1] = acc[i1, j1]

   ``MR x NR`` is ``matmul_tile()``, by the target's vectors (``MATMUL_TILES``): 4 x 64 with
   AVX-512 (16 accumulators of 32 registers), 6 x 16 with AVX2 (12 of 16), when NR divides
   N; a half- or quarter-wide tile with more rows when that divides N; all of N (< NR, a
   classifier's 10 columns) with up to 8 rows (16 when A is read as ``A[k, i]``) otherwise.
   The rows that MR leaves over (``M % MR``) run as one shorter tile. Other N use rule 2.
   The packed strip stays in L2 for all row tiles (B's own rows, 4 KiB apart, alias in the
   caches); with fewer than ``MATMUL_PACK_MIN_ROWS`` (128; 16 for AVX2's 16-column strips)
   rows B is read in place unless it is transposed; measured ~95-105 GFLOP/s on one core for the MLP
   gradient matmuls (NumPy/OpenBLAS: ~85-95).
   **Batched** (``C[b, i, j] += A(b, i, k) * B(b, k, j)``, attention's products and their
   gradients; ``tile_batched_matmul``): the batch loops go outside, the outermost parallel,
   and each batch element runs the tile schedule with serial loops (6 attention kernels of
   the transformer block: 49 -> 13 ms).
   A long reduction (``K >= MATMUL_K_BLOCK_MIN``, 2048: a weight gradient ``X^T dY`` over
   ``batch * seq`` rows) is split into blocks of ``MATMUL_K_BLOCK`` (64) rows, outermost;
   the partial sums go through an ``M x N`` buffer between the blocks and the epilogue runs
   on the last one (the transformer block's ``dW`` matmuls: 3-3.4x faster).
   **Epilogue** (FuseTIR's ``matmul + add + relu``, a gradient's ``matmul + SGD update``):
   the nests right after the matmul that are elementwise over its output (two spatial loops
   of its extents, reading what the matmul or an earlier such nest wrote only at their own
   ``[i, j]``) run on each finished tile, one unrolled/vectorized tile loop each (TVM's
   ``reverse_compute_at``). Intermediates of the chain that no other nest reads (the
   matmul's output, the bias add before the relu) are never written to memory: they live in
   per-tile buffers, and their allocations are dropped.
2. **generic**: when the innermost loop is a reduction and the last spatial loop indexes the
   output's last (contiguous) dimension, that spatial loop is moved innermost when it also
   runs along the last axis of an input the reduction streams through, or the reduction runs
   along none (the reduction runs outside it, so the innermost loop is vectorizable:
   ``sum(A, axis=0)``, untiled matmul ``for i, k, j``; not softmax's
   ``sum(exp(X[i, k] - max[i]))``, where ``max[i]`` is the same for every ``k`` and moving
   ``i`` inside would read ``X`` across rows), unless it has fewer than 8 iterations and the
   reduction at least 8;
   then the outermost loop becomes ``T.parallel`` when it is spatial, the nest does enough
   work (at least 4096 iterations, or a symbolic extent) and is not memory-bound (it has a
   reduction or calls a function such as ``exp``, or has at least
   ``PARALLEL_MEMORY_BOUND_MIN_WORK`` (256K) iterations; see ``PARALLEL_MEMORY_BOUND``); the
   innermost loop, when spatial, becomes ``T.vectorized``. A reduction's init is moved into
   its own loop nest before the reduction loops (decompose_reduction).
   **Reshape copies** (2a, ``default_schedule_reshape``): a copy whose source index divides
   the innermost loop (``X[n, j // 196, j % 196 // 14, j % 14]``, a flatten) has that loop
   split along the source's trailing dimensions when the divisions then simplify away, so
   both sides are plain strided copies.
   **Concatenations** (2c, ``default_schedule_concat``): a nest whose value selects
   (``if_then_else``/``Select``) by comparing its innermost loop with constants (a concat
   along the last axis, a split's gradient) has that loop cut at those constants; each
   piece, simplified with its bounds, reads one input with plain indices.
   **Long sums** (2b, ``default_schedule_reduce``): a sum whose innermost loop is still a
   reduction, with at least ``REDUCE_VECTOR_MIN_WORK`` terms per output (a convolution's
   weight gradient), accumulates into a vector of partial sums along that loop (TVM's
   ``rfactor``), added up at the end. A row reduction (one loop of at least 32, a multiple of
   16: layer norm's mean/variance, softmax's max and sum) runs on a 16-lane vector in steps
   of 16, the lanes combined at the end (layer norm 2.9 -> 0.4 ms for 4096 x 256).

3. **row fusion** (before 1-2): consecutive nests with the same outer extent, where each
   nest reads from buffers written by the earlier ones only the row its own outer loop is at
   (softmax, layer_norm rows), share one outer loop: ``for i: (max; exp; sum; divide)``. The
   stages inside are scheduled by rule 2 without parallelism; the shared loop is parallel
   under the same conditions. A row then stays in the cache between the stages. A column
   reduction (whose outer loop rule 2 would move innermost, ``collapse_sum`` over rows)
   starts no row group. Inside the shared loop, the stages are grouped again the same way
   over their next loop (``ROW_FUSION_DEPTH`` levels in all, two loops left in each stage):
   a convolution, its bias add and its relu run ``for n: for c: for h: (conv row; add;
   relu)``. Each row is still in L1 for the next stage, and LLVM sees one nest instead of
   three small ones, each of which it fully unrolled (fused_conv2d_add_relu of the cnn step:
   LLVM O3 0.23 s -> 0.04 s CPU, same speed).

FuseTIR nests the statements of a multi-nest PrimFunc (conv2d's pad + conv) in their own
``SeqStmt``: the root's statements are flattened first, so every nest is scheduled.

The rules never change results beyond the order of floating-point accumulation.
"""

from __future__ import annotations

from ..ffi.structural import structural_equal
from ..ir.expr import Range
from ..ir.module import IRModule
from ..tirx.expr import And, Call, IntImm, Var
from ..tirx.function import PrimFunc
from ..tirx.stmt import (
    AllocBuffer,
    BufferLoad,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ..tirx.stmt_functor import post_order_visit, substitute
from .default_schedule_concat import split_concat
from .default_schedule_inline import inline_producers, nest_work
from .default_schedule_matmul import (
    match_matmul,
    matmul_tile,
    planning_for,
    tile_batched_matmul,
    tile_matmul,
)
from .default_schedule_reduce import vector_reduce
from .default_schedule_reshape import split_reshape

__all__ = ["apply_default_schedule", "matmul_tile", "schedule_prim_func"]

PARALLEL_MIN_WORK = 4096
#: Levels of row fusion (rule 3): the shared row loop, and the rows of a row inside it.
ROW_FUSION_DEPTH = 3
#: Parallelize every memory-bound nest (plain loads and arithmetic, no reduction, no calls)
#: with enough work. Off: a memory-bound nest is parallel from
#: ``PARALLEL_MEMORY_BOUND_MIN_WORK`` iterations on. Measured on a 2-core Intel VM, a second
#: thread added no memory bandwidth (16M-element add: 22-26 GB/s serial vs 13 GB/s
#: parallel); on a 2-core Zen 2 VM it adds a third (4M-element add: 20 -> 27 GB/s; the
#: transformer block's step 3 % faster on two threads, the same on one).
PARALLEL_MEMORY_BOUND = False
#: Iterations from which a memory-bound nest is parallel anyway (None: never): a tensor of
#: 256K floats (1 MiB) is past the L2 cache, where a second core's own stream helps; smaller
#: nests (the small models' relus and bias adds) would mostly pay the launch.
PARALLEL_MEMORY_BOUND_MIN_WORK = 1 << 18


def _memory_parallel(work):
    """Whether a memory-bound nest of ``work`` iterations runs in parallel (None: a symbolic
    extent, whose size is not known: serial unless ``PARALLEL_MEMORY_BOUND``)."""
    if PARALLEL_MEMORY_BOUND:
        return True
    return (PARALLEL_MEMORY_BOUND_MIN_WORK is not None and work is not None
            and work >= PARALLEL_MEMORY_BOUND_MIN_WORK)


class _Loop:
    """A loop header of a nest being rewritten."""

    __slots__ = ("extent", "kind", "min", "var")

    def __init__(self, var, min_, extent, kind=ForKind.SERIAL):
        self.var, self.min, self.extent, self.kind = var, min_, extent, kind


def apply_default_schedule(mod: IRModule, target=None) -> IRModule:
    """Schedule every unscheduled s_tir PrimFunc of ``mod`` (see the module docstring).

    For GPU targets (the ``"gpu"`` key) the dlight GPU rules schedule them instead
    (``tvm.s_tir.dlight.apply_gpu_default_schedule``; docs/arch/gpu_schedules.md).
    """
    if target is not None and "gpu" in tuple(getattr(target, "keys", ()) or ()):
        # Same layer; imported here so that the CPU path does not load the GPU rules.
        from .dlight.base import apply_gpu_default_schedule

        return apply_gpu_default_schedule(mod, target, _unscheduled)
    funcs, changed = {}, False
    # The matmul register tile follows the target's vector registers (AVX-512 or AVX2).
    with planning_for(target):
        for gvar, func in mod.functions.items():
            new = schedule_prim_func(func) if isinstance(func, PrimFunc) else func
            changed |= new is not func
            funcs[gvar] = new
    return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos) if changed else mod


def _unscheduled(func: PrimFunc) -> bool:
    if func.get_attr("tirx.is_scheduled"):
        return False
    # FuseTIR builds its fused PrimFunc without the "s_tir" attribute: a root block realize
    # marks block-form (s_tir) IR as well.
    if not func.get_attr("s_tir") and not isinstance(func.body, SBlockRealize):
        return False
    scheduled = []

    def visit(node):
        if isinstance(node, For) and (node.kind != ForKind.SERIAL or node.annotations):
            scheduled.append(node)

    post_order_visit(func.body, visit)
    return not scheduled


def schedule_prim_func(func: PrimFunc) -> PrimFunc:
    """The function with the default schedule applied (unchanged when it is scheduled)."""
    if not _unscheduled(func):
        return func
    body = func.body
    if not isinstance(body, SBlockRealize):
        return func
    root = body.block
    # FuseTIR nests the statements of a multi-nest PrimFunc (conv2d's pad + conv) in a
    # SeqStmt of their own: flatten, so that every loop nest is seen.
    stmts = _flat_stmts(root.body)
    # Elementwise producers of intermediate buffers (and transposes, which FuseOps puts
    # before the matmul that reads them) are substituted into their readers (rule 0).
    # Intermediates: the root block's allocations (FuseTIR) or AllocBuffer statements
    # (TVMScript's T.alloc_buffer).
    allocated = list(root.alloc_buffers) + [s.buffer for s in stmts if isinstance(s, AllocBuffer)]
    stmts, inlined = inline_producers(stmts, allocated)
    intermediates = {id(b) for b in allocated}
    new_stmts, pending, pos = [], [], 0
    while pos < len(stmts):
        # A tileable matmul takes its elementwise consumers into its tile (rule 1); the
        # other nests between such matmuls go through row fusion and rules 1-2.
        chain = _matmul_chain(stmts, pos, intermediates)
        if chain is None:
            pending.append(stmts[pos])
            pos += 1
            continue
        new_stmts += _schedule_rows(pending)
        pending = []
        new_stmts.append(chain[0])
        pos += chain[1]
    new_stmts += _schedule_rows(pending)
    if not inlined and all(a is b for a, b in zip(new_stmts, stmts)):
        return func
    # Intermediates that the tiles keep in registers (or inlined producers) are gone.
    used = set()

    def visit(node):
        if isinstance(node, (BufferLoad, BufferStore)):
            used.add(id(node.buffer))
        elif isinstance(node, SBlock):
            # A buffer read or written only through match_buffer views is still used.
            used.update(id(m.source.buffer) for m in node.match_buffers)

    post_order_visit(SeqStmt.flatten(new_stmts), visit)
    new_body = SeqStmt.flatten([s for s in new_stmts if not isinstance(s, AllocBuffer)
                                or id(s.buffer) in used])
    allocs = [b for b in root.alloc_buffers if id(b) in used]
    new_root = root.replace(body=new_body, alloc_buffers=tuple(allocs))
    return func.with_body(body.replace(block=new_root))


def _flat_stmts(stmt):
    if not isinstance(stmt, SeqStmt):
        return [stmt]
    return [leaf for part in stmt.seq for leaf in _flat_stmts(part)]


def _schedule_rows(stmts):
    return [_fuse_rows(group) if len(group) > 1 else _schedule_nest(group[0])
            for group in _row_groups(stmts)]


def _matmul_chain(stmts, pos, intermediates=frozenset()):
    """``(tiled nest, number of nests used)`` for a matmul at ``stmts[pos]`` and its epilogue.

    The epilogue is the run of nests right after the matmul that are elementwise over the
    matmul's output shape (two spatial loops bound in order to the block's iterators) and read
    what the matmul or an earlier epilogue nest wrote only at their own ``[i, j]``. They run
    on each finished tile while it is in registers (TVM's ``reverse_compute_at``). The
    chain's outputs that are intermediates (ids in ``intermediates``) read by no later nest
    are never written to memory. None when ``stmts[pos]`` is not a tileable matmul.
    """
    nest = _nest_headers(stmts[pos])
    if nest is None:
        return None
    headers, spatial, realize = nest
    if match_matmul(headers, spatial, realize) is None:
        return None
    written = {id(st.buffer) for st in _stores(realize.block)}
    read = {id(ld.buffer) for ld in _loads(realize.block)}
    epilogue = []
    for stmt in stmts[pos + 1:]:
        consumer = _elementwise_consumer(stmt, headers[0], headers[1], written, read)
        if consumer is None:
            break
        epilogue.append(consumer)
        written.update(id(st.buffer) for st in _stores(consumer[0]))
        read.update(id(ld.buffer) for ld in _loads(consumer[0]))
    used = 1 + len(epilogue)
    read_later = set()
    for stmt in stmts[:pos] + stmts[pos + used:]:
        post_order_visit(stmt, lambda n: read_later.add(id(n.buffer))
                         if isinstance(n, BufferLoad) else None)
    local = {b for b in written if b in intermediates and b not in read_later}
    return tile_matmul(headers, spatial, realize, epilogue, local), used


def _elementwise_consumer(stmt, row, col, written, read):
    """``(block, row iterator var, column iterator var)`` of an epilogue nest, or None."""
    loops, realize = _perfect_nest(stmt)
    if loops is None or len(loops) != 2:
        return None
    block = realize.block
    if block.init is not None or not (isinstance(realize.predicate, IntImm)
                                      and realize.predicate.value == 1):
        return None
    for lp, h in zip(loops, (row, col)):
        if not (_is_zero(lp.min) and _same_extent(lp.extent, h.extent)
                and lp.loop_var.dtype == h.var.dtype):
            return None
    ivs = list(block.iter_vars)
    if len(ivs) != 2 or any(iv.iter_type != IterVar.DataPar for iv in ivs):
        return None
    if any(v is not lp.loop_var for v, lp in zip(realize.iter_values, loops)):
        return None
    vi, vj = ivs[0].var, ivs[1].var
    store = block.body
    if not (isinstance(store, BufferStore) and len(store.indices) == 2
            and store.indices[0] is vi and store.indices[1] is vj):
        return None
    if id(store.buffer) in written or id(store.buffer) in read:
        return None
    for load in _loads(block):
        if id(load.buffer) in written and not (
            len(load.indices) == 2 and load.indices[0] is vi and load.indices[1] is vj
        ):
            return None
    return block, vi, vj


def _nest_headers(stmt):
    """``(loop headers, spatial flags, realize)`` of a perfect nest, one loop per iterator."""
    loops, realize = _perfect_nest(stmt)
    if loops is None:
        return None
    kinds = {}
    for iv, value in zip(realize.block.iter_vars, realize.iter_values):
        if not isinstance(value, Var):
            return None
        kinds[id(value)] = iv.iter_type
    if len(kinds) != len(loops) or any(id(lp.loop_var) not in kinds for lp in loops):
        return None
    headers = [_Loop(lp.loop_var, lp.min, lp.extent) for lp in loops]
    return headers, [kinds[id(h.var)] == IterVar.DataPar for h in headers], realize


def _perfect_nest(stmt):
    loops = []
    while isinstance(stmt, For):
        loops.append(stmt)
        stmt = stmt.body
    if not loops or not isinstance(stmt, SBlockRealize):
        return None, None
    return loops, stmt


def _outer_row(stmt):
    """``(outer loop, realize, row iterator var)`` of a nest whose outer loop is spatial."""
    loops, realize = _perfect_nest(stmt)
    if loops is None or not _is_zero(loops[0].min):
        return None
    kind_of = {id(value): iv.iter_type == IterVar.DataPar
               for iv, value in zip(realize.block.iter_vars, realize.iter_values)}
    headers = [_Loop(lp.loop_var, lp.min, lp.extent) for lp in loops]
    if all(id(h.var) in kind_of for h in headers):
        # A column reduction (``collapse_sum`` over rows) runs its outer loop innermost
        # (rule 2): that loop cannot be shared as a row loop.
        moved = _moved_inside(headers, kind_of, realize.block, realize)
        if moved is not None and moved.var is loops[0].loop_var:
            return None
    for iv, value in zip(realize.block.iter_vars, realize.iter_values):
        if value is loops[0].loop_var and iv.iter_type == IterVar.DataPar:
            return loops[0], realize, iv.var
    return None


def _stores(block):
    stores = []
    for part in (block.init, block.body):
        if part is not None:
            post_order_visit(part, lambda n: stores.append(n) if isinstance(n, BufferStore)
                             else None)
    return stores


def _loads(block):
    loads = []
    post_order_visit(block.body, lambda n: loads.append(n) if isinstance(n, BufferLoad) else None)
    return loads


def _same_extent(a, b) -> bool:
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return structural_equal(a, b)


def _row_groups(stmts, depth=0):
    """Split consecutive nests into groups that can share their outer (row) loop.

    A nest joins the group when its outer loop has the same extent and it only reads, from
    buffers the group writes, the row its own outer loop is at (first index = the row
    iterator), and the group wrote exactly that row; it must not write what the group reads.
    Then ``for i: nest_1; for i: nest_2`` computes the same as ``for i: (nest_1; nest_2)``.
    ``depth``: the row iterator's index position (1 inside a shared row loop: the rows of
    a row, such as a convolution's output channels).
    """
    groups, current, rows_written, written, read = [], [], set(), set(), set()
    extent = None
    for stmt in stmts:
        row = _outer_row(stmt)
        joinable = row is not None and current and _same_extent(row[0].extent, extent)
        if joinable:
            block, row_var = row[1].block, row[2]
            for load in _loads(block):
                if id(load.buffer) in written and not (
                    id(load.buffer) in rows_written and len(load.indices) > depth
                    and load.indices[depth] is row_var
                ):
                    joinable = False
            if any(id(st.buffer) in read or id(st.buffer) in written for st in _stores(block)):
                joinable = False
        if not joinable:
            if current:
                groups.append(current)
            current, rows_written, written, read = [], set(), set(), set()
            if row is None:
                groups.append([stmt])
                continue
            extent = row[0].extent
        current.append(stmt)
        block, row_var = row[1].block, row[2]
        for st in _stores(block):
            row_store = len(st.indices) > depth and st.indices[depth] is row_var
            if row_store and id(st.buffer) not in written:
                rows_written.add(id(st.buffer))
            elif not row_store:
                rows_written.discard(id(st.buffer))  # every store must stay in its row
            written.add(id(st.buffer))
        read.update(id(ld.buffer) for ld in _loads(block))
    if current:
        groups.append(current)
    return groups


def _fuse_rows(group, outer_vars=frozenset(), depth=0):
    """One outer (row) loop around the group's nests, each scheduled inside it.

    Inside it, consecutive nests that can share their next loop the same way are fused
    again (up to ``ROW_FUSION_DEPTH`` levels, while two loops are left in each nest: the
    innermost stays a vector loop): a convolution's rows, its bias add and its relu then
    run row by row while the row is in the cache, and LLVM gets one loop nest, not three to
    unroll.
    """
    first = group[0]
    row_var = Var(first.loop_var.name, first.loop_var.dtype)
    outer = frozenset(outer_vars) | {id(row_var)}
    bodies, busy, work = [], False, 0
    for nest in group:
        this = nest_work(nest)[0]
        work = None if work is None or this is None else work + this
        bodies.append(substitute(nest.body, {nest.loop_var: row_var}))
        block = _perfect_nest(nest)[1].block
        busy |= block.init is not None or _calls_functions(block)
    deeper = depth + 1 < ROW_FUSION_DEPTH and all(
        isinstance(b, For) and isinstance(b.body, For) for b in bodies)
    groups = _row_groups(bodies, depth + 1) if deeper else [[b] for b in bodies]
    inner = [_fuse_rows(sub, outer, depth + 1) if len(sub) > 1
             else _schedule_nest(sub[0], outer_vars=outer, allow_parallel=False)
             for sub in groups]
    extent = first.extent
    kind = ForKind.SERIAL
    if depth > 0:
        return For(row_var, first.min, extent, kind, SeqStmt.flatten(inner))
    enough = work is None or work >= PARALLEL_MIN_WORK
    if (busy or _memory_parallel(work)) and enough and not (isinstance(extent, IntImm)
                                                           and extent.value < 2):
        kind = ForKind.PARALLEL
    return For(row_var, first.min, extent, kind, SeqStmt.flatten(inner))


def _schedule_nest(stmt, outer_vars=frozenset(), allow_parallel=True):
    loops, realize = _perfect_nest(stmt)
    if loops is None:
        return stmt
    block = realize.block
    # Each block iterator must be bound to exactly one loop variable, one loop each (or to a
    # variable of an enclosing loop, in ``outer_vars``).
    kinds = {}
    for iv, value in zip(block.iter_vars, realize.iter_values):
        if not isinstance(value, Var):
            return stmt
        if id(value) in outer_vars:
            continue
        kinds[id(value)] = iv.iter_type
    if len(kinds) != len(loops) or any(id(lp.loop_var) not in kinds for lp in loops):
        return stmt
    headers = [_Loop(lp.loop_var, lp.min, lp.extent) for lp in loops]
    spatial = [kinds[id(h.var)] == IterVar.DataPar for h in headers]
    values = list(realize.iter_values)
    tiled = None
    if not outer_vars:
        tiled = (tile_matmul(headers, spatial, realize)
                 or tile_batched_matmul(headers, spatial, realize))
    if tiled is not None:
        return tiled
    del values
    kind_of = {id(h.var): s for h, s in zip(headers, spatial)}
    split = (split_reshape(loops, realize) or split_concat(loops, realize)
             if not outer_vars else None)
    if split is not None:
        # Plain copies: parallel from PARALLEL_MEMORY_BOUND_MIN_WORK iterations on.
        work = nest_work(stmt)[0]
        if (allow_parallel and isinstance(split, For) and _memory_parallel(work)
                and not (isinstance(split.extent, IntImm) and split.extent.value < 2)):
            split = For(split.loop_var, split.min, split.extent, ForKind.PARALLEL, split.body,
                        split.thread_binding, split.annotations)
        return split
    headers = _generic(headers, spatial, block, realize, allow_parallel)
    summed = vector_reduce(headers, kind_of, realize)
    if summed is not None:
        return summed
    first_reduce = next((p for p, h in enumerate(headers) if not kind_of[id(h.var)]), None)
    if block.init is None or first_reduce is None:
        return _wrap(headers, realize)
    # Decompose the reduction: the init runs in its own nest before the reduction loops, so
    # the update loop has no `if k == 0` branch and vectorizes (TVM's decompose_reduction).
    inner = headers[first_reduce:]
    fresh = {id(h.var): Var(h.var.name, h.var.dtype) for h in inner if kind_of[id(h.var)]}
    init_ivs, init_values, vmap = [], [], {}
    for iv, value in zip(block.iter_vars, realize.iter_values):
        if iv.iter_type != IterVar.DataPar:
            continue
        new_iv = IterVar(iv.dom, Var(iv.var.name, iv.var.dtype), IterVar.DataPar)
        vmap[iv.var] = new_iv.var
        init_ivs.append(new_iv)
        init_values.append(fresh.get(id(value), value))
    # ``substitute`` leaves a BufferRegion as it is: map each range's min and extent instead.
    writes = [
        BufferRegion(w.buffer, [Range.from_min_extent(substitute(r.min, vmap),
                                                      substitute(r.extent, vmap))
                                for r in w.region])
        for w in block.writes
    ]
    init_block = SBlock(init_ivs, [], writes, f"{block.name_hint}_init",
                        substitute(block.init, vmap))
    init_nest = SBlockRealize(init_values, _init_predicate(realize.predicate, inner, fresh,
                                                          kind_of), init_block)
    for h in reversed([h for h in inner if kind_of[id(h.var)]]):
        init_nest = For(fresh[id(h.var)], h.min, h.extent, h.kind, init_nest)
    update = _wrap(inner, realize.replace(block=block.replace(init=None)))
    return _wrap(headers[:first_reduce], SeqStmt([init_nest, update]))


def _init_predicate(pred, inner, fresh, kind_of):
    """The realize predicate of a decomposed init: its conjuncts over spatial loops only."""
    # The init nest copies the spatial loops under new variables (``fresh``) and has no
    # reduction loops: conjuncts that mention a reduction loop are dropped (the init runs
    # once per spatial point, as TVM's decompose_reduction), the rest use the copies.
    reduce_ids = {id(h.var) for h in inner if not kind_of[id(h.var)]}
    loop_map = {h.var: fresh[id(h.var)] for h in inner if kind_of[id(h.var)]}
    kept = []
    stack = [pred]
    while stack:
        cond = stack.pop()
        if isinstance(cond, And):
            stack += [cond.b, cond.a]
            continue
        if isinstance(cond, IntImm) and cond.value == 1:
            continue
        if not _mentions_any(cond, reduce_ids):
            kept.append(substitute(cond, loop_map))
    if not kept:
        return IntImm("bool", 1)
    result = kept[0]
    for cond in kept[1:]:
        result = And(result, cond)
    return result


def _mentions_any(expr, var_ids) -> bool:
    found = []
    post_order_visit(expr, lambda n: found.append(n) if id(n) in var_ids else None)
    return bool(found)


def _wrap(headers, body):
    for h in reversed(headers):
        body = For(h.var, h.min, h.extent, h.kind, body)
    return body


def _is_zero(e):
    return isinstance(e, IntImm) and e.value == 0


def _generic(headers, spatial, block, realize, allow_parallel=True):
    headers = list(headers)
    kind_of = {id(h.var): s for h, s in zip(headers, spatial)}
    moved = _moved_inside(headers, kind_of, block, realize)
    if moved is not None:
        headers.remove(moved)
        headers.append(moved)
    work = 1
    symbolic = False
    for h in headers:
        if isinstance(h.extent, IntImm):
            work *= h.extent.value
        else:
            symbolic = True
    outer = headers[0]
    busy = (not all(kind_of.values()) or _calls_functions(block)
            or _memory_parallel(None if symbolic else work))
    if allow_parallel and busy and kind_of[id(outer.var)] and (symbolic or work >= PARALLEL_MIN_WORK) and not (
        isinstance(outer.extent, IntImm) and outer.extent.value == 1
    ):
        outer.kind = ForKind.PARALLEL
    inner = headers[-1]
    if kind_of[id(inner.var)] and (inner is not outer or not allow_parallel):
        inner.kind = ForKind.VECTORIZED
    return headers


def _moved_inside(headers, kind_of, block, realize):
    """The spatial loop header that rule 2 moves inside the reduction loops, or None."""
    out_last = _output_last_index_var(block, realize)
    reduce_vars = [h.var for h in headers if not kind_of[id(h.var)]]
    if (not kind_of[id(headers[-1].var)] and out_last is not None
            and (not _indexes_last_dim_of_a_load(block, realize, reduce_vars)
                 or _indexes_last_dim_of_a_load(block, realize, [out_last], reduce_vars))):
        last_spatial = [h for h in headers if kind_of[id(h.var)]]
        if last_spatial and last_spatial[-1].var is out_last:
            moved, inner = last_spatial[-1], headers[-1]
            # A few lanes (a 3 x 3 kernel's width) against a long reduction: the reduction
            # stays innermost and is vectorized instead (default_schedule_reduce).
            if (isinstance(moved.extent, IntImm) and isinstance(inner.extent, IntImm)
                    and moved.extent.value < 8 <= inner.extent.value):
                return None
            return moved
    return None


def _indexes_last_dim_of_a_load(block, realize, loop_vars, streamed_by=None) -> bool:
    """Whether one of ``loop_vars`` is bound to an iterator used in a load's last index.

    ``streamed_by``: only loads that also use an iterator bound to one of these loop
    variables count (the loads a reduction loop streams through; ``mean[i]`` in
    ``sum((X[i, k] - mean[i]) ** 2)`` is the same for every ``k``).
    """

    def bound_to(variables):
        return {id(iv.var) for iv, v in zip(block.iter_vars, realize.iter_values)
                if any(v is lv for lv in variables)}

    bound = bound_to(loop_vars)
    streaming = None if streamed_by is None else bound_to(streamed_by)
    found = []

    def visit_index(node):
        if isinstance(node, Var) and id(node) in bound:
            found.append(node)

    outputs = {id(st.buffer) for st in _stores(block)}

    def visit(node):
        # Inputs only: the accumulator's own load follows the output's layout.
        if (isinstance(node, BufferLoad) and node.indices and id(node.buffer) not in outputs
                and (streaming is None
                     or any(_mentions_any(index, streaming) for index in node.indices))):
            post_order_visit(node.indices[-1], visit_index)

    post_order_visit(block.body, visit)
    return bool(found)


def _calls_functions(block) -> bool:
    """Whether the block computes more than loads and plain arithmetic (e.g. ``exp``)."""
    found = []
    post_order_visit(block.body, lambda n: found.append(n) if isinstance(n, Call) else None)
    return bool(found)


def _output_last_index_var(block, realize):
    """The loop variable bound to the iterator in the output's last index, if any."""
    body = block.body
    if not isinstance(body, BufferStore) or not body.indices:
        return None
    last = body.indices[-1]
    for iv, value in zip(block.iter_vars, realize.iter_values):
        if last is iv.var:
            return value
    return None
