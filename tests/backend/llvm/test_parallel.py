"""Parallel-loop emission helpers: outlined tasks, closures, chunking, error propagation."""

import numpy as np
import pytest
from llvmlite import ir

from tvm.backend.llvm import build_module
from tvm.backend.llvm.packed_api import (
    I32,
    I64,
    ScalarParam,
    TensorParam,
    emit_packed_function,
)
from tvm.backend.llvm.parallel import (
    emit_counted_loop,
    emit_parallel_chunks,
    emit_parallel_for,
    emit_parallel_launch,
    emit_return_on_error,
)

OUT = [TensorParam("out", "int64", ("n",)), ScalarParam("num_task", "int32")]


def _build(name, body, params=OUT):
    module = ir.Module(name)
    emit_packed_function(module, name, params, body)
    return build_module(module)[name], str(module)


def test_parallel_for_covers_every_index_once():
    def body(builder, args):
        out = args.tensors["out"]

        def step(b, i, values):
            (data,) = values
            slot = b.gep(data, [i], source_etype=I64)
            b.store(b.add(b.load(slot, typ=I64), b.mul(i, ir.Constant(I64, 2))), slot)

        return emit_parallel_for(
            builder, out.shape[0], [out.data], step, num_task=args.scalars["num_task"]
        )

    pfor, _ = _build("pfor", body)
    for n in (0, 1, 7, 1000, 100_003):
        for num_task in (0, 1, 3, 64, 2000):
            out = np.zeros(n, "int64")
            pfor(out, num_task)
            np.testing.assert_array_equal(out, 2 * np.arange(n))


@pytest.mark.parametrize("dynamic", [False, True])
def test_chunks_are_aligned(dynamic):
    def body(builder, args):
        out = args.tensors["out"]

        def chunk(b, begin, end, values):
            (data,) = values
            emit_counted_loop(
                b, begin, end, lambda bb, i: bb.store(begin, bb.gep(data, [i], source_etype=I64))
            )

        return emit_parallel_chunks(
            builder, out.shape[0], [out.data], chunk, align=16, num_task=args.scalars["num_task"],
            dynamic=dynamic,
        )

    chunks, _ = _build(f"chunks_{int(dynamic)}", body)
    out = np.full(1000, -1, "int64")
    chunks(out, 7)
    begins = np.unique(out)
    assert (begins % 16 == 0).all()
    assert (np.diff(out) >= 0).all()  # every element written by the chunk that holds it
    sizes = np.diff(np.append(begins, 1000))
    if dynamic:  # 7 tasks x 4 chunks each: ceil(1000 / 28) = 36, aligned up to 48
        assert begins[0] == 0 and (sizes[:-1] == 48).all() and len(begins) == 21
    else:  # one contiguous chunk per task, in task order
        assert begins[0] == 0 and len(begins) == 7 and (sizes[:-1] == 144).all()


def test_dynamic_chunks_one_task_runs_one_chunk():
    def body(builder, args):
        out = args.tensors["out"]

        def chunk(b, begin, end, values):
            (data,) = values
            emit_counted_loop(
                b, begin, end, lambda bb, i: bb.store(begin, bb.gep(data, [i], source_etype=I64))
            )

        return emit_parallel_chunks(builder, out.shape[0], [out.data], chunk,
                                    num_task=args.scalars["num_task"], dynamic=True)

    chunks, _ = _build("chunks_single", body)
    out = np.full(999, -1, "int64")
    chunks(out, 1)
    assert (out == 0).all()
    for tasks in (2, 3, 64):  # chunks claimed at run time: every element exactly once
        out[:] = -1
        chunks(out, tasks)
        assert (out >= 0).all() and (np.diff(out) >= 0).all()


def test_launch_inside_a_loop_reuses_one_closure():
    def body(builder, args):
        out = args.tensors["out"]

        def repeat(b, _):
            def step(bb, i, values):
                (data,) = values
                slot = bb.gep(data, [i], source_etype=I64)
                bb.store(bb.add(bb.load(slot, typ=I64), ir.Constant(I64, 1)), slot)

            status = emit_parallel_for(b, out.shape[0], [out.data], step, name="inc")
            emit_return_on_error(b, status)

        emit_counted_loop(builder, ir.Constant(I64, 0), ir.Constant(I64, 100), repeat)

    looped, text = _build("looped", body)
    out = np.zeros(513, "int64")
    looped(out, 0)
    assert (out == 100).all()
    entry = text[text.index('define i32 @"__tvm_ffi_looped"') :]
    entry = entry[: entry.index("\n\n")] if "\n\n" in entry else entry
    assert entry.count('"inc.closure" = alloca') == 1
    first_instruction = entry.split("entry:\n", 1)[1].split("\n")[0]
    assert '"inc.closure" = alloca' in first_instruction  # the closure lives in the entry block


def test_task_error_stops_the_caller():
    def body(builder, args):
        out = args.tensors["out"]
        module = builder.module
        raise_fn = module.globals["TVMFFIErrorSetRaisedFromCStr"]  # declared by the wrapper
        texts = {}
        for key, text in (("kind", "ValueError"), ("msg", "task 2 refused")):
            data = bytearray(text.encode()) + b"\0"
            gv = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name=key)
            gv.linkage, gv.global_constant = "private", True
            gv.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
            texts[key] = gv

        def task(tb, task_id, num_task, values):
            with tb.if_then(tb.icmp_signed("==", task_id, ir.Constant(I32, 2))):
                tb.call(raise_fn, [texts["kind"], texts["msg"]])
                tb.ret(ir.Constant(I32, -1))

        status = emit_parallel_launch(builder, [], task, num_task=args.scalars["num_task"])
        emit_return_on_error(builder, status)
        builder.store(ir.Constant(I64, 42), out.data)  # only reached without an error

    guarded, _ = _build("guarded", body)
    out = np.zeros(1, "int64")
    with pytest.raises(ValueError, match="task 2 refused"):
        guarded(out, 4)
    assert out[0] == 0
    guarded(out, 2)  # tasks 0 and 1 only
    assert out[0] == 42


def test_bad_align():
    module = ir.Module("bad_align")

    def body(builder, args):
        emit_parallel_chunks(builder, args.tensors["out"].shape[0], [], lambda *a: None, align=0)

    with pytest.raises(ValueError, match="align must be >= 1, got 0"):
        emit_packed_function(module, "bad_align", OUT, body)
