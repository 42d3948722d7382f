"""TVMScript kernels shared by the CUDA code generator tests (scheduled, with thread bindings)."""

from tvm.script import tirx as T


@T.prim_func
def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "scale"})
    for i in T.thread_binding(256, thread="threadIdx.x"):
        B[i] = A[i] * T.float32(2)


@T.prim_func
def add2d(A: T.Buffer((64, 128), "float32"), B: T.Buffer((64, 128), "float32"),
          C: T.Buffer((64, 128), "float32")):
    T.func_attr({"global_symbol": "add2d"})
    for by in T.thread_binding(8, thread="blockIdx.y"):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for ty in T.thread_binding(8, thread="threadIdx.y"):
                for tx in T.thread_binding(32, thread="threadIdx.x"):
                    C[by * 8 + ty, bx * 32 + tx] = (
                        A[by * 8 + ty, bx * 32 + tx] + T.exp(B[by * 8 + ty, bx * 32 + tx])
                    )


@T.prim_func
def bounded(a: T.handle, b: T.handle, n: T.int32):
    T.func_attr({"global_symbol": "bounded"})
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            if bx * 128 + tx < n:
                B[bx * 128 + tx] = T.tanh(A[bx * 128 + tx]) + T.sqrt(T.abs(A[bx * 128 + tx]))


@T.prim_func
def warp_sum(A: T.Buffer((128, 32), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "warp_sum"})
    for b in T.thread_binding(128, thread="blockIdx.x"):
        for t in T.thread_binding(32, thread="threadIdx.x"):
            red = T.alloc_buffer((1,), "float32", scope="local")
            mask = T.alloc_buffer((1,), "uint32", scope="local")
            red[0] = A[b, t]
            mask[0] = T.tvm_warp_activemask()
            red[0] = red[0] + T.tvm_warp_shuffle_down(mask[0], red[0], 16, 32, 32)
            red[0] = red[0] + T.tvm_warp_shuffle_down(mask[0], red[0], 8, 32, 32)
            red[0] = red[0] + T.tvm_warp_shuffle_down(mask[0], red[0], 4, 32, 32)
            red[0] = red[0] + T.tvm_warp_shuffle_down(mask[0], red[0], 2, 32, 32)
            red[0] = red[0] + T.tvm_warp_shuffle_down(mask[0], red[0], 1, 32, 32)
            red[0] = T.tvm_warp_shuffle(mask[0], red[0], 0, 32, 32)
            if t == 0:
                B[b] = red[0]


@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"),
           C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "matmul"})
    for by in T.thread_binding(4, thread="blockIdx.y"):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            for ty in T.thread_binding(16, thread="threadIdx.y"):
                for tx in T.thread_binding(16, thread="threadIdx.x"):
                    As = T.alloc_buffer((16, 16), "float32", scope="shared")
                    Bs = T.alloc_buffer((16, 16), "float32", scope="shared")
                    acc = T.alloc_buffer((1,), "float32", scope="local")
                    acc[0] = T.float32(0)
                    for k0 in range(4):
                        As[ty, tx] = A[by * 16 + ty, k0 * 16 + tx]
                        Bs[ty, tx] = B[k0 * 16 + ty, bx * 16 + tx]
                        T.tvm_storage_sync("shared")
                        for k1 in range(16):
                            acc[0] = acc[0] + As[ty, k1] * Bs[k1, tx]
                        T.tvm_storage_sync("shared")
                    C[by * 16 + ty, bx * 16 + tx] = acc[0]


@T.prim_func
def half_bf16(A: T.Buffer((512,), "float16"), B: T.Buffer((512,), "bfloat16"),
              C: T.Buffer((512,), "float32"), D: T.Buffer((512,), "float8_e4m3fn")):
    T.func_attr({"global_symbol": "half_bf16"})
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            C[bx * 256 + tx] = T.Cast("float32", T.exp(A[bx * 256 + tx])) + T.Cast(
                "float32", B[bx * 256 + tx] * T.bfloat16(0.5))
            D[bx * 256 + tx] = T.Cast("float8_e4m3fn", C[bx * 256 + tx])


@T.prim_func
def vec4(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "vec4"})
    for b in T.thread_binding(4, thread="blockIdx.x"):
        for i in T.thread_binding(64, thread="threadIdx.x"):
            B[T.Ramp(b * 256 + i * 4, 1, 4)] = (
                A[T.Ramp(b * 256 + i * 4, 1, 4)] * T.Broadcast(T.float32(3), 4)
            )


@T.prim_func
def dyn_shared(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "dyn_shared"})
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            S = T.alloc_buffer((256,), "float32", scope="shared.dyn")
            I = T.alloc_buffer((256,), "int32", scope="shared.dyn")
            S[tx] = A[bx * 256 + tx]
            I[tx] = tx
            T.tvm_storage_sync("shared")
            B[bx * 256 + tx] = S[255 - tx] + T.Cast("float32", I[tx])


@T.prim_func
def atomic(A: T.Buffer((1024,), "float32"), B: T.Buffer((1,), "float32")):
    T.func_attr({"global_symbol": "atomic"})
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            T.evaluate(T.call_extern("float32", "atomicAdd", T.address_of(B[0]),
                                     A[bx * 256 + tx]))


@T.prim_func
def misc(A: T.Buffer((256,), "float16"), B: T.Buffer((256,), "float64"),
         C: T.Buffer((256,), "int64"), D: T.Buffer((256,), "int32"), n: T.int32):
    T.func_attr({"global_symbol": "misc"})
    for tx in T.thread_binding(256, thread="threadIdx.x"):
        A[tx] = A[tx] * T.float16(1.5) + T.max(A[tx], T.float16(0))
        B[tx] = B[tx] * T.float64(2.5) + T.float64(float("inf"))
        C[tx] = C[tx] + T.int64(3)
        D[tx] = T.Select(D[tx] > 2, T.floordiv(D[tx], n), T.floormod(D[tx] - 7, 4)) + T.min(D[tx], 5)
        for k in T.unroll(4):
            D[tx] = D[tx] + k
        D[tx] = T.Cast("int32", T.sqrt(T.Cast("float32", D[tx])) > T.float32(1)) + T.Cast(
            "int32", T.exp(B[tx]))


@T.prim_func
def warp_mem(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.func_attr({"global_symbol": "warp_mem"})
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            W = T.alloc_buffer((64,), "float32", scope="warp")
            for y in range(2):
                W[y * 32 + tx] = A[bx * 64 + y * 32 + tx]
            for y in range(2):
                B[bx * 64 + y * 32 + tx] = W[y * 32 + (tx + 1) % 32] + W[y * 32 + tx]


@T.prim_func
def vec_half(A: T.Buffer((512,), "float16"), B: T.Buffer((512,), "bfloat16")):
    T.func_attr({"global_symbol": "vec_half"})
    for tx in T.thread_binding(256, thread="threadIdx.x"):
        A[T.Ramp(tx * 2, 1, 2)] = A[T.Ramp(tx * 2, 1, 2)] + T.Broadcast(T.float16(1), 2)
        B[T.Ramp(tx * 2, 1, 2)] = B[T.Ramp(tx * 2, 1, 2)] * T.Broadcast(T.bfloat16(2), 2)


@T.prim_func
def dyn_symbolic(a: T.handle, n: T.int32):
    T.func_attr({"global_symbol": "dyn_symbolic"})
    A = T.match_buffer(a, (n,), "float32")
    for tx in T.thread_binding(256, thread="threadIdx.x"):
        S = T.alloc_buffer((n,), "float32", scope="shared.dyn")
        H = T.alloc_buffer((4,), "float16", scope="shared.dyn")
        S[tx] = A[tx]
        H[0] = T.float16(0)
        A[tx] = S[n - 1 - tx] + T.Cast("float32", H[0])


ALL = {
    "scale": scale, "add2d": add2d, "bounded": bounded, "warp_sum": warp_sum,
    "matmul": matmul, "half_bf16": half_bf16, "vec4": vec4, "dyn_shared": dyn_shared,
    "atomic": atomic, "misc": misc,
    "warp_mem": warp_mem, "vec_half": vec_half,
    "dyn_symbolic": dyn_symbolic,
}


CONVERSION_DTYPES = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float32",
                     "float64", "int8", "uint8", "int32", "int64")


def conversion(src: str, dst: str):
    """A kernel casting a ``src`` buffer to ``dst`` (named ``conv_<src>_<dst>``)."""

    @T.prim_func
    def conv(A: T.Buffer((32,), src), B: T.Buffer((32,), dst)):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            B[tx] = T.Cast(dst, A[tx])

    return conv.with_attr("global_symbol", f"conv_{src}_{dst}")
