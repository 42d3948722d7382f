"""Workloads and checks shared by the schedule tests (exposed through the ``wl`` fixture)."""

import os
import sys

import numpy as np
import pytest

import tvm
from tvm import te, tirx
from tvm.ffi.structural import structural_equal
from tvm.tirx.analysis import verify_well_formed
from tvm.tirx.interpreter import run_prim_func


def chain(n=16, m=12):
    """A -> B = A * 2 -> C = sum_k B -> D = C + 1 (one block each; B and C are temporaries)."""
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    k = te.reduce_axis((0, m), name="k")
    C = te.compute((n,), lambda i: te.sum(B[i, k], axis=k), name="C")
    D = te.compute((n,), lambda i: C[i] + 1.0, name="D")
    return te.create_prim_func([A, D])


def chain_ref(a):
    return (a * 2).sum(1) + 1


def transpose_chain(n=16, m=12):
    """B = A * 2; C[j, i] = B[i, j] + 1 (C loads B at a permutation of its iter vars)."""
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((m, n), lambda i, j: B[j, i] + 1.0, name="C")
    return te.create_prim_func([A, C])


def stencil():
    """B[i] = A[i % 9] * 2 (11 values); C[i] = B[i] + B[i + 1] + B[i + 2]."""
    A = te.placeholder((9,), name="A")
    B = te.compute((11,), lambda i: A[i % 9] * 2.0, name="B")
    C = te.compute((9,), lambda i: B[i] + B[i + 1] + B[i + 2], name="C")
    return te.create_prim_func([A, C])


def tvm_output(name):
    """``(function text, trace text)`` printed by Apache TVM 0.27 (see tvm_outputs.txt)."""
    path = os.path.join(os.path.dirname(__file__), "tvm_outputs.txt")
    with open(path) as f:
        text = f.read()
    section = text.split(f"### {name}\n", 1)[1].split("\n### ", 1)[0]
    func, trace = section.split("\n---\n")
    return func.strip("\n"), trace.strip("\n")


def assert_tvm_output(sch, name):
    """The scheduled ``main`` and the trace print exactly as TVM 0.27 printed them."""
    func, trace = tvm_output(name)
    assert script(sch) == func
    assert str(sch.trace) == trace


def elemwise(n=7, m=5):
    """B = A * 2; C = B + 1 (two complete blocks)."""
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, m), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C])


def matmul(n=9, m=7, k=5, relu=False):
    """C[i, j] = sum_k A[i, k] * B[j, k] (and D = max(C, 0) with ``relu``)."""
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((m, k), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[j, r], axis=r), name="C")
    if not relu:
        return te.create_prim_func([A, B, C])
    D = te.compute((n, m), lambda i, j: tirx.max(C[i, j], tirx.const(0.0, "float32")), name="D")
    return te.create_prim_func([A, B, D])


def matmul_vi(n=128):
    """The spec's matmul written with block vars ``vi, vj, vk`` (as TVMScript would)."""
    from tvm.ir.expr import Range
    from tvm.tirx.stmt import (
        BufferRegion,
        BufferStore,
        For,
        ForKind,
        IterVar,
        SBlock,
        SBlockRealize,
    )

    bufs = [tirx.decl_buffer((n, n), "float32", name=x) for x in "ABC"]
    A, B, C = bufs
    params = [tirx.Var(x, "handle") for x in "ABC"]
    i, j, k = (tirx.Var(x, "int32") for x in "ijk")
    vi, vj, vk = (tirx.Var(x, "int32") for x in ("vi", "vj", "vk"))
    dom = Range.from_min_extent(tirx.const(0, "int32"), tirx.const(n, "int32"))
    ivs = [IterVar(dom, vi, IterVar.DataPar), IterVar(dom, vj, IterVar.DataPar),
           IterVar(dom, vk, IterVar.CommReduce)]
    body = BufferStore(C, C[vi, vj] + A[vi, vk] * B[vj, vk], [vi, vj])
    init = BufferStore(C, tirx.const(0.0, "float32"), [vi, vj])
    block = SBlock(ivs, [BufferRegion.from_point(A, [vi, vk]), BufferRegion.from_point(B, [vj, vk])],
                   [BufferRegion.from_point(C, [vi, vj])], "C", body, init=init)
    stmt = SBlockRealize([i, j, k], True, block)
    for v in (k, j, i):
        stmt = For(v, 0, n, ForKind.SERIAL, stmt)
    root = SBlockRealize([], True, SBlock([], [], [], "root", stmt))
    return tirx.PrimFunc(params, root, buffer_map=dict(zip(params, bufs))).with_attrs(
        {"s_tir": True, "global_symbol": "matmul"})


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


def run(func, inputs, out_shape):
    """Run ``func`` on copies of ``inputs`` and a zeroed output; return the output."""
    out = np.zeros(out_shape, "float32")
    run_prim_func(func, [x.copy() for x in inputs] + [out])
    return out


def assert_same_result(before, sch_or_func, inputs, out_shape):
    """The scheduled function computes what the unscheduled one computes."""
    after = sch_or_func.mod["main"] if hasattr(sch_or_func, "mod") else sch_or_func
    np.testing.assert_allclose(run(after, inputs, out_shape), run(before, inputs, out_shape),
                               rtol=1e-5, atol=1e-5)


def assert_replays(sch, func):
    """The scheduled module is well formed, and replaying ``sch.trace`` on a fresh schedule
    of ``func`` gives the same module."""
    verify_well_formed(sch.mod)
    fresh = tvm.s_tir.Schedule(func)
    sch.trace.apply_to_schedule(fresh, remove_postproc=False)
    assert structural_equal(fresh.mod, sch.mod, map_free_vars=True)
    assert str(fresh.trace) == str(sch.trace)


def script(sch):
    """The scheduled ``main`` in TVMScript, without the two header comment lines."""
    text = sch.mod["main"].script()
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("# from")).strip("\n")


@pytest.fixture
def wl():
    """This module: workloads and checks."""
    return sys.modules[__name__]
