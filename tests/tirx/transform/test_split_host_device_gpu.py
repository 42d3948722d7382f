"""UnifyThreadBinding, LowerThreadBindingLoops, SplitHostDevice on GPU functions, GPU builtins.

Expected outputs were checked against Apache TVM 0.27 (``s_tir.transform.UnifyThreadBinding``,
``s_tir.LowerOpaqueBlock`` and ``tirx.transform.SplitHostDevice`` on the same scripts).
"""

import pytest

import tvm
from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx import transform as TT


def _mod(func, name="main"):
    return tvm.IRModule({name: func})


def test_unify_thread_binding_hoists_one_loop_per_tag():
    @T.prim_func
    def before(A: T.Buffer((128,), "float32")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                A[bx * 32 + tx] = T.float32(1)
            for ty in T.thread_binding(32, thread="threadIdx.x"):
                A[bx * 32 + ty] = A[bx * 32 + ty] + T.float32(1)
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for vx in T.thread_binding(2, thread="vthread.x"):
                A[bx * 32 + vx] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((128,), "float32")):
        for blockIdx_x in T.thread_binding(4, thread="blockIdx.x"):
            for threadIdx_x in T.thread_binding(32, thread="threadIdx.x"):
                A[blockIdx_x * 32 + threadIdx_x] = T.float32(1)
                A[blockIdx_x * 32 + threadIdx_x] = A[blockIdx_x * 32 + threadIdx_x] + T.float32(1)
        for blockIdx_x in T.thread_binding(4, thread="blockIdx.x"):
            for vthread_x in T.thread_binding(2, thread="vthread.x"):
                A[blockIdx_x * 32 + vthread_x] = T.float32(1)

    after = TT.UnifyThreadBinding()(_mod(before))["main"]
    assert_structural_equal(after.with_attr("global_symbol", "expected"), expected)
    assert "for threadIdx_x in T.thread_binding(32" in after.script()


def test_unify_thread_binding_rejects_different_extents():
    @T.prim_func
    def bad(A: T.Buffer((128,), "float32")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                A[bx * 32 + tx] = T.float32(1)
            for ty in T.thread_binding(16, thread="threadIdx.x"):
                A[bx * 32 + ty] = T.float32(2)

    with pytest.raises(ValueError, match="bound to `threadIdx.x` should have the same extent"):
        TT.UnifyThreadBinding()(_mod(bad))


def test_lower_thread_binding_loops_gives_launch_threads():
    @T.prim_func
    def before(A: T.Buffer((128,), "float32")):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                A[bx * 32 + tx] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((128,), "float32")):
        bx = T.launch_thread("blockIdx.x", 4)
        tx = T.launch_thread("threadIdx.x", 32)
        A[bx * 32 + tx] = T.float32(1)

    after = TT.LowerThreadBindingLoops()(_mod(before))["main"]
    assert_structural_equal(after.with_attr("global_symbol", "expected"), expected)


def test_lower_thread_binding_loops_offsets_a_nonzero_start_and_serialises_vthreads():
    @T.prim_func
    def before(A: T.Buffer((128,), "float32")):
        for ty in T.thread_binding(2, 34, thread="threadIdx.y"):
            for v in T.thread_binding(2, thread="vthread.x"):
                A[ty + v] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((128,), "float32")):
        ty = T.launch_thread("threadIdx.y", 32)
        for v in range(2):
            A[ty + 2 + v] = T.float32(1)

    after = TT.LowerThreadBindingLoops()(_mod(before))["main"]
    assert_structural_equal(after.with_attr("global_symbol", "expected"), expected)


def _cuda():
    return tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


@T.prim_func
def _two_kernels(a: T.handle, b: T.handle, n: T.int32):
    T.func_attr({"global_symbol": "f"})
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            S = T.alloc_buffer((128,), "float32", scope="shared")
            if bx * 128 + tx < n:
                S[tx] = A[bx * 128 + tx]
            T.tvm_storage_sync("shared")
            B[bx * 128 + tx] = S[127 - tx]
    for bx in T.thread_binding(8, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[bx * 32 + tx] = B[bx * 32 + tx] + T.float32(1)


def _split(func):
    mod = TT.BindTarget(_cuda())(_mod(func, "f"))
    mod = TT.UnifyThreadBinding()(mod)
    mod = TT.FlattenBuffer()(mod)
    return TT.SplitHostDevice()(mod)


def test_split_host_device_makes_kernels_and_launches():
    mod = _split(_two_kernels)
    names = sorted(g.name_hint for g in mod.functions)
    assert names == ["f", "f_kernel", "f_kernel_1"]
    k0, k1 = mod["f_kernel"], mod["f_kernel_1"]
    # Parameters: pointers of the buffers used (host order), then scalars.
    assert [p.name for p in k0.params] == ["A_ptr", "B_ptr", "n"]
    assert [p.name for p in k1.params] == ["B_ptr"]
    assert k0.params[0].type_annotation.storage_scope == "global"
    assert k0.get_attr("calling_conv") == 2
    assert k0.get_attr("tirx.is_global_func")
    assert k0.get_attr("tirx.noalias")
    assert list(k0.get_attr("tirx.kernel_launch_params")) == ["blockIdx.x", "threadIdx.x"]
    assert k0.get_attr("target").kind.name == "cuda"
    assert k0.get_attr("target").host is None
    host = mod["f"].script()
    assert 'T.call_packed("f_kernel", A.data, B.data, n, (n + 127) // 128, 128)' in host
    assert 'T.call_packed("f_kernel_1", B.data, 8, 32)' in host
    kernel = k0.script()
    assert 'T.launch_thread("blockIdx.x", (n + 127) // 128)' in kernel
    assert "T.tvm_storage_sync(\"shared\")" in kernel


def test_split_host_device_dynamic_shared_memory_is_a_launch_parameter():
    @T.prim_func
    def dyn(A: T.Buffer((256,), "float32")):
        T.func_attr({"global_symbol": "dyn"})
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            S = T.alloc_buffer((256,), "float32", scope="shared.dyn")
            H = T.alloc_buffer((3,), "float16", scope="shared.dyn")
            S[tx] = A[tx]
            H[0] = T.float16(0)
            A[tx] = S[255 - tx]

    mod = _split(dyn)
    kernel = mod["dyn_kernel"]
    tags = list(kernel.get_attr("tirx.kernel_launch_params"))
    assert tags == ["threadIdx.x", "tirx.use_dyn_shared_memory"]
    # 1024 bytes of float32, then 6 bytes of float16 rounded up to 16.
    assert 'T.call_packed("dyn_kernel", A.data, 256, 1040)' in mod["f"].script()


def test_split_host_device_cpu_target_refuses_gpu_loops():
    mod = TT.BindTarget(tvm.target.Target("llvm"))(_mod(_two_kernels, "f"))
    with pytest.raises(ValueError, match="GPU thread-bound loops; device code generation"):
        TT.SplitHostDevice()(mod)


def test_gpu_builtins_print_and_round_trip():
    @T.prim_func
    def f(A: T.Buffer((32,), "float32")):
        tx = T.launch_thread("threadIdx.x", 32)
        m: T.let[T.uint32] = T.tvm_warp_activemask()
        v: T.let[T.float32] = T.tvm_warp_shuffle_down(m, A[tx], 1, 32, 32)
        T.tvm_storage_sync("shared")
        T.call_extern("float32", "atomicAdd", T.address_of(A[0]), v)
        s: T.let[T.handle] = T.tvm_stack_alloca("array", 1)
        T.call_packed("foo", A.data, s)

    text = f.script()
    for line in ['T.tvm_warp_shuffle_down(m, A[tx], 1, 32, 32)', 'T.tvm_storage_sync("shared")',
                 'T.address_of(A[0])', 'T.tvm_stack_alloca("array", 1)',
                 'T.call_packed("foo", A.data, s)', "T.tvm_warp_activemask()"]:
        assert line in text
    assert_structural_equal(tvm.script.from_source(text), f)


def test_gpu_builtin_argument_errors():
    with pytest.raises(TypeError, match="address_of expects a buffer element"):
        tirx.address_of(tirx.IntImm("int32", 3))
    with pytest.raises(TypeError, match="call_packed: the function name must be a str"):
        tirx.call_packed(3)
    assert tirx.tvm_warp_shuffle(0, tirx.Var("x", "float16"), 0, 32, 32).dtype == "float16"


def test_lower_warp_memory_stripes_and_shuffles():
    @T.prim_func
    def before(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        bx = T.launch_thread("blockIdx.x", 2)
        tx = T.launch_thread("threadIdx.x", 32)
        W = T.alloc_buffer((64,), scope="warp")
        for y in range(2):
            W[y * 32 + tx] = A[bx * 64 + y * 32 + tx]
        for y in range(2):
            B[bx * 64 + y * 32 + tx] = W[y * 32 + (tx + 1) % 32] + W[y * 32 + tx]

    @T.prim_func
    def expected(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        bx = T.launch_thread("blockIdx.x", 2)
        tx = T.launch_thread("threadIdx.x", 32)
        W = T.alloc_buffer((2,), scope="local")
        for y in range(2):
            W[y] = A[bx * 64 + y * 32 + tx]
        for y in range(2):
            B[bx * 64 + y * 32 + tx] = T.tvm_warp_shuffle(
                T.tvm_warp_activemask(), W[y], (tx + 1) % 32, 32, 32) + W[y]

    after = TT.LowerWarpMemory()(_mod(before))["main"]
    assert_structural_equal(after.with_attr("global_symbol", "expected"), expected)


def test_lower_warp_memory_with_two_elements_per_lane():
    # m = 2: lane tx holds W[2 * tx] and W[2 * tx + 1].
    @T.prim_func
    def before(A: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 32)
        W = T.alloc_buffer((64,), scope="warp")
        for j in range(2):
            W[tx * 2 + j] = A[tx * 2 + j]
        A[tx * 2] = W[(31 - tx) * 2 + 1]

    after = TT.LowerWarpMemory()(_mod(before))["main"]
    text = after.script()
    assert "W = T.alloc_local((2,))" in text or 'T.alloc_buffer((2,), scope="local")' in text
    assert "W[j] = A[tx * 2 + j]" in text
    assert "T.tvm_warp_shuffle(T.tvm_warp_activemask(), W[1], 31 - tx, 32, 32)" in text


def test_lower_warp_memory_errors():
    @T.prim_func
    def other_lane(A: T.Buffer((32,), "float32")):
        tx = T.launch_thread("threadIdx.x", 32)
        W = T.alloc_buffer((32,), scope="warp")
        W[tx] = A[tx]
        W[(tx + 1) % 32] = A[tx]

    with pytest.raises(ValueError, match="stride threadIdx.x by 1 and|not a positive multiple"):
        TT.LowerWarpMemory()(_mod(other_lane))

    @T.prim_func
    def too_wide(A: T.Buffer((64,), "float32")):
        tx = T.launch_thread("threadIdx.x", 64)
        W = T.alloc_buffer((64,), scope="warp")
        W[tx] = A[tx]

    with pytest.raises(ValueError, match="no larger than the warp size 32"):
        TT.LowerWarpMemory()(_mod(too_wide))


def test_make_packed_api_moves_gpu_host_functions_to_the_host_target():
    mod = TT.MakePackedAPI()(_split(_two_kernels))
    assert mod["f"].get_attr("target").kind.name == "llvm"
    assert mod["f"].get_attr("calling_conv") == 1
    assert mod["f_kernel"].get_attr("calling_conv") == 2


def test_split_host_device_kernel_name_avoids_existing_functions():
    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        i = T.launch_thread("threadIdx.x", 16)
        A[i] = T.float32(0)

    @T.prim_func
    def other():
        T.evaluate(0)

    mod = tvm.IRModule({"main": main.with_attr("target", _cuda()), "main_kernel": other})
    after = TT.SplitHostDevice()(mod)
    assert sorted(g.name_hint for g in after.functions) == ["main", "main_kernel",
                                                              "main_kernel_1"]
    assert 'T.call_packed("main_kernel_1", A.data, 16)' in after["main"].script()


def test_split_host_device_let_bound_extent_and_explicit_target_region():
    device = tvm.target.Target("cuda")  # T.target(...) is not in pytvm's TVMScript yet

    @T.prim_func
    def main(a: T.handle, b: T.handle, seq_len: T.int32):
        A = T.match_buffer(a, (seq_len,), "int32")
        B = T.match_buffer(b, (seq_len,), "int32")
        num_blocks: T.let[T.int32] = (seq_len + 127) // 128
        with T.attr(device, "target", 0):
            bx = T.launch_thread("blockIdx.x", num_blocks)
            tx = T.launch_thread("threadIdx.x", 128)
            if bx * 128 + tx < seq_len:
                B[bx * 128 + tx] = A[bx * 128 + tx]

    after = TT.SplitHostDevice()(_mod(main.with_attr("target", _cuda())))
    kernel = after["main_kernel"]
    # A variable used only in a launch extent is a kernel parameter too.
    # Order: pointers, then scalars in host parameter order, then other variables.
    assert [p.name for p in kernel.params] == ["A_ptr", "B_ptr", "seq_len", "num_blocks"]
    host = after["main"].script()
    assert "num_blocks: T.let[T.int32] = (seq_len + 127) // 128" in host
    assert 'T.call_packed("main_kernel", A.data, B.data, ' in host
    assert host.rstrip().endswith("num_blocks, 128)")


def test_split_host_device_pointer_only_use_passes_the_buffer():
    device = tvm.target.Target("cuda")

    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        with T.attr(device, "target", 0):
            T.evaluate(T.call_extern("int32", "consume", A.data))

    after = TT.SplitHostDevice()(_mod(main.with_attr("target", _cuda())))
    kernel = after["main_kernel"]
    assert [p.name for p in kernel.params] == ["A_ptr"]
    assert list(kernel.get_attr("tirx.kernel_launch_params")) == []
    assert 'T.call_packed("main_kernel", A.data)' in after["main"].script()


def test_split_host_device_keeps_launch_flags_without_arguments():
    @T.prim_func
    def main(A: T.Buffer((16,), "float32")):
        tx = T.launch_thread("threadIdx.x", 16)
        A[tx] = T.float32(0)

    func = main.with_attr("target", _cuda()).with_attr(
        "tirx.kernel_launch_params", ["threadIdx.x", "tirx.use_programtic_dependent_launch"])
    after = TT.SplitHostDevice()(_mod(func))
    assert list(after["main_kernel"].get_attr("tirx.kernel_launch_params")) == [
        "threadIdx.x", "tirx.use_programtic_dependent_launch"]
    assert 'T.call_packed("main_kernel", A.data, 16)' in after["main"].script()


def test_unify_thread_binding_merges_virtual_threads_and_launches():
    @T.prim_func
    def vthreads(A: T.Buffer((64, 64), "float32")):
        for v0 in T.thread_binding(2, thread="vthread.x"):
            for t in T.thread_binding(32, thread="threadIdx.x"):
                for v1 in T.thread_binding(2, thread="vthread.x"):
                    for j in range(32):
                        A[v0 * 32 + t, v1 * 32 + j] = T.float32(0)

    @T.prim_func
    def vthreads_expected(A: T.Buffer((64, 64), "float32")):
        for vx in T.thread_binding(2, thread="vthread.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                for j in range(32):
                    A[vx * 32 + tx, vx * 32 + j] = T.float32(0)

    after = TT.UnifyThreadBinding()(_mod(vthreads))["main"]
    assert_structural_equal(after.with_attr("global_symbol", "vthreads_expected"),
                            vthreads_expected)

    @T.prim_func
    def launches(A: T.Buffer((16, 8), "float32")):
        t1 = T.env_thread("threadIdx.x")
        t0 = T.env_thread("threadIdx.x")
        b = T.env_thread("blockIdx.x")
        T.launch_thread(b, 16)
        T.launch_thread(t0, 8)
        T.launch_thread(t1, 8)
        A[b, t0] = T.float32(1)
        A[b, t1] = A[b, t1] * T.float32(2)

    @T.prim_func
    def launches_expected(A: T.Buffer((16, 8), "float32")):
        for bx in T.thread_binding(16, thread="blockIdx.x"):
            for tx in T.thread_binding(8, thread="threadIdx.x"):
                A[bx, tx] = T.float32(1)
                A[bx, tx] = A[bx, tx] * T.float32(2)

    after = TT.UnifyThreadBinding()(_mod(launches))["main"]
    assert_structural_equal(after.with_attr("global_symbol", "launches_expected"),
                            launches_expected)


def test_unify_thread_binding_extent_dtypes_and_annotations():
    @T.prim_func
    def before(A: T.Buffer((8, 4), "float32")):
        for b in T.thread_binding(8, thread="blockIdx.x"):
            for t0 in T.thread_binding(4, thread="threadIdx.x"):
                A[b, t0] = T.float32(1)
            for t1 in T.thread_binding(T.int64(4), thread="threadIdx.x",
                                       annotations={"note": 1}):
                A[b, t1] = T.float32(2)

    after = TT.UnifyThreadBinding()(_mod(before))["main"]
    text = after.script()
    assert text.count("T.thread_binding") == 2
    assert 'for var in T.serial(T.int64(1), annotations={"note": 1}):' in text
    assert "A[blockIdx_x, T.Cast(\"int64\", threadIdx_x)] = T.float32(2.0)" in text
