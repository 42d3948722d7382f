"""CUDA elementwise tile-primitive variants (src/tvm/backend/cuda/tile_primitive/
elementwise.py): ``smem`` spreads a shared tile over the scope's threads, ``reg`` works on each
thread's registers. Numbers come from the TIR interpreter, running the lowered body once per
thread of the scope."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import numpy as np
import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.script import tirx as T
from tvm.tirx import AllocBuffer, For, ForKind, ScopeIdDefStmt, SeqStmt, Var
from tvm.tirx.interpreter import run_prim_func
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.stmt import AttrStmt
from tvm.tirx.stmt_functor import substitute

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


def lower(func):
    mod = tvm.IRModule({"main": func.with_attr("target", TARGET)})
    return tvm.tirx.transform.TilePrimitiveDispatch()(mod)["main"]


def per_thread(func, nthreads, warp_size=32, whole=False):
    """Run each top-level device statement for every thread (``whole``: the whole body per
    thread, for kernels whose registers must stay private to a thread): `T.thread_id` gets the
    thread index, `T.lane_id` the index modulo the warp size, `T.warp_id` the quotient."""
    body = func.body
    while isinstance(body, AttrStmt):
        body = body.body
    ids = {}
    out = []
    for stmt in body.seq:
        if isinstance(stmt, ScopeIdDefStmt):
            ids[(stmt.def_.parent, stmt.def_.cur)] = stmt.def_.def_ids[0]
            continue
        if isinstance(stmt, AllocBuffer):
            out.append(stmt)
            continue
        t = Var("t", "int32")
        vmap = {}
        for (parent, cur), v in ids.items():
            if (parent, cur) == ("cta", "thread"):
                vmap[v] = t
            elif (parent, cur) == ("warp", "thread"):
                vmap[v] = t % warp_size
            elif (parent, cur) == ("cta", "warp"):
                vmap[v] = t // warp_size
        out.append(For(t, 0, nthreads, ForKind.SERIAL, substitute(stmt, vmap)))
    if whole:
        allocs = [s for s in out if isinstance(s, AllocBuffer)]
        t = Var("t", "int32")
        # each statement's own thread variable is re-bound to the shared loop variable
        loop = For(t, 0, nthreads, ForKind.SERIAL, SeqStmt(
            [substitute(f.body, {f.loop_var: t}) for f in out if isinstance(f, For)]))
        return func.with_body(SeqStmt([*allocs, loop]))
    return func.with_body(SeqStmt(out))


def test_registered_above_generic():
    table = list_registered_schedules()
    for op in ("add", "exp", "fma", "cast", "fill", "zero", "maximum"):
        assert table[f"tirx.tile.{op}"]["cuda"][:2] == ["reg", "smem"], op


def test_warp_scope_shared_binary_and_unary():
    @T.prim_func
    def k(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        warp = T.warp_id([2])
        lane = T.lane_id([32])
        tx = T.thread_id([64])
        S = T.alloc_buffer((8, 16), "float32", scope="shared")
        Tx.warp.add(S, A, B)
        Tx.warp.exp(S, S)
        Tx.warp.fma(B, S, T.float32(2), T.float32(1))

    out = lower(k)
    text = out.script()
    assert "lane" in text and "for add_k in range(4):" in text  # 128 elements / 32 lanes
    a = np.random.default_rng(0).standard_normal((8, 16)).astype("float32")
    b = np.random.default_rng(1).standard_normal((8, 16)).astype("float32")
    ref = np.exp(a + b) * 2 + 1
    # both warps run the (same) warp-scope call; running one warp is enough for the values
    run_prim_func(per_thread(out, 32), [a, b])
    np.testing.assert_allclose(b, ref, rtol=1e-5)


def test_warpgroup_scope_guarded_tail():
    @T.prim_func
    def k(A: T.Buffer((10, 20), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        Tx.wg.mul(A, A, T.float32(3))

    out = lower(k)
    text = out.script()
    assert "if mul_k * 128 + tx % 128 < 200:" in text
    a = np.arange(200, dtype="float32").reshape(10, 20)
    ref = a * 3
    run_prim_func(per_thread(out, 128), [a])
    np.testing.assert_array_equal(a, ref)


def test_cta_scope_cast_and_fill():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        Tx.cta.cast(B, A)
        Tx.cta.fill(A, T.float32(7))

    out = lower(k)
    a = np.linspace(-3, 3, 64).astype("float32")
    b = np.zeros(64, "float16")
    ref = a.astype("float16")
    run_prim_func(per_thread(out, 32), [a, b])
    np.testing.assert_array_equal(b, ref)
    np.testing.assert_array_equal(a, np.full(64, 7, "float32"))


def test_reg_variant_each_thread_its_registers():
    @T.prim_func
    def k(A: T.Buffer((32, 4), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        R = T.alloc_local((4,), "float32")
        for i in range(4):
            R[i] = A[tx, i]
        Tx.warp.maximum(R, R, T.float32(0))
        Tx.warp.sqrt(R, R)
        for i in range(4):
            A[tx, i] = R[i]

    out = lower(k)
    text = out.script()
    assert "for maximum_i0 in range(4):" in text  # the whole register tile, no thread split
    a = np.random.default_rng(2).standard_normal((32, 4)).astype("float32")
    ref = np.sqrt(np.maximum(a, 0))
    run_prim_func(per_thread(out, 32, whole=True), [a])
    np.testing.assert_allclose(a, ref, rtol=1e-6)


def test_mixed_register_and_shared_operands_decline_to_generic_reason():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        R = T.alloc_local((64,), "float32")
        Tx.warp.add(R, A, T.float32(1))

    with pytest.raises(RuntimeError) as err:
        lower(k)
    msg = str(err.value)
    assert "operand R is in local memory, not shared/global" in msg
    assert "operand A is in global memory, not registers (local)" in msg


def test_narrowed_warp_scope_smem_declines():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        if tx < 16:
            Tx.warp.add(A, A, T.float32(1))

    with pytest.raises(RuntimeError, match="not all 32 lanes of the warp are active"):
        lower(k)
