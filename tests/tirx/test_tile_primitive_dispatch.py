"""tvm.tirx.transform.TilePrimitiveDispatch: tile calls lowered by the generic variants (checked
with the TIR interpreter), the inter/intra split handed to variants, side statements, errors."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import numpy as np
import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.script import tirx as T
from tvm.tirx import AllocBuffer, For, ForKind, PrimFunc, ScopeIdDefStmt, SeqStmt, Var
from tvm.tirx.interpreter import run_prim_func
from tvm.tirx.operator.tile_primitive import dispatcher
from tvm.tirx.operator.tile_primitive.dispatcher import register_dispatch
from tvm.tirx.stmt import AttrStmt, BufferStore, Evaluate
from tvm.tirx.stmt_functor import substitute
from tvm.tirx.transform import TilePrimitiveDispatch


@pytest.fixture(autouse=True)
def _restore_table():
    saved = {k: list(v) for k, v in dispatcher._DISPATCH_TABLE.items()}
    yield
    dispatcher._DISPATCH_TABLE.clear()
    dispatcher._DISPATCH_TABLE.update(saved)


def _lower(func, target="llvm"):
    mod = tvm.IRModule({"main": func.with_attr("target", tvm.target.Target(target))})
    return TilePrimitiveDispatch()(mod)["main"]


def test_thread_scope_elementwise_ops_compute():
    @T.prim_func
    def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32"),
          C: T.Buffer((8, 16), "float32"), D: T.Buffer((8, 16), "float16")):
        Tx.fill(C[0:8, 0:16], T.float32(0.5))
        Tx.add(C[0:2, 0:16], A[0:2, 0:16], B[0:2, 0:16])
        Tx.exp(C[2:4, 0:16], A[2:4, 0:16])
        Tx.mul(C[2:4, 0:8], C[2:4, 0:8], 2.0)
        Tx.maximum(C[4:6, 0:16], A[4:6, 0:16], B[4:6, 0:16])
        Tx.fma(C[6:7, 0:16], A[6:7, 0:16], 3.0, B[6:7, 0:16])
        Tx.sqrt(C[7:8, 0:16], A[7:8, 0:16], None, 4.0)
        Tx.cast(D[0:8, 0:16], A[0:8, 0:16])
        Tx.select(B[0:8, 0:16], A[0:8, 0:16], 0.0, lambda i, j: i < j)

    lowered = _lower(f)
    rng = np.random.default_rng(0)
    a = rng.random((8, 16), dtype=np.float32)
    b = rng.random((8, 16), dtype=np.float32)
    c = np.zeros((8, 16), "float32")
    d = np.zeros((8, 16), "float16")
    b_in = b.copy()
    run_prim_func(lowered, [a, b, c, d])
    ref = np.full((8, 16), 0.5, "float32")
    ref[0:2] = a[0:2] + b_in[0:2]
    ref[2:4] = np.exp(a[2:4])
    ref[2:4, 0:8] *= 2
    ref[4:6] = np.maximum(a[4:6], b_in[4:6])
    ref[6] = a[6] * 3 + b_in[6]
    ref[7] = np.sqrt(a[7] * 4)
    np.testing.assert_allclose(c, ref, rtol=1e-5)
    np.testing.assert_array_equal(d, a.astype("float16"))
    i, j = np.indices((8, 16))
    np.testing.assert_array_equal(b, np.where(i < j, a, 0))


def test_reductions_at_thread_scope():
    @T.prim_func
    def f(A: T.Buffer((4, 8), "float32"), S: T.Buffer((4, 1), "float32"),
          M: T.Buffer((8,), "float32")):
        Tx.sum(S[0:4, 0:1], A[0:4, 0:8], axes=[1])
        Tx.sum(S[0:4, 0:1], A[0:4, 0:8], axes=-1, accum=True)
        Tx.max(M[0:8], A[0:4, 0:8], axes=0)

    a = np.arange(32, dtype="float32").reshape(4, 8) - 7
    s = np.zeros((4, 1), "float32")
    m = np.zeros(8, "float32")
    run_prim_func(_lower(f), [a, s, m])
    np.testing.assert_allclose(s[:, 0], 2 * a.sum(axis=1))
    np.testing.assert_allclose(m, a.max(axis=0))


def _per_thread(func, nthreads):
    """The device body of a lowered kernel run as ``nthreads`` threads, one statement at a
    time (each top-level statement in its own loop over the thread index)."""
    body = func.body
    while isinstance(body, AttrStmt):
        body = body.body
    tid = None
    out = []
    for stmt in body.seq:
        if isinstance(stmt, ScopeIdDefStmt):
            if stmt.def_.cur == "thread":
                tid = stmt.def_.def_ids[0]
            continue
        if isinstance(stmt, AllocBuffer):
            out.append(stmt)
            continue
        t = Var("t", "int32")
        out.append(For(t, 0, nthreads, ForKind.SERIAL, substitute(stmt, {tid: t})))
    return func.with_body(SeqStmt(out))


def test_cta_copy_spreads_the_tile_over_the_threads():
    @T.prim_func
    def f(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
        A = T.match_buffer(A_ptr, [64, 64], "float16", scope="global")
        B = T.match_buffer(B_ptr, [64, 64], "float16", scope="global")
        C = T.match_buffer(C_ptr, [10, 10], "float32", scope="global")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        A_smem = T.alloc_buffer([64, 64], dtype="float16", scope="shared")
        Tx.cta.copy(A_smem, A, dispatch="default")  # the generic variant, not CUDA's
        Tx.cta.copy(B, A_smem, dispatch="default")
        Tx.cta.fill(C[0:10, 0:10], T.float32(1), dispatch="default")
        Tx.cta.add(C[2:5, 0:10], C[2:5, 0:10], T.float32(2), dispatch="default")

    lowered = _lower(f, "cuda")
    text = lowered.script()
    assert "for copy_k in range(32):" in text  # 4096 elements / 128 threads
    assert "if fill_k * 128 + tx < 100:" in text  # 100 elements: the last step is guarded
    a = np.arange(64 * 64).astype("float16").reshape(64, 64)
    b = np.zeros((64, 64), "float16")
    c = np.zeros((10, 10), "float32")
    run_prim_func(_per_thread(lowered, 128), [a, b, c])
    np.testing.assert_array_equal(b, a)
    ref = np.ones((10, 10), "float32")
    ref[2:5] += 2
    np.testing.assert_array_equal(c, ref)


def test_cta_scope_without_a_thread_index_is_explained():
    @T.prim_func
    def f(A: T.Buffer((64,), "float32")):
        Tx.cta.fill(A[0:64], T.float32(0))

    with pytest.raises(RuntimeError, match="cta scope needs the kernel's thread index"):
        _lower(f)


def test_unsupported_scope_names_op_operands_and_variants():
    @T.prim_func
    def f(A: T.Buffer((64,), "float32")):
        Tx.warp.fill(A[0:32], T.float32(0))

    with pytest.raises(RuntimeError) as info:
        _lower(f)
    msg = str(info.value)
    assert "op=tirx.tile.fill target=llvm scope=warp" in msg
    assert "operand 0: A[0:32] scope=global dtype=float32" in msg
    assert "rejected: exec_scope — scope 'warp' is not one of thread, cta" in msg


def _probe(seen, effects=None):
    def impl(call, ctx):
        seen.append(ctx)
        if effects:
            effects(call, ctx)
        return PrimFunc([], Evaluate(0))

    register_dispatch(call_op := "fill", "cuda", variant="probe", priority=100)(impl)
    return call_op


def test_inter_intra_follow_enclosing_scope_id_filters():
    seen = []
    _probe(seen)

    @T.prim_func
    def f(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, [64], "float32", scope="global")
        T.device_entry()
        bx = T.cta_id([1])
        warp = T.warp_id([8])
        lane = T.lane_id([32])
        Tx.cta.fill(A[0:64], T.float32(0))
        if warp == 2:
            Tx.warp.fill(A[0:32], T.float32(0))
            if lane < 16:
                Tx.fill(A[0:1], T.float32(0))
        for i in range(4):
            Tx.wg.fill(A[0:4], T.float32(0))

    _lower(f, "cuda")

    def plain(side):
        return {k: [e.value for e in v] for k, v in side.items()}

    cta, warp, thread, wg = seen
    assert cta.scope_kind == "cta"
    assert plain(cta.inter) == {"cta_id": [1, 0]}
    assert plain(cta.intra) == {"laneid": [32, 0], "warpid": [8, 0]}
    assert plain(warp.inter) == {"warpid": [1, 2], "cta_id": [1, 0]}
    assert plain(warp.intra) == {"laneid": [32, 0]}
    assert plain(thread.inter)["laneid"] == [16, 0] and thread.intra == {}
    assert plain(wg.inter) == {"wgid": [2, 0], "cta_id": [1, 0]}
    assert plain(wg.intra) == {"laneid": [32, 0], "wid_in_wg": [4, 0]}
    assert set(wg.var_range_map) and next(iter(wg.var_range_map.values())).extent.value == 4
    assert set(cta.launch_params) == {"cta_id", "warp_id", "lane_id"}
    assert cta.launch_params["warp_id"].dom.extent.value == 8
    assert cta.shared_state is wg.shared_state


def test_side_statements_are_placed():
    def effects(call, ctx):
        buf = tvm.tirx.decl_buffer((4,), "float32", name="scratch", scope="shared")
        ctx.add_alloc_buffer(buf)
        ctx.add_init_stmt(BufferStore(buf, 0.0, [0]))
        ctx.add_init_stmt(Evaluate(7), host=True)
        ctx.add_post_buffer_def_stmt(call.args[0].buffer, Evaluate(9))

    _probe([], effects)

    @T.prim_func
    def f(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, [64], "float32", scope="global")
        T.device_entry()
        tx = T.thread_id([32])
        S = T.alloc_buffer([8], "float32", scope="shared")
        Tx.fill(S[0:8], T.float32(0))

    lines = [line.strip() for line in _lower(f, "cuda").script().splitlines()]
    start = lines.index('T.evaluate(7)')
    assert lines[start + 1:start + 5] == [
        'with T.attr({"tirx.device_entry": T.bool(True)}):',
        'scratch = T.alloc_shared((4,))',
        'scratch[0] = T.float32(0.0)',
        'tx = T.thread_id([32])',
    ]
    assert lines[lines.index('S = T.alloc_shared((8,))') + 1] == 'T.evaluate(9)'


def test_variant_parameters_are_bound_to_the_call_regions():
    def impl(call, ctx):
        P = tvm.tirx.decl_buffer((2, 4), "float32", name="P")
        p = Var("p", "handle")
        i, j = Var("i", "int32"), Var("j", "int32")
        body = For(i, 0, 2, ForKind.SERIAL, For(j, 0, 4, ForKind.SERIAL,
                                                 BufferStore(P, call.args[1], [i, j])))
        return PrimFunc([p], body, buffer_map={p: P})

    register_dispatch("fill", "llvm", variant="params", priority=100)(impl)

    @T.prim_func
    def f(A: T.Buffer((4, 8), "float32")):
        Tx.fill(A[1:3, 2:6], T.float32(5))

    a = np.zeros((4, 8), "float32")
    run_prim_func(_lower(f), [a])
    ref = np.zeros((4, 8), "float32")
    ref[1:3, 2:6] = 5
    np.testing.assert_array_equal(a, ref)


def test_a_call_surviving_dispatch_is_an_error():
    register_dispatch("fill", "llvm", variant="loop", priority=100)(
        lambda call, ctx: PrimFunc([], call))

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        Tx.fill(A[0:4], T.float32(5))

    with pytest.raises(ValueError, match="TilePrimitiveCall tirx.tile.fill survived"):
        _lower(f)


def test_target_is_required():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        Tx.fill(A[0:4], T.float32(5))

    with pytest.raises(ValueError, match="TilePrimitiveDispatch needs a target"):
        TilePrimitiveDispatch()(tvm.IRModule({"main": f}))
    with tvm.target.Target("llvm"):
        out = TilePrimitiveDispatch()(tvm.IRModule({"main": f}))
    assert "T.tile" not in out["main"].script()


def test_compose_op_has_no_generic_lowering_yet():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        with Tx.compose_op():
            Tx.add(A[0:4], A[0:4], T.float32(1))

    with pytest.raises(RuntimeError, match="compose_op is not supported yet"):
        _lower(f)


def test_compile_lowers_tile_primitives_on_cpu():
    @T.prim_func
    def f(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8, 16), "float32")):
        Tx.add(B[0:8, 0:16], A[0:8, 0:16], T.float32(1))
        Tx.mul(B[0:4, 0:16], B[0:4, 0:16], A[0:4, 0:16])

    ex = tvm.compile(f, target="llvm")
    a = np.arange(128, dtype="float32").reshape(8, 16)
    b = tvm.runtime.tensor(np.zeros((8, 16), "float32"))
    ex(tvm.runtime.tensor(a), b)
    ref = a + 1
    ref[0:4] *= a[0:4]
    np.testing.assert_allclose(b.numpy(), ref)
