# ruff: noqa: F841, RUF059  (TVMScript scope ids and lets define names a kernel need not read)
"""LowerTIRx / LowerTIRxCleanup: TIRx kernels (device entry, scope ids, layouts) to launch form.

The Expected functions are the text Apache TVM 0.27 prints after ``BindTarget`` +
``LowerTIRx`` (checked against it): every buffer of the result has no layout
(``layout=None``).
"""

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout
from tvm.tirx.transform.lower_tirx import launch_extents

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}).with_host("llvm")


def lower(func):
    mod = tvm.IRModule({"main": func})
    return tvm.tirx.transform.LowerTIRx()(mod)["main"]


def check(before, expected):
    tvm.ir.assert_structural_equal(lower(before).with_attr("global_symbol", "f"),
                                   expected.with_attr("global_symbol", "f"), map_free_vars=True)


def test_scale_kernel_d7_example1():
    @T.prim_func
    def before(A_ptr: T.handle, B_ptr: T.handle):
        A = T.match_buffer(A_ptr, (256,), "float32")
        B = T.match_buffer(B_ptr, (256,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([256])
        B[tx] = A[tx] * T.float32(2)

    @T.prim_func
    def expected(A: T.Buffer((256,), "float32", layout=None),
                 B: T.Buffer((256,), "float32", layout=None)):
        B_1 = T.decl_buffer((256,), data=B.data, layout=None)
        A_1 = T.decl_buffer((256,), data=A.data, layout=None)
        with T.launch_thread("blockIdx.x", 1) as blockIdx_x:
            threadIdx_x = T.launch_thread("threadIdx.x", 256)
            warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
            bx: T.let[T.int32] = blockIdx_x
            tx: T.let[T.int32] = threadIdx_x
            B_1[threadIdx_x] = A_1[threadIdx_x] * T.float32(2.0)

    check(before, expected)


def test_two_dimensional_ids():
    @T.prim_func
    def before(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (8, 10, 16, 4), "float32")
        T.device_entry()
        bx, by = T.cta_id([8, 10])
        tx, ty = T.thread_id([16, 4])
        A[bx, by, tx, ty] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((8, 10, 16, 4), "float32", layout=None)):
        A_1 = T.decl_buffer((5120,), data=A.data, layout=None)
        with T.launch_thread("blockIdx.x", 8) as blockIdx_x:
            threadIdx_x = T.launch_thread("threadIdx.x", 16)
            blockIdx_y = T.launch_thread("blockIdx.y", 10)
            threadIdx_y = T.launch_thread("threadIdx.y", 4)
            warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                T.uint32(4294967295), (threadIdx_x + threadIdx_y * 16) // 32, 0, 32, 32)
            bx: T.let[T.int32] = blockIdx_x
            by: T.let[T.int32] = blockIdx_y
            tx: T.let[T.int32] = threadIdx_x
            ty: T.let[T.int32] = threadIdx_y
            A_1[blockIdx_x * 640 + blockIdx_y * 64 + threadIdx_x * 4 + threadIdx_y] = (
                T.float32(1.0))

    check(before, expected)


def test_warp_and_lane_ids():
    @T.prim_func
    def before(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (4, 32), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        w = T.warp_id([4])
        lane = T.lane_id([32])
        tid = T.thread_id([128])
        A[w, lane] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((4, 32), "float32", layout=None)):
        A_1 = T.decl_buffer((128,), data=A.data, layout=None)
        with T.launch_thread("blockIdx.x", 1) as blockIdx_x:
            threadIdx_x = T.launch_thread("threadIdx.x", 128)
            warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
            bx: T.let[T.int32] = blockIdx_x
            w: T.let[T.int32] = warp_id_in_cta
            lane: T.let[T.int32] = threadIdx_x % 32
            tid: T.let[T.int32] = threadIdx_x
            A_1[warp_id_in_cta * 32 + threadIdx_x % 32] = T.float32(1.0)

    check(before, expected)


def test_warpgroup_ids():
    @T.prim_func
    def before(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (2, 4, 128), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        wg = T.warpgroup_id([2])
        wiw = T.warp_id_in_wg([4])
        tiw = T.thread_id_in_wg([128])
        A[wg, wiw, tiw] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((2, 4, 128), "float32", layout=None)):
        A_1 = T.decl_buffer((1024,), data=A.data, layout=None)
        with T.launch_thread("blockIdx.x", 1) as blockIdx_x:
            threadIdx_x = T.launch_thread("threadIdx.x", 256)
            warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
            bx: T.let[T.int32] = blockIdx_x
            wg: T.let[T.int32] = warp_id_in_cta // 4
            wiw: T.let[T.int32] = warp_id_in_cta % 4
            tiw: T.let[T.int32] = threadIdx_x % 128
            A_1[warp_id_in_cta * 128 + threadIdx_x % 128] = T.float32(1.0)

    check(before, expected)


def _has_op(name):
    try:
        tvm.ir.Op.get(name)
    except ValueError:
        return False
    return True


def test_cluster_ids():
    # 0.27 reads the cluster id with T.cuda.mov_sreg(32, "clusterid.x"); without that builtin
    # pytvm computes it as blockIdx.x // cluster size (same value for a 1-D grid of clusters).
    @T.prim_func
    def before(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (4, 2, 128), "float32")
        T.device_entry()
        cl = T.cluster_id([4])
        cb = T.cta_id_in_cluster([2])
        bx = T.cta_id([8])
        tx = T.thread_id([128])
        A[cl, cb, tx] = T.float32(1)

    if _has_op("tirx.cuda.mov_sreg"):
        @T.prim_func
        def expected(A: T.Buffer((4, 2, 128), "float32", layout=None)):
            A_1 = T.decl_buffer((1024,), data=A.data, layout=None)
            with T.launch_thread("clusterCtaIdx.x", 2) as clusterCtaIdx_x:
                blockIdx_x = T.launch_thread("blockIdx.x", 8)
                threadIdx_x = T.launch_thread("threadIdx.x", 128)
                warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                    T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
                cl: T.let[T.int32] = T.cuda.mov_sreg(32, "clusterid.x")
                cb: T.let[T.int32] = clusterCtaIdx_x
                bx: T.let[T.int32] = blockIdx_x
                tx: T.let[T.int32] = threadIdx_x
                A_1[T.cuda.mov_sreg(32, "clusterid.x") * 256 + clusterCtaIdx_x * 128
                    + threadIdx_x] = T.float32(1.0)
    else:
        @T.prim_func
        def expected(A: T.Buffer((4, 2, 128), "float32", layout=None)):
            A_1 = T.decl_buffer((1024,), data=A.data, layout=None)
            with T.launch_thread("clusterCtaIdx.x", 2) as clusterCtaIdx_x:
                blockIdx_x = T.launch_thread("blockIdx.x", 8)
                threadIdx_x = T.launch_thread("threadIdx.x", 128)
                warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                    T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
                cl: T.let[T.int32] = blockIdx_x // 2
                cb: T.let[T.int32] = clusterCtaIdx_x
                bx: T.let[T.int32] = blockIdx_x
                tx: T.let[T.int32] = threadIdx_x
                A_1[blockIdx_x // 2 * 256 + clusterCtaIdx_x * 128 + threadIdx_x] = T.float32(1.0)

    check(before, expected)


def test_deferred_extent_and_value_keeps_let():
    @T.prim_func
    def before(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (4, 128), "float32")
        T.device_entry()
        bx = T.cta_id([4])
        w = T.warp_id()
        lane = T.lane_id([32])
        tx = T.thread_id([128])
        A[bx, tx] = T.Cast("float32", w)

    @T.prim_func
    def expected(A: T.Buffer((4, 128), "float32", layout=None)):
        A_1 = T.decl_buffer((512,), data=A.data, layout=None)
        with T.launch_thread("blockIdx.x", 4) as blockIdx_x:
            threadIdx_x = T.launch_thread("threadIdx.x", 128)
            warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
            bx: T.let[T.int32] = blockIdx_x
            w: T.let[T.int32] = warp_id_in_cta
            lane: T.let[T.int32] = threadIdx_x % 32
            tx: T.let[T.int32] = threadIdx_x
            A_1[blockIdx_x * 128 + threadIdx_x] = T.Cast("float32", w)

    check(before, expected)


def test_layout_applied_to_shared_buffer():
    @T.prim_func
    def before(A_ptr: T.handle):
        A = T.match_buffer(A_ptr, (8, 8), "float16")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([64])
        As = T.alloc_buffer((8, 8), "float16", scope="shared",
                            layout=TileLayout(S[(8, 8):(1, 8)]))
        As[tx // 8, tx % 8] = A[tx // 8, tx % 8]
        T.cuda.cta_sync()
        A[tx % 8, tx // 8] = As[tx % 8, tx // 8]

    @T.prim_func
    def expected(A: T.Buffer((8, 8), "float16", layout=None)):
        A_1 = T.decl_buffer((64,), "float16", data=A.data, layout=None)
        with T.launch_thread("blockIdx.x", 1) as blockIdx_x:
            threadIdx_x = T.launch_thread("threadIdx.x", 64)
            warp_id_in_cta: T.let[T.int32] = T.tvm_warp_shuffle(
                T.uint32(4294967295), threadIdx_x // 32, 0, 32, 32)
            bx: T.let[T.int32] = blockIdx_x
            tx: T.let[T.int32] = threadIdx_x
            As = T.alloc_shared((64,), "float16", layout=None)
            As[threadIdx_x % 8 * 8 + threadIdx_x // 8] = A_1[threadIdx_x]
            T.cuda.cta_sync()
            A_1[threadIdx_x % 8 * 8 + threadIdx_x // 8] = As[threadIdx_x]

    check(before, expected)


def test_launch_extents_inferred_from_warpgroups():
    @T.prim_func
    def k(A: T.Buffer((1,), "float32")):
        T.device_entry()
        bx, by = T.cta_id([3, 2])
        wg = T.warpgroup_id([3])
        tid = T.thread_id()
        A[0] = T.float32(1)

    assert launch_extents(k) == {"blockIdx.x": 3, "threadIdx.x": 384, "blockIdx.y": 2}


def test_device_entry_removed_and_function_without_entry_unchanged():
    @T.prim_func
    def plain(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)

    assert lower(plain) is plain
    out = lower(_scale_with_bind_target())
    assert "tirx.device_entry" not in out.script()
    assert "launch_thread" in out.script()


def _scale_with_bind_target():
    @T.prim_func
    def scale(A: T.Buffer((256,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([256])
        A[tx] = A[tx] * T.float32(2)

    mod = tvm.tirx.transform.BindTarget(TARGET)(tvm.IRModule({"main": scale}))
    return mod["main"]


def test_thread_axis_layout_on_direct_access_is_rejected():
    from tvm.tirx.layout import laneid

    @T.prim_func
    def k(A: T.Buffer((32,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        R = T.alloc_buffer((32,), "float32", scope="local", layout=TileLayout(S[32:1 @ laneid]))
        R[tx] = A[tx]

    with pytest.raises(ValueError, match="only memory layouts"):
        lower(k)


def test_lower_tirx_dispatches_tile_primitives_first():
    # A thread-scope fill: TilePrimitiveDispatch expands it into a loop, then the cleanup
    # binds the scope ids; no tile-primitive call survives.
    @T.prim_func
    def k(A: T.Buffer((8,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        if tx == 0:
            Tx.fill(A[0:8], T.float32(1))

    mod = tvm.IRModule({"main": k.with_attr("target", TARGET)})
    lowered = tvm.tirx.transform.LowerTIRx()(mod)["main"]
    text = lowered.script()
    assert "T.tile" not in text and "Tx." not in text
    assert 'T.launch_thread("threadIdx.x", 32)' in text
    assert "for " in text and "T.float32(1.0)" in text


def test_pipeline_order_starts_with_lower_tirx():
    from tvm.tirx.compilation_pipeline import tirx_kernel_passes

    names = [p.info.name for p in tirx_kernel_passes(TARGET)]
    assert names[:4] == ["tirx.LowerTIRx", "tirx.UnifyThreadBinding", "tirx.StmtSimplify",
                         "tirx.LowerTIRxOpaque"]
    assert names[-3:] == ["tirx.AnnotateEntryFunc", "tirx.SplitHostDevice",
                          "tirx.MakePackedAPI"]


def test_uint32_scope_id_is_cast_at_the_bind():
    @T.prim_func
    def k(A: T.Buffer((128,), "uint32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128], dtype="uint32")
        A[0] = tx

    text = lower(k).script()
    assert 'tx: T.let[T.uint32] = T.Cast("uint32", threadIdx_x)' in text
    assert 'T.launch_thread("threadIdx.x", 128)' in text


def test_preferred_cluster_is_a_launch_parameter():
    @T.prim_func
    def k(A: T.Buffer((1,), "int32")):
        T.device_entry()
        bx = T.cta_id([8])
        cbx, cby = T.cta_id_in_cluster([2, 1], preferred=[2, 2])
        tx = T.thread_id([128])
        A[0] = bx + cbx + cby + tx

    assert launch_extents(k) == {
        "clusterCtaIdx.x": 2, "clusterCtaIdx.y": 1, "preferredClusterCtaIdx.x": 2,
        "preferredClusterCtaIdx.y": 2, "blockIdx.x": 8, "threadIdx.x": 128}


def test_kernel_without_thread_ids_is_rejected():
    @T.prim_func
    def k(A: T.Buffer((32,), "int32")):
        T.device_entry()
        bx = T.cta_id([32])
        A[bx] = bx

    with pytest.raises(ValueError, match="kernel has no thread launch parameters"):
        lower(k)


def test_swizzle_atom_smaller_than_buffer_allocates_the_whole_buffer():
    # A 512-element swizzle atom on a 128x32 buffer repeats over it: the allocation covers
    # all 4096 elements (0.27), and the indices are simplified with blockIdx.x in [0, 1).
    @T.prim_func
    def before(A: T.Buffer((128, 32), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([128])
        A_smem = T.alloc_buffer([128, 32], "float16", scope="shared",
                                layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(512,)])))
        for vec in T.vectorized(8):
            A_smem[tid // 4, tid % 4 * 8 + vec] = A[bx * 128 + tid // 4, tid % 4 * 8 + vec]

    lowered = lower(before)
    allocs, stores = [], []

    def visit(node):
        if isinstance(node, tvm.tirx.AllocBuffer):
            allocs.append(node.buffer)
        elif isinstance(node, tvm.tirx.BufferStore):
            stores.append(node)

    tvm.tirx.stmt_functor.post_order_visit(lowered.body, visit)
    assert [tuple(int(e) for e in b.shape) for b in allocs] == [(4096,)]
    (store,) = stores
    assert "blockIdx" not in str(store.value.indices[0])


def test_view_of_thread_layout_keeps_its_shape_and_loop_ranges_simplify():
    lane = T.TileLayout(T.S[32:1 @ tvm.tirx.layout.laneid])

    @T.prim_func
    def before(in_buf: T.Buffer(64, "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        T.warp_id([1])
        lane_id = T.lane_id([32])
        A = T.alloc_buffer([2], "float16", scope="local", layout=T.TileLayout(T.S[2:1]))
        B = A.view(64, layout=A.layout.tile(lane, (32,), (2,)))
        A_local = B.local(2)
        for i in T.vectorized(2):
            A_local[i] = T.float16(in_buf[lane_id * 2 + i // 2 * 8])

    lowered = lower(before)
    shapes, stores = {}, []

    def visit(node):
        if isinstance(node, (tvm.tirx.AllocBuffer, tvm.tirx.DeclBuffer)):
            shapes[node.buffer.name] = tuple(int(e) for e in node.buffer.shape)
        elif isinstance(node, tvm.tirx.BufferStore):
            stores.append(node)

    tvm.tirx.stmt_functor.post_order_visit(lowered.body, visit)
    # The allocation holds one thread's two values; the 64-element view keeps its size.
    assert shapes["A"] == (2,) and shapes["B"] == (64,) and shapes["A_local"] == (2,)
    # lane_id = threadIdx.x % 32 with threadIdx.x in [0, 32); i // 2 is 0 in a 2-lane loop.
    (store,) = stores
    assert str(store.value.value.indices[0]) == "threadIdx_x * 2"
