"""Emit parallel loops in llvmlite: outline a body into a task and call the thread pool.

A code generator lowering ``for i in T.parallel(n)`` calls :func:`emit_parallel_for` (or
:func:`emit_parallel_chunks` to get whole ranges, e.g. to call a vectorizable inner function)
where the loop stands. The helper

1. packs the values the body uses (``captured``) into a closure struct on the caller's stack
   (allocated in the entry block, so launching inside a loop does not grow the stack);
2. outlines the body into ``internal i32 <name>(i32 task_id, TVMParallelGroupEnv* penv,
   void* closure)``, where the captured values are reloaded;
3. emits ``TVMBackendParallelLaunch(task, closure, num_task)`` and returns its i32 status.

The caller must propagate a nonzero status (an error was raised, e.g. by a task), for
instance with :func:`emit_return_on_error`. See ``docs/arch/codegen_runtime.md`` for the pool.

Example::

    status = emit_parallel_for(builder, n, [a_ptr, b_ptr],
                               lambda b, i, (a, bb): b.store(..., b.gep(a, [i], ...)))
    emit_return_on_error(builder, status)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)
from .packed_api import I32, I64, PTR, alloca

TASK_TYPE = ir.FunctionType(I32, [I32, PTR, PTR])
LAUNCH_TYPE = ir.FunctionType(I32, [PTR, PTR, I32])
LAUNCH_SYMBOL = "TVMBackendParallelLaunch"
# TVMParallelGroupEnv { void* sync_handle; int32_t num_task; }: num_task is at byte 8.
_PENV_NUM_TASK_OFFSET = 8

#: Whether parallel loops hand out their iterations in chunks claimed at run time (see
#: :func:`emit_parallel_chunks`), and how many chunks per task.
DYNAMIC_CHUNKS = True
CHUNKS_PER_TASK = 4

TaskBody = Callable[[ir.IRBuilder, ir.Value, ir.Value, list], "ir.Value | None"]


def declare_launch(module: ir.Module) -> ir.Function:
    """Get or declare ``TVMBackendParallelLaunch`` in ``module``."""
    existing = module.globals.get(LAUNCH_SYMBOL)
    return existing if existing is not None else ir.Function(module, LAUNCH_TYPE, LAUNCH_SYMBOL)


def emit_parallel_launch(
    builder: ir.IRBuilder,
    captured: Sequence[ir.Value],
    task_body: TaskBody,
    name: str = "parallel_task",
    num_task: int | ir.Value = 0,
    counter: bool = False,
) -> ir.Value:
    """Outline ``task_body`` into a task function and launch it on the pool.

    Parameters
    ----------
    builder : llvmlite.ir.IRBuilder
        Positioned where the launch goes (at the end of a block).
    captured : sequence of llvmlite.ir.Value
        Values the body needs; inside the task they are reloaded from the closure.
    task_body : callable
        ``task_body(task_builder, task_id, num_task, values)`` emits one task (``task_id`` and
        ``num_task`` are i32; ``values`` are the reloaded ``captured``). It may return an i32
        status (nonzero: it raised an error) or None (success).
    name : str
        Base name of the outlined function (made unique in the module).
    num_task : int or i32 value
        Number of tasks; 0 means one per pool thread.
    counter : bool
        Add an i64 slot set to 0 at each launch, shared by the launch's tasks: ``values``
        gets its pointer as a last element (for :func:`emit_parallel_chunks`' dynamic
        chunks).

    Returns
    -------
    llvmlite.ir.Value
        The i32 status of the launch (0, or the first failing task's status).
    """
    module = builder.module
    fn = builder.function
    if counter:
        captured = [*captured, ir.Constant(I64, 0)]
    closure_type = ir.LiteralStructType([v.type for v in captured])
    # The closure lives in the entry block: a launch inside a loop reuses the same slot.
    entry_builder = ir.IRBuilder(fn.entry_basic_block)
    entry_builder.position_at_start(fn.entry_basic_block)
    closure = alloca(entry_builder, closure_type, f"{name}.closure")
    if builder.block is fn.entry_basic_block:
        # llvmlite keeps the insertion point as an index: re-anchor it after the insertion.
        builder.position_at_end(builder.block)
    for k, value in enumerate(captured):
        slot = builder.gep(
            closure, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=closure_type
        )
        builder.store(value, slot)

    task = ir.Function(module, TASK_TYPE, name=module.get_unique_name(name))
    task.linkage = "internal"
    task_id, penv, cdata = task.args
    task_id.name, penv.name, cdata.name = "task_id", "penv", "closure"
    tb = ir.IRBuilder(task.append_basic_block("entry"))
    values = []
    for k, value in enumerate(captured):
        slot = tb.gep(cdata, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=closure_type)
        last = k == len(captured) - 1
        values.append(slot if counter and last else tb.load(slot, typ=value.type))
    count_ptr = tb.gep(penv, [ir.Constant(I64, _PENV_NUM_TASK_OFFSET)], source_etype=ir.IntType(8))
    count = tb.load(count_ptr, typ=I32, name="num_task")
    status = task_body(tb, task_id, count, values)
    if not tb.block.is_terminated:
        tb.ret(status if status is not None else ir.Constant(I32, 0))

    tasks = ir.Constant(I32, num_task) if isinstance(num_task, int) else num_task
    return builder.call(declare_launch(module), [task, closure, tasks], name=f"{name}.status")


def emit_parallel_chunks(
    builder: ir.IRBuilder,
    extent: ir.Value,
    captured: Sequence[ir.Value],
    chunk_body: Callable[[ir.IRBuilder, ir.Value, ir.Value, list], None],
    name: str = "parallel_for",
    align: int = 1,
    num_task: int | ir.Value = 0,
    dynamic: bool | None = None,
) -> ir.Value:
    """Split ``[0, extent)`` into chunks and run ``chunk_body`` on each, over the pool.

    ``chunk_body(task_builder, begin, end, values)`` receives i64 bounds (``begin < end``;
    empty chunks are skipped). Chunk sizes are multiples of ``align`` (e.g. the vector width
    or a cache line) except the last.

    ``dynamic`` (default :data:`DYNAMIC_CHUNKS`): the launch has one task per thread, and
    each task claims chunks of about ``extent / (CHUNKS_PER_TASK * tasks)`` from a counter
    shared by the launch (one atomic add per chunk) until none is left. A thread the OS
    preempted (a loaded machine, NumPy's or PyTorch's threads beside ours) then holds back
    one small chunk, not a whole ``1 / tasks`` of the loop: the others, the launcher
    included, take the rest. Otherwise each task runs one contiguous chunk of
    ``extent / tasks``. One task (a one-thread pool, or a serial launch) runs everything as
    one chunk either way. Returns the launch status.
    """
    if align < 1:
        raise ValueError(f"emit_parallel_chunks: align must be >= 1, got {align}")
    if dynamic is None:
        dynamic = DYNAMIC_CHUNKS

    def align_up(tb, value):
        if align == 1:
            return value
        return tb.mul(tb.sdiv(tb.add(value, ir.Constant(I64, align - 1)), ir.Constant(I64, align)),
                      ir.Constant(I64, align))

    def static_body(tb, task_id, count, values):
        n = values[-1]
        tasks = tb.sext(count, I64)
        chunk = align_up(tb, tb.sdiv(tb.add(n, tb.sub(tasks, ir.Constant(I64, 1))), tasks))
        begin = tb.mul(tb.sext(task_id, I64), chunk)
        end = tb.add(begin, chunk)
        end = tb.select(tb.icmp_signed("<", end, n), end, n, name="end")
        with tb.if_then(tb.icmp_signed("<", begin, end)):
            chunk_body(tb, begin, end, values[:-1])

    def dynamic_body(tb, task_id, count, values):
        n, next_ptr = values[-2], values[-1]
        one = ir.Constant(I64, 1)
        tasks = tb.sext(count, I64)
        pieces = tb.mul(tasks, ir.Constant(I64, CHUNKS_PER_TASK))
        grain = tb.sdiv(tb.add(n, tb.sub(pieces, one)), pieces)
        single = tb.icmp_signed("<=", tasks, one)
        grain = align_up(tb, tb.select(single, n, grain))
        grain = tb.select(tb.icmp_signed("<", grain, one), one, grain, name="grain")
        fn = tb.function
        claim = fn.append_basic_block("chunk.claim")
        run = fn.append_basic_block("chunk.run")
        done = fn.append_basic_block("chunk.done")
        tb.branch(claim)
        tb.position_at_end(claim)
        begin = tb.atomic_rmw("add", next_ptr, grain, "monotonic", name="begin")
        tb.cbranch(tb.icmp_signed("<", begin, n), run, done)
        tb.position_at_end(run)
        end = tb.add(begin, grain)
        end = tb.select(tb.icmp_signed("<", end, n), end, n, name="end")
        chunk_body(tb, begin, end, values[:-2])
        if not tb.block.is_terminated:
            tb.branch(claim)
        tb.position_at_end(done)

    if dynamic:
        return emit_parallel_launch(builder, [*captured, extent], dynamic_body, name, num_task,
                                    counter=True)
    return emit_parallel_launch(builder, [*captured, extent], static_body, name, num_task)


def emit_parallel_for(
    builder: ir.IRBuilder,
    extent: ir.Value,
    captured: Sequence[ir.Value],
    body: Callable[[ir.IRBuilder, ir.Value, list], None],
    name: str = "parallel_for",
    num_task: int | ir.Value = 0,
) -> ir.Value:
    """``for i in parallel(extent): body(builder, i, values)`` with i64 ``i``; returns the
    launch status. Each task runs contiguous chunks of iterations (see
    :func:`emit_parallel_chunks`)."""

    def chunk_body(tb, begin, end, values):
        emit_counted_loop(tb, begin, end, lambda b, i: body(b, i, values))

    return emit_parallel_chunks(builder, extent, captured, chunk_body, name, 1, num_task)


def emit_counted_loop(builder: ir.IRBuilder, start, stop, body) -> None:
    """Emit ``for i in range(start, stop): body(builder, i)`` (i64 induction variable)."""
    fn = builder.function
    pre = builder.block
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("loop.done")
    builder.cbranch(builder.icmp_signed("<", start, stop), loop, done)
    builder.position_at_end(loop)
    index = builder.phi(I64, name="i")
    index.add_incoming(start, pre)
    body(builder, index)
    nxt = builder.add(index, ir.Constant(I64, 1), name="i.next")
    index.add_incoming(nxt, builder.block)
    builder.cbranch(builder.icmp_signed("<", nxt, stop), loop, done)
    builder.position_at_end(done)


def emit_return_on_error(builder: ir.IRBuilder, status: ir.Value) -> None:
    """Return ``status`` from the current function when it is nonzero; continue otherwise."""
    with builder.if_then(builder.icmp_signed("!=", status, ir.Constant(I32, 0)), likely=False):
        builder.ret(status)
