"""Hand-written llvmlite kernels over the packed API, for tests and benchmarks.

These stand in for generated code until the TIR code generator exists, and show how a code
generator uses :mod:`tvm.backend.llvm.packed_api` and ``TVMBackendParallelLaunch``.
"""

from __future__ import annotations

from llvmlite import ir  # only imported by tests and benchmarks that build kernels

from .packed_api import (
    I32,
    I64,
    PTR,
    ScalarParam,
    TensorParam,
    alloca,
    emit_packed_function,
    llvm_type,
)

_TASK_TYPE = ir.FunctionType(I32, [I32, PTR, PTR])
_LAUNCH_TYPE = ir.FunctionType(I32, [PTR, PTR, I32])


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


def _add_range_function(module: ir.Module, dtype: str) -> ir.Function:
    """``void add_range(noalias A, noalias B, noalias C, i64 begin, i64 end)``: C = A + B."""
    elem = llvm_type(dtype)
    fn = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, I64, I64]), name=f"add_range_{dtype}"
    )
    fn.linkage = "internal"
    for arg in fn.args[:3]:
        arg.add_attribute("noalias")
    a, b, c, begin, end = fn.args
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    is_float = isinstance(elem, (ir.FloatType, ir.DoubleType, ir.HalfType))

    def body(bld, i):
        x = bld.load(bld.gep(a, [i], source_etype=elem), typ=elem)
        y = bld.load(bld.gep(b, [i], source_etype=elem), typ=elem)
        bld.store(bld.fadd(x, y) if is_float else bld.add(x, y), bld.gep(c, [i], source_etype=elem))

    emit_counted_loop(builder, begin, end, body)
    builder.ret_void()
    return fn


def elementwise_add_module(
    name: str = "add", dtype: str = "float32", shape=("n",), parallel: bool = False
) -> ir.Module:
    """A module with ``name(A, B, C)`` computing ``C = A + B`` over 1-D tensors.

    ``shape`` is the 1-entry shape spec of all three tensors (static int or symbolic name).
    With ``parallel``, the range is split into one chunk per pool thread through
    ``TVMBackendParallelLaunch``.
    """
    module = ir.Module(name=f"{name}_module")
    add_range = _add_range_function(module, dtype)
    params = [TensorParam(p, dtype, tuple(shape)) for p in "ABC"]
    if not parallel:

        def body(builder, args):
            a, b, c = (args.tensors[p] for p in "ABC")
            builder.call(add_range, [a.data, b.data, c.data, ir.Constant(I64, 0), a.shape[0]])

        emit_packed_function(module, name, params, body)
        return module

    closure_type = ir.LiteralStructType([PTR, PTR, PTR, I64])
    task = ir.Function(module, _TASK_TYPE, name=f"{name}_task")
    task.linkage = "internal"
    task_id, penv, cdata = task.args
    tb = ir.IRBuilder(task.append_basic_block("entry"))
    fields = [
        tb.load(
            tb.gep(cdata, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=closure_type),
            typ=t,
        )
        for k, t in enumerate([PTR, PTR, PTR, I64])
    ]
    num_task = tb.sext(
        tb.load(tb.gep(penv, [ir.Constant(I64, 8)], source_etype=ir.IntType(8)), typ=I32), I64
    )
    n = fields[3]
    # chunk = ceil(n / num_task) rounded up to a multiple of 64 elements (whole cache lines).
    chunk = tb.sdiv(tb.add(n, tb.sub(num_task, ir.Constant(I64, 1))), num_task)
    chunk = tb.and_(tb.add(chunk, ir.Constant(I64, 63)), ir.Constant(I64, -64))
    begin = tb.mul(tb.sext(task_id, I64), chunk)
    end = tb.add(begin, chunk)
    end = tb.select(tb.icmp_signed("<", end, n), end, n)
    begin = tb.select(tb.icmp_signed("<", begin, n), begin, n)
    tb.call(add_range, [fields[0], fields[1], fields[2], begin, end])
    tb.ret(ir.Constant(I32, 0))

    launch = ir.Function(module, _LAUNCH_TYPE, name="TVMBackendParallelLaunch")

    def parallel_body(builder, args):
        a, b, c = (args.tensors[p] for p in "ABC")
        closure = alloca(builder, closure_type, "closure")
        for k, value in enumerate([a.data, b.data, c.data, a.shape[0]]):
            builder.store(
                value,
                builder.gep(
                    closure, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=closure_type
                ),
            )
        return builder.call(launch, [task, closure, ir.Constant(I32, 0)])

    emit_packed_function(module, name, params, parallel_body)
    return module


def noop_module(name: str = "noop", num_tensors: int = 3) -> ir.Module:
    """``name(A0, A1, ...)`` that checks ``num_tensors`` float32 tensors of shape (n,) only."""
    module = ir.Module(name=f"{name}_module")
    params = [TensorParam(f"A{k}", "float32", ("n",)) for k in range(num_tensors)]
    emit_packed_function(module, name, params, lambda builder, args: None)
    return module


def thread_ids_module(name: str = "thread_ids", spin_limit: int = 1 << 28) -> ir.Module:
    """``name(out: int64[m])``: m tasks, each writes ``pthread_self()`` to ``out[task_id]``.

    Each task first waits until all m tasks have started (or ``spin_limit`` iterations pass),
    so with m <= the pool size, m different threads must take part: a thread cannot run a
    second task while its first is still waiting.
    """
    module = ir.Module(name=f"{name}_module")
    arrived = ir.GlobalVariable(module, I32, name=f"{name}_arrived")
    arrived.linkage, arrived.initializer = "internal", ir.Constant(I32, 0)
    self_fn = ir.Function(module, ir.FunctionType(I64, []), name="pthread_self")
    task = ir.Function(module, _TASK_TYPE, name=f"{name}_task")
    task.linkage = "internal"
    task_id, penv, cdata = task.args
    tb = ir.IRBuilder(task.append_basic_block("entry"))
    num_task = tb.load(tb.gep(penv, [ir.Constant(I64, 8)], source_etype=ir.IntType(8)), typ=I32)
    tb.atomic_rmw("add", arrived, ir.Constant(I32, 1), "seq_cst")
    spin = task.append_basic_block("spin")
    done = task.append_basic_block("done")
    entry_block = tb.block
    tb.branch(spin)
    tb.position_at_end(spin)
    count = tb.phi(I64)
    count.add_incoming(ir.Constant(I64, 0), entry_block)
    seen = tb.load_atomic(arrived, "seq_cst", 4, typ=I32)
    waiting = tb.and_(
        tb.icmp_signed("<", seen, num_task),
        tb.icmp_signed("<", count, ir.Constant(I64, spin_limit)),
    )
    count.add_incoming(tb.add(count, ir.Constant(I64, 1)), spin)
    tb.cbranch(waiting, spin, done)
    tb.position_at_end(done)
    tid = tb.call(self_fn, [])
    tb.store(tid, tb.gep(cdata, [tb.sext(task_id, I64)], source_etype=I64))
    tb.ret(ir.Constant(I32, 0))
    launch = ir.Function(module, _LAUNCH_TYPE, name="TVMBackendParallelLaunch")

    def body(builder, args):
        out = args.tensors["out"]
        builder.store_atomic(ir.Constant(I32, 0), arrived, "seq_cst", 4)
        return builder.call(launch, [task, out.data, builder.trunc(out.shape[0], I32)])

    emit_packed_function(module, name, [TensorParam("out", "int64", ("m",))], body)
    return module


def failing_task_module(name: str = "fail_task", failing_task: int = 1) -> ir.Module:
    """``name(num_task: int32)``: task ``failing_task`` raises ValueError from inside the pool."""
    module = ir.Module(name=f"{name}_module")
    raise_fn = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [PTR, PTR]), name="TVMFFIErrorSetRaisedFromCStr"
    )
    strings = {}
    for key, text in (("kind", "ValueError"), ("msg", f"task {failing_task} failed on purpose")):
        data = bytearray(text.encode()) + b"\0"
        gv = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name=f"{name}_{key}")
        gv.linkage, gv.global_constant = "private", True
        gv.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
        strings[key] = gv
    task = ir.Function(module, _TASK_TYPE, name=f"{name}_task")
    task.linkage = "internal"
    tb = ir.IRBuilder(task.append_basic_block("entry"))
    bad = tb.icmp_signed("==", task.args[0], ir.Constant(I32, failing_task))
    with tb.if_then(bad):
        tb.call(raise_fn, [strings["kind"], strings["msg"]])
        tb.ret(ir.Constant(I32, -1))
    tb.ret(ir.Constant(I32, 0))
    launch = ir.Function(module, _LAUNCH_TYPE, name="TVMBackendParallelLaunch")

    def body(builder, args):
        return builder.call(launch, [task, ir.Constant(PTR, None), args.scalars["num_task"]])

    emit_packed_function(module, name, [ScalarParam("num_task", "int32")], body)
    return module


def nested_launch_module(name: str = "nested", inner_tasks: int = 3) -> ir.Module:
    """``name(out: int64[m * inner_tasks])``: m outer tasks, each launching ``inner_tasks``
    inner tasks (a nested launch) that write ``out[i] = i + 1``."""
    module = ir.Module(name=f"{name}_module")
    launch = ir.Function(module, _LAUNCH_TYPE, name="TVMBackendParallelLaunch")
    closure_type = ir.LiteralStructType([PTR, I64])  # (out, outer task id)

    inner = ir.Function(module, _TASK_TYPE, name=f"{name}_inner")
    inner.linkage = "internal"
    ib = ir.IRBuilder(inner.append_basic_block("entry"))
    fields = [
        ib.load(
            ib.gep(
                inner.args[2], [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=closure_type
            ),
            typ=t,
        )
        for k, t in enumerate([PTR, I64])
    ]
    index = ib.add(ib.mul(fields[1], ir.Constant(I64, inner_tasks)), ib.sext(inner.args[0], I64))
    ib.store(ib.add(index, ir.Constant(I64, 1)), ib.gep(fields[0], [index], source_etype=I64))
    ib.ret(ir.Constant(I32, 0))

    outer = ir.Function(module, _TASK_TYPE, name=f"{name}_outer")
    outer.linkage = "internal"
    ob = ir.IRBuilder(outer.append_basic_block("entry"))
    closure = alloca(ob, closure_type, "closure")
    for k, value in enumerate([outer.args[2], ob.sext(outer.args[0], I64)]):
        ob.store(
            value,
            ob.gep(closure, [ir.Constant(I32, 0), ir.Constant(I32, k)], source_etype=closure_type),
        )
    ob.ret(ob.call(launch, [inner, closure, ir.Constant(I32, inner_tasks)]))

    def body(builder, args):
        out = args.tensors["out"]
        outer_count = builder.sdiv(out.shape[0], ir.Constant(I64, inner_tasks))
        return builder.call(launch, [outer, out.data, builder.trunc(outer_count, I32)])

    emit_packed_function(module, name, [TensorParam("out", "int64", ("m",))], body)
    return module
