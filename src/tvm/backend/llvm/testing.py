"""Hand-written llvmlite kernels over the packed API, for tests and benchmarks.

These stand in for generated code until the TIR code generator exists, and show how a code
generator uses :mod:`tvm.backend.llvm.packed_api` and :mod:`tvm.backend.llvm.parallel`.
"""

from __future__ import annotations

from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)
from .packed_api import (
    I32,
    I64,
    PTR,
    ScalarParam,
    TensorParam,
    emit_packed_function,
    llvm_type,
)
from .parallel import emit_counted_loop, emit_parallel_chunks, emit_parallel_launch

__all__ = [
    "elementwise_add_module",
    "emit_counted_loop",
    "failing_task_module",
    "nested_launch_module",
    "noop_module",
    "thread_ids_module",
    "workspace_module",
]


def _add_range_function(module: ir.Module, dtype: str) -> ir.Function:
    """``void add_range(noalias A, noalias B, noalias C, i64 begin, i64 end)``: C = A + B."""
    elem = llvm_type(dtype)
    fn = ir.Function(
        module,
        ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, I64, I64]),
        name=f"add_range_{dtype}",
    )
    fn.linkage = "internal"
    for arg in fn.args[:3]:
        arg.add_attribute("noalias")  # lets the loop vectorizer skip runtime alias checks
    a, b, c, begin, end = fn.args
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    is_float = isinstance(elem, (ir.FloatType, ir.DoubleType, ir.HalfType))

    def body(bld, i):
        x = bld.load(bld.gep(a, [i], source_etype=elem), typ=elem)
        y = bld.load(bld.gep(b, [i], source_etype=elem), typ=elem)
        total = bld.fadd(x, y) if is_float else bld.add(x, y)
        bld.store(total, bld.gep(c, [i], source_etype=elem))

    emit_counted_loop(builder, begin, end, body)
    builder.ret_void()
    return fn


def elementwise_add_module(
    name: str = "add", dtype: str = "float32", shape=("n",), parallel: bool = False
) -> ir.Module:
    """A module with ``name(A, B, C)`` computing ``C = A + B`` over 1-D tensors.

    ``shape`` is the 1-entry shape spec of all three tensors (static int or symbolic name).
    With ``parallel``, the range is split into one chunk per pool thread (multiples of 64
    elements) through ``TVMBackendParallelLaunch``.
    """
    module = ir.Module(name=f"{name}_module")
    add_range = _add_range_function(module, dtype)
    params = [TensorParam(p, dtype, tuple(shape)) for p in "ABC"]

    def body(builder, args):
        a, b, c = (args.tensors[p] for p in "ABC")
        if not parallel:
            builder.call(add_range, [a.data, b.data, c.data, ir.Constant(I64, 0), a.shape[0]])
            return None

        def chunk(tb, begin, end, values):
            tb.call(add_range, [*values, begin, end])

        return emit_parallel_chunks(
            builder, a.shape[0], [a.data, b.data, c.data], chunk, f"{name}_task", align=64
        )

    emit_packed_function(module, name, params, body)
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

    def task_body(tb, task_id, num_task, values):
        (out,) = values
        tb.atomic_rmw("add", arrived, ir.Constant(I32, 1), "seq_cst")
        entry_block = tb.block
        spin = tb.function.append_basic_block("spin")
        done = tb.function.append_basic_block("done")
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
        tb.store(tb.call(self_fn, []), tb.gep(out, [tb.sext(task_id, I64)], source_etype=I64))

    def body(builder, args):
        out = args.tensors["out"]
        builder.store_atomic(ir.Constant(I32, 0), arrived, "seq_cst", 4)
        count = builder.trunc(out.shape[0], I32)
        return emit_parallel_launch(builder, [out.data], task_body, f"{name}_task", count)

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

    def task_body(tb, task_id, num_task, values):
        with tb.if_then(tb.icmp_signed("==", task_id, ir.Constant(I32, failing_task))):
            tb.call(raise_fn, [strings["kind"], strings["msg"]])
            tb.ret(ir.Constant(I32, -1))

    def body(builder, args):
        count = args.scalars["num_task"]
        return emit_parallel_launch(builder, [], task_body, f"{name}_task", count)

    emit_packed_function(module, name, [ScalarParam("num_task", "int32")], body)
    return module


def nested_launch_module(name: str = "nested", inner_tasks: int = 3) -> ir.Module:
    """``name(out: int64[m * inner_tasks])``: m outer tasks, each launching ``inner_tasks``
    inner tasks (a nested launch) that write ``out[i] = i + 1``."""
    module = ir.Module(name=f"{name}_module")

    def inner_body(tb, task_id, num_task, values):
        out, outer_id = values
        index = tb.add(tb.mul(outer_id, ir.Constant(I64, inner_tasks)), tb.sext(task_id, I64))
        tb.store(tb.add(index, ir.Constant(I64, 1)), tb.gep(out, [index], source_etype=I64))

    def outer_body(tb, task_id, num_task, values):
        (out,) = values
        captured = [out, tb.sext(task_id, I64)]
        return emit_parallel_launch(tb, captured, inner_body, f"{name}_inner", inner_tasks)

    def body(builder, args):
        out = args.tensors["out"]
        outer_count = builder.sdiv(out.shape[0], ir.Constant(I64, inner_tasks))
        count = builder.trunc(outer_count, I32)
        return emit_parallel_launch(builder, [out.data], outer_body, f"{name}_outer", count)

    emit_packed_function(module, name, [TensorParam("out", "int64", ("m",))], body)
    return module


def workspace_module(name: str = "workspace") -> ir.Module:
    """``name(X: float32[n], Y: float32[n], extra_bytes: int64, device_type: int32)``.

    Allocates an ``n * 4 + extra_bytes`` workspace on ``device_type`` through
    ``TVMBackendAllocWorkspace`` (returning -1 when it is NULL), writes ``2 * X`` plus the
    pointer's misalignment ``address % 64`` into it, copies it to ``Y`` and frees it.
    """
    module = ir.Module(name=f"{name}_module")
    alloc = ir.Function(
        module, ir.FunctionType(PTR, [I32, I32, I64, I32, I32]), name="TVMBackendAllocWorkspace"
    )
    free = ir.Function(
        module, ir.FunctionType(I32, [I32, I32, PTR]), name="TVMBackendFreeWorkspace"
    )
    f32 = llvm_type("float32")

    def body(builder, args):
        x, y = args.tensors["X"], args.tensors["Y"]
        n = args.shape_vars["n"]
        device = args.scalars["device_type"]
        nbytes = builder.add(builder.mul(n, ir.Constant(I64, 4)), args.scalars["extra_bytes"])
        hints = [ir.Constant(I32, 2), ir.Constant(I32, 32)]
        ws = builder.call(alloc, [device, ir.Constant(I32, 0), nbytes, *hints])
        with builder.if_then(builder.icmp_unsigned("==", ws, ir.Constant(PTR, None))):
            builder.ret(ir.Constant(I32, -1))
        skew = builder.uitofp(builder.urem(builder.ptrtoint(ws, I64), ir.Constant(I64, 64)), f32)

        def fill(b, i):
            v = b.load(b.gep(x.data, [i], source_etype=f32), typ=f32)
            v = b.fadd(b.fmul(v, ir.Constant(f32, 2.0)), skew)
            b.store(v, b.gep(ws, [i], source_etype=f32))

        def copy(b, i):
            v = b.load(b.gep(ws, [i], source_etype=f32), typ=f32)
            b.store(v, b.gep(y.data, [i], source_etype=f32))

        emit_counted_loop(builder, ir.Constant(I64, 0), n, fill)
        emit_counted_loop(builder, ir.Constant(I64, 0), n, copy)
        return builder.call(free, [device, ir.Constant(I32, 0), ws])

    params = [
        TensorParam("X", "float32", ("n",)),
        TensorParam("Y", "float32", ("n",)),
        ScalarParam("extra_bytes", "int64"),
        ScalarParam("device_type", "int32"),
    ]
    emit_packed_function(module, name, params, body)
    return module
