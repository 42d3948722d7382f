"""The T-dialect printer against Apache TVM 0.27's exact text.

Every expected string below is what TVM 0.27 prints for the same input (sources parsed with
``from_source``, te/topi computes through ``te.create_prim_func``, schedules of a matmul). Each
case also checks that the printed text parses back to a structurally equal function that
prints the same.
"""

import pytest

import tvm
from tvm import te, tirx, topi
from tvm.s_tir import Schedule
from tvm.script import from_source
from tvm.tirx import stmt as S

HEADER = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"

SOURCES = {
    # 1. ``private`` before ``s_tir`` in the decorator.
    "decorator_order": '''
@T.prim_func(private=True, s_tir=True)
def main(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(1.0)
''',
    # 2. A Bind prints as ``x: T.let[T.int32] = v``.
    "bind_let": '''
@T.prim_func(private=True)
def main(A: T.Buffer((4,), "int32"), n: T.int32):
    x: T.let[T.int32] = n + 1
    A[0] = x
''',
    # 3. Declared buffers: float32 left out, ``data=`` first.
    "decl_buffer": '''
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    A_1 = T.decl_buffer((16,), data=A.data)
    A_2 = T.decl_buffer((16,), "int32", data=A.data)
    A_3 = T.decl_buffer((8,), data=A.data, elem_offset=8)
    A_1[0] = T.Cast("float32", A_2[0]) + A_3[0]
''',
    # 4. Launched threads.
    "launch_thread": '''
@T.prim_func(private=True)
def main(A: T.Buffer((256,), "float32")):
    tx = T.launch_thread("threadIdx.x", 256)
    bx = T.env_thread("blockIdx.x")
    T.launch_thread(bx, 4)
    A[tx] = T.float32(1.0)
''',
    # 5. Attributes about no node print as a dict; others keep the three-argument form.
    "attr_forms": '''
@T.prim_func(private=True)
def main(A: T.Buffer((256,), "float32")):
    with T.attr({"pragma_x": 1}):
        A[0] = T.float32(1.0)
    with T.attr(A.data, "storage_alignment", 128):
        A[1] = T.float32(1.0)
''',
    # 7. Constant-stride ramps of stores print as slices; loads keep T.Ramp.
    "ramp_store": '''
@T.prim_func(private=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        B[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)]
        B[T.Ramp(i * 4, 2, 2)] = A[T.Ramp(i * 4, 2, 2)]
''',
    # 9. Symbolic signatures: ``"n"`` in the first shape, ``n = T.int32()`` before attrs.
    "symbolic_signature": '''
@T.prim_func
def f9(a: T.handle, b: T.handle):
    T.func_attr({"tir.noalias": True})
    n = T.int32()
    A = T.match_buffer(a, (n, 4), "float32")
    B = T.match_buffer(b, (n * 4,), "float32")
    for i in range(n):
        B[i * 4] = A[i, 0]
''',
    # Float division prints as ``/``; integer division as ``T.Div``.
    "div_forms": '''
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):
    A[0] = A[1] / A[2]
    B[0] = T.Div(B[1], B[2])
''',
}

FLOATS = [
    ("float32", -3.4028234663852886e38), ("float32", 0.1), ("float32", 1e-20),
    ("float32", 1.0), ("float32", 1e17), ("float16", 0.1), ("float64", 1e300),
    ("float64", 1.5e-7), ("float64", 1 / 3), ("bfloat16", 2.5), ("float32", float("-inf")),
]


def te_programs():
    A = te.placeholder((4, 8), name="A")
    B = te.placeholder((8,), name="B")
    W = te.placeholder((8, 8), name="W")
    S = te.placeholder((4, 4), name="S")
    n = te.var("n")
    N = te.placeholder((n, 8), name="N")
    k = te.reduce_axis((0, 8), name="k")
    big = tirx.const(-3.4028234663852886e38, "float32")
    return {
        "add_bcast": lambda: [A, B, topi.add(A, B)],
        "relu": lambda: [A, topi.nn.relu(A)],
        "sum_axis1": lambda: [A, topi.sum(A, axis=1)],
        "max_axis0": lambda: [A, topi.max(A, axis=0)],
        "transpose": lambda: [A, topi.transpose(A, (1, 0))],
        "reshape": lambda: [A, topi.reshape(A, (32,))],
        "exp": lambda: [A, topi.exp(A)],
        "cast": lambda: [A, topi.cast(A, "float16")],
        "compare_canonical": lambda: [S, te.compute(
            (4, 4), lambda i, j: te.if_then_else(i > j, S[i, j], 0.0), name="C")],
        "binary_max_big_float": lambda: [A, te.compute(
            (4, 8), lambda i, j: te.max(A[i, j], big), name="C")],
        "symbolic_reduce": lambda: [N, te.compute((n,), lambda i: te.sum(N[i, k], axis=k),
                                                  name="C")],
        "dense_like": lambda: [A, W, te.compute(
            (4, 8), lambda i, j: te.sum(A[i, k] * W[j, k], axis=k), name="D")],
    }


def matmul():
    A = te.placeholder((64, 64), name="A")
    B = te.placeholder((64, 64), name="B")
    k = te.reduce_axis((0, 64), name="k")
    C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _split_reorder(s):
    i, j, _ = s.get_loops(s.get_sblock("C"))
    io, ii = s.split(i, [None, 8])
    s.reorder(io, j, ii)


def _bind(s):
    i, j, _ = s.get_loops(s.get_sblock("C"))
    s.bind(i, "blockIdx.x")
    s.bind(j, "threadIdx.x")


def _vectorize(s):
    i, j, kk = s.get_loops(s.get_sblock("C"))
    jo, ji = s.split(j, [None, 4])
    s.reorder(i, jo, kk, ji)
    s.vectorize(ji)
    s.parallel(i)


def _cache(s):
    b = s.get_sblock("C")
    s.cache_read(b, 0, "shared")
    s.cache_write(b, 0, "local")


def _decompose(s):
    b = s.get_sblock("C")
    _, j, kk = s.get_loops(b)
    s.decompose_reduction(b, kk)
    s.unroll(j)


SCHEDULES = {"split_reorder": _split_reorder, "bind": _bind, "vectorize": _vectorize,
             "cache_read_write": _cache, "decompose_unroll": _decompose}


def scheduled(name):
    s = Schedule(matmul())
    SCHEDULES[name](s)
    return s.mod["main"]


# Apache TVM 0.27: from_source(SOURCES[name]).script()
EXPECTED_SOURCES = {
    "decorator_order": HEADER + """\
@T.prim_func(private=True, s_tir=True)
def main(A: T.Buffer((4,), "float32")):
    # with T.sblock("root"):
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(1.0)""",
    "bind_let": HEADER + """\
@T.prim_func(private=True)
def main(A: T.Buffer((4,), "int32"), n: T.int32):
    x: T.let[T.int32] = n + 1
    A[0] = x""",
    "decl_buffer": HEADER + """\
@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    A_1 = A.view(16)
    A_2 = T.decl_buffer((16,), "int32", data=A.data)
    A_3 = T.decl_buffer((8,), data=A.data, elem_offset=8)
    A_1[0] = T.Cast("float32", A_2[0]) + A_3[0]""",
    "launch_thread": HEADER + """\
@T.prim_func(private=True)
def main(A: T.Buffer((256,), "float32")):
    tx = T.launch_thread("threadIdx.x", 256)
    bx = T.launch_thread("blockIdx.x", 4)
    A[tx] = T.float32(1.0)""",
    "attr_forms": HEADER + """\
@T.prim_func(private=True)
def main(A: T.Buffer((256,), "float32")):
    with T.attr({"pragma_x": 1}):
        A[0] = T.float32(1.0)
    with T.attr(A.data, "storage_alignment", 128):
        A[1] = T.float32(1.0)""",
    "ramp_store": HEADER + """\
@T.prim_func(private=True)
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        B[i * 4:i * 4 + 4] = A[T.Ramp(i * 4, 1, 4)]
        B[i * 4:i * 4 + 4:2] = A[T.Ramp(i * 4, 2, 2)]""",
    "symbolic_signature": HEADER + """\
@T.prim_func
def f9(A: T.Buffer(("n", 4), "float32"), B: T.Buffer((n * 4,), "float32")):
    n = T.int32()
    T.func_attr({"tir.noalias": True})
    for i in range(n):
        B[i * 4] = A[i, 0]""",
    "div_forms": HEADER + """\
@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "int32")):
    A[0] = A[1] / A[2]
    B[0] = T.Div(B[1], B[2])""",
}

# Apache TVM 0.27: te.create_prim_func(te_programs()[name]()).script()
EXPECTED_TE = {
    "add_bcast": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8,), "float32"), T_add: T.Buffer((4, 8), \
"float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1 in T.grid(4, 8):
        with T.sblock("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax0, v_ax1], B[v_ax1])
            T.writes(T_add[v_ax0, v_ax1])
            T_add[v_ax0, v_ax1] = A[v_ax0, v_ax1] + B[v_ax1]""",
    "relu": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), compute: T.Buffer((4, 8), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i0, i1 in T.grid(4, 8):
        with T.sblock("compute"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(A[v_i0, v_i1])
            T.writes(compute[v_i0, v_i1])
            compute[v_i0, v_i1] = T.max(A[v_i0, v_i1], T.float32(0.0))""",
    "sum_axis1": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), A_red: T.Buffer((4,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, k1 in T.grid(4, 8):
        with T.sblock("A_red"):
            v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
            T.reads(A[v_ax0, v_k1])
            T.writes(A_red[v_ax0])
            with T.init():
                A_red[v_ax0] = T.float32(0.0)
            A_red[v_ax0] = A_red[v_ax0] + A[v_ax0, v_k1]""",
    "max_axis0": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), A_red: T.Buffer((8,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, k0 in T.grid(8, 4):
        with T.sblock("A_red"):
            v_ax0, v_k0 = T.axis.remap("SR", [ax0, k0])
            T.reads(A[v_k0, v_ax0])
            T.writes(A_red[v_ax0])
            with T.init():
                A_red[v_ax0] = T.float32(-340282346638528859811704183484516925440.0)
            A_red[v_ax0] = T.max(A_red[v_ax0], A[v_k0, v_ax0])""",
    "transpose": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), T_transpose: T.Buffer((8, 4), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0, ax1 in T.grid(8, 4):
        with T.sblock("T_transpose"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v_ax1, v_ax0])
            T.writes(T_transpose[v_ax0, v_ax1])
            T_transpose[v_ax0, v_ax1] = A[v_ax1, v_ax0]""",
    "reshape": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), T_reshape: T.Buffer((32,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for ax0 in range(32):
        with T.sblock("T_reshape"):
            v_ax0 = T.axis.spatial(32, ax0)
            T.reads(A[v_ax0 % 32 // 8, v_ax0 % 8])
            T.writes(T_reshape[v_ax0])
            T_reshape[v_ax0] = A[v_ax0 % 32 // 8, v_ax0 % 8]""",
    "exp": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), compute: T.Buffer((4, 8), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i0, i1 in T.grid(4, 8):
        with T.sblock("compute"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(A[v_i0, v_i1])
            T.writes(compute[v_i0, v_i1])
            compute[v_i0, v_i1] = T.exp(A[v_i0, v_i1])""",
    "cast": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), compute: T.Buffer((4, 8), "float16")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i0, i1 in T.grid(4, 8):
        with T.sblock("compute"):
            v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
            T.reads(A[v_i0, v_i1])
            T.writes(compute[v_i0, v_i1])
            compute[v_i0, v_i1] = T.Cast("float16", A[v_i0, v_i1])""",
    "compare_canonical": HEADER + """\
@T.prim_func(s_tir=True)
def main(S: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(4, 4):
        with T.sblock("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(S[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = T.if_then_else(v_j < v_i, S[v_i, v_j], T.float32(0.0))""",
    "binary_max_big_float": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(4, 8):
        with T.sblock("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = T.max(A[v_i, v_j], \
T.float32(-340282346638528859811704183484516925440.0))""",
    "symbolic_reduce": HEADER + """\
@T.prim_func(s_tir=True)
def main(N: T.Buffer(("n", 8), "float32"), C: T.Buffer((n,), "float32")):
    n = T.int32()
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, k in T.grid(n, 8):
        with T.sblock("C"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(N[v_i, v_k])
            T.writes(C[v_i])
            with T.init():
                C[v_i] = T.float32(0.0)
            C[v_i] = C[v_i] + N[v_i, v_k]""",
    "dense_like": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((4, 8), "float32"), W: T.Buffer((8, 8), "float32"), D: T.Buffer((4, 8), \
"float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j, k in T.grid(4, 8, 8):
        with T.sblock("D"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], W[v_j, v_k])
            T.writes(D[v_i, v_j])
            with T.init():
                D[v_i, v_j] = T.float32(0.0)
            D[v_i, v_j] = D[v_i, v_j] + A[v_i, v_k] * W[v_j, v_k]""",
}

# Apache TVM 0.27: scheduled(name).script()
EXPECTED_SCHEDULED = {
    "split_reorder": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, \
64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i_0, j, i_1, k in T.grid(8, 64, 8, 64):
        with T.sblock("C"):
            v_i = T.axis.spatial(64, i_0 * 8 + i_1)
            v_j, v_k = T.axis.remap("SR", [j, k])
            T.reads(A[v_i, v_k], B[v_k, v_j])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]""",
    "bind": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, \
64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i in T.thread_binding(64, thread="blockIdx.x"):
        for j in T.thread_binding(64, thread="threadIdx.x"):
            for k in range(64):
                with T.sblock("C"):
                    v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                    T.reads(A[v_i, v_k], B[v_k, v_j])
                    T.writes(C[v_i, v_j])
                    with T.init():
                        C[v_i, v_j] = T.float32(0.0)
                    C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]""",
    "vectorize": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, \
64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i in T.parallel(64):
        for j_0, k in T.grid(16, 64):
            for j_1 in T.vectorized(4):
                with T.sblock("C"):
                    v_i = T.axis.spatial(64, i)
                    v_j = T.axis.spatial(64, j_0 * 4 + j_1)
                    v_k = T.axis.reduce(64, k)
                    T.reads(A[v_i, v_k], B[v_k, v_j])
                    T.writes(C[v_i, v_j])
                    with T.init():
                        C[v_i, v_j] = T.float32(0.0)
                    C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]""",
    "cache_read_write": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, \
64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    A_shared = T.sblock_alloc_buffer((64, 64), scope="shared")
    C_local = T.sblock_alloc_buffer((64, 64), scope="local")
    for ax0, ax1 in T.grid(64, 64):
        with T.sblock("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for i, j, k in T.grid(64, 64, 64):
        with T.sblock("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A_shared[v_i, v_k], B[v_k, v_j])
            T.writes(C_local[v_i, v_j])
            with T.init():
                C_local[v_i, v_j] = T.float32(0.0)
            C_local[v_i, v_j] = C_local[v_i, v_j] + A_shared[v_i, v_k] * B[v_k, v_j]
    for ax0, ax1 in T.grid(64, 64):
        with T.sblock("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C_local[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_local[v0, v1]""",
    "decompose_unroll": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, \
64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i in range(64):
        for j in T.unroll(64):
            with T.sblock("C_init"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = T.float32(0.0)
            for k in range(64):
                with T.sblock("C_update"):
                    v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                    T.reads(C[v_i, v_j], A[v_i, v_k], B[v_k, v_j])
                    T.writes(C[v_i, v_j])
                    C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]""",
}

# Apache TVM 0.27: tirx.FloatImm(dtype, value).script() for FLOATS
EXPECTED_FLOATS = [
    'T.float32(-340282346638528859811704183484516925440.0)',
    'T.float32(0.10000000000000001)',
    'T.float32(9.9999999999999995e-21)',
    'T.float32(1.0)',
    'T.float32(100000000000000000.0)',
    'T.float16(0.10000000000000001)',
    (
        'T.float64('
        '10000000000000000525047602552044202487044685811081591549158541155118024579889081'
        '95786371375080447864043704443832883878176942523235360430575644792184786706982848'
        '38720092657580373783023379478809005936895323497079994508111903896764088007465274'
        '2780142494579258788820056842838115669472196386865459400540160'
        '.0)'
    ),
    'T.float64(1.4999999999999999e-07)',
    'T.float64(0.33333333333333331)',
    'T.bfloat16(2.5)',
    'T.float32("-inf")',
]


MORE_SOURCES = {
    "misc": '''
@T.prim_func
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32"), n: T.int32):
    T.func_attr({"tir.noalias": True, "target": "llvm"})
    for i in range(16):
        A[i] = T.Select(i < n, A[i], T.float32(0.5)) + T.exp(A[i]) * T.float32(1e-5)
        B[i] = T.shift_left(B[i], 2) + T.truncdiv(B[i], 3) + T.floordiv(B[i], 4)
    T.evaluate(T.call_extern("int32", "foo", A.data, n))
    assert n > 0, "n must be positive"
    while n > 0:
        B[0] = B[0] - 1
''',
    "vthread": '''
@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    vx = T.env_thread("vthread")
    T.launch_thread(vx, 2)
    A[vx] = T.float32(2.0)
''',
    "alloc_scopes": '''
@T.prim_func
def f(A: T.Buffer((16,), "float16")):
    B = T.alloc_buffer((16,), "float16", scope="shared")
    C = T.alloc_buffer((4, 4), scope="local")
    D = T.alloc_buffer((16,), "int8", align=16)
    for i in range(16):
        B[i] = A[i]
        C[i // 4, i % 4] = T.Cast("float32", B[i])
        D[i] = T.int8(1)
    A[0] = T.Cast("float16", C[0, 0]) + T.float16(0.1)
''',
    "int64_loops": '''
@T.prim_func
def f(A: T.Buffer((T.int64(16),), "float32"), n: T.int64):
    for i in range(T.int64(16)):
        A[i] = T.Cast("float32", i * n + T.int64(1))
    for j in T.serial(T.int64(2), T.int64(8)):
        A[j] = T.float32(0.0)
''',
    "local_allocs_in_s_tir": '''
@T.prim_func(s_tir=True)
def f(A: T.Buffer((4,), "int32")):
    x = T.sblock_alloc_buffer((1,), "int32", scope="local")
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            x[0] = vi
            A[vi] = x[0]
    y = T.alloc_buffer((1,), "int32", scope="local")
    z = T.alloc_buffer((1,), "float16", scope="local", align=16)
    w = T.alloc_buffer((1, 1), "int32", scope="local")
    y[0] = A[0]
    z[0] = T.float16(1)
    w[0, 0] = 1
''',
}


def producer_consumer():
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")
    return te.create_prim_func([A, C])


def _compute_at(s):
    i, _ = s.get_loops(s.get_sblock("C"))
    s.compute_at(s.get_sblock("B"), i)


def _reverse_compute_at(s):
    i, _ = s.get_loops(s.get_sblock("B"))
    s.reverse_compute_at(s.get_sblock("C"), i)


def _annotate_align(s):
    b = s.get_sblock("B")
    i, _ = s.get_loops(b)
    s.annotate(i, "pragma_auto_unroll_max_step", 16)
    s.annotate(b, "meta", "x")
    s.storage_align(b, 0, 0, 32, 8)


def _inline(s):
    s.compute_inline(s.get_sblock("B"))


PC_SCHEDULES = {"compute_at": _compute_at, "reverse_compute_at": _reverse_compute_at,
                "annotate_storage_align": _annotate_align, "compute_inline": _inline}


def scheduled_pc(name):
    s = Schedule(producer_consumer())
    PC_SCHEDULES[name](s)
    return s.mod["main"]


# Apache TVM 0.27: from_source(MORE_SOURCES[name]).script()
EXPECTED_MORE_SOURCES = {
    "misc": HEADER + """\
@T.prim_func
def f(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32"), n: T.int32):
    T.func_attr({"target": "llvm", "tir.noalias": True})
    for i in range(16):
        A[i] = T.Select(i < n, A[i], \
T.float32(0.5)) + T.exp(A[i]) * T.float32(1.0000000000000001e-05)
        B[i] = (B[i] << 2) + T.Div(B[i], 3) + B[i] // 4
    T.call_extern("int32", "foo", A.data, n)
    assert n > 0, ("RuntimeError", ["n must be positive"])
    while n > 0:
        B[0] = B[0] - 1""",
    "vthread": HEADER + """\
@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    vx = T.launch_thread("vthread", 2)
    A[vx] = T.float32(2.0)""",
    "alloc_scopes": HEADER + """\
@T.prim_func
def f(A: T.Buffer((16,), "float16")):
    B = T.alloc_shared((16,), "float16")
    C = T.alloc_local((4, 4))
    D = T.alloc_buffer((16,), "int8", align=16)
    for i in range(16):
        B[i] = A[i]
        C[i // 4, i % 4] = T.Cast("float32", B[i])
        D[i] = T.int8(1)
    A[0] = T.Cast("float16", C[0, 0]) + T.float16(0.10000000000000001)""",
    "int64_loops": HEADER + """\
@T.prim_func
def f(A: T.Buffer((T.int64(16),), "float32"), n: T.int64):
    for i in range(T.int64(16)):
        A[i] = T.Cast("float32", i * n + T.int64(1))
    for j in range(T.int64(2), T.int64(8)):
        A[j] = T.float32(0.0)""",
    "local_allocs_in_s_tir": HEADER + """\
@T.prim_func(s_tir=True)
def f(A: T.Buffer((4,), "int32")):
    # with T.sblock("root"):
    x = T.sblock_alloc_buffer((1,), "int32", scope="local")
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.reads(x[0])
            T.writes(x[0], A[vi])
            x[0] = vi
            A[vi] = x[0]
    y = T.alloc_local((1,), "int32")
    z = T.alloc_local((1,), "float16", align=16)
    w = T.alloc_local((1, 1), "int32")
    y[0] = A[0]
    z[0] = T.float16(1.0)
    w[0, 0] = 1""",
}

# Apache TVM 0.27: scheduled_pc(name).script()
EXPECTED_PC_SCHEDULED = {
    "compute_at": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((64, 64))
    for i in range(64):
        for ax0 in range(64):
            with T.sblock("B"):
                v_i, v_j = T.axis.remap("SS", [i, ax0])
                T.reads(A[v_i, v_j])
                T.writes(B[v_i, v_j])
                B[v_i, v_j] = A[v_i, v_j] * T.float32(2.0)
        for j in range(64):
            with T.sblock("C"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(B[v_i, v_j])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = B[v_i, v_j] + T.float32(1.0)""",
    "reverse_compute_at": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((64, 64))
    for i in range(64):
        for j in range(64):
            with T.sblock("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(A[v_i, v_j])
                T.writes(B[v_i, v_j])
                B[v_i, v_j] = A[v_i, v_j] * T.float32(2.0)
        for ax0 in range(64):
            with T.sblock("C"):
                v_i, v_j = T.axis.remap("SS", [i, ax0])
                T.reads(B[v_i, v_j])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = B[v_i, v_j] + T.float32(1.0)""",
    "annotate_storage_align": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((64, 64))
    for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16}):
        for j in range(64):
            with T.sblock("B"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(A[v_i, v_j])
                T.writes(B[v_i, v_j])
                T.sblock_attr({"buffer_dim_align": [[0, 0, 32, 8]], "meta": "x"})
                B[v_i, v_j] = A[v_i, v_j] * T.float32(2.0)
    for i, j in T.grid(64, 64):
        with T.sblock("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(B[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = B[v_i, v_j] + T.float32(1.0)""",
    "compute_inline": HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(64, 64):
        with T.sblock("C"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = A[v_i, v_j] * T.float32(2.0) + T.float32(1.0)""",
}

def _roundtrip(func):
    """The printed text parses back to an equal function that prints the same."""
    text = func.script()
    parsed = from_source(text)
    tvm.ir.assert_structural_equal(parsed, func, map_free_vars=True)
    assert parsed.script() == text


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_source_prints_as_tvm(name):
    func = from_source(SOURCES[name])
    assert func.script() == EXPECTED_SOURCES[name]
    _roundtrip(func)


def test_float_literals_print_as_tvm():
    texts = [tirx.FloatImm(dtype, value).script() for dtype, value in FLOATS]
    assert texts == EXPECTED_FLOATS


@pytest.mark.parametrize("name", sorted(EXPECTED_TE))
def test_te_program_prints_as_tvm(name):
    func = te.create_prim_func(te_programs()[name]())
    assert func.script() == EXPECTED_TE[name]
    _roundtrip(func)


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduled_matmul_prints_as_tvm(name):
    func = scheduled(name)
    assert func.script() == EXPECTED_SCHEDULED[name]
    _roundtrip(func)


def test_int64_block_axes_remap_as_tvm():
    # TVM 0.27 keeps T.axis.remap for int64 loops whose ranges match the block's.
    A = te.placeholder((8, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    C = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="C")
    func = te.create_prim_func([A, C], index_dtype_override="int64")
    assert func.script() == HEADER + """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((T.int64(8), T.int64(8)), "float32"), C: T.Buffer((T.int64(8),), \
"float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, k in T.grid(T.int64(8), T.int64(8)):
        with T.sblock("C"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(A[v_i, v_k])
            T.writes(C[v_i])
            with T.init():
                C[v_i] = T.float32(0.0)
            C[v_i] = C[v_i] + A[v_i, v_k]"""
    _roundtrip(func)


def test_bare_scalar_annotation_is_a_one_element_buffer():
    # As in TVM 0.27: ``x: T.int32 = v`` allocates a local (1,) buffer; ``x`` reads x[0] and
    # ``x = w`` stores into it; ``x: T.let[T.int32] = v`` is a Bind.
    func = from_source("""
@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    x: T.int32 = 3
    x = x + 1
    for i in range(4):
        A[i] = x
    y: T.int32
""")
    alloc, store, again, loop, alloc_y = func.body.seq
    assert isinstance(alloc, S.AllocBuffer) and alloc.buffer.scope() == "local"
    assert [int(d) for d in alloc.buffer.shape] == [1] and alloc.buffer.name == "x"
    assert store.buffer is alloc.buffer and again.buffer is alloc.buffer
    assert isinstance(again.value.a, S.BufferLoad) and loop.body.value.buffer is alloc.buffer
    assert isinstance(alloc_y, S.AllocBuffer)
    # Apache TVM 0.27: the same source, parsed and printed.
    assert func.script() == HEADER + """\
@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    x: T.int32 = 3
    x = x + 1
    for i in range(4):
        A[i] = x
    y: T.int32"""
    _roundtrip(func)


def test_one_element_buffers_print_as_scalars_outside_s_tir():
    # Apache TVM 0.27's text for each source (an s_tir function keeps the buffer form).
    plain = from_source("""
@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    y = T.alloc_buffer((1,), "int32", scope="local")
    z = T.alloc_buffer((1,), "float16", scope="local", align=16)
    y[0] = A[0]
    z[0] = T.float16(1)
    A[1] = y[0]
""")
    assert plain.script() == HEADER + """\
@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    y: T.int32
    z = T.alloc_local((1,), "float16", align=16)
    y = A[0]
    z[0] = T.float16(1.0)
    A[1] = y"""
    _roundtrip(plain)
    s_tir = from_source("""
@T.prim_func(s_tir=True)
def f(A: T.Buffer((4,), "int32")):
    y = T.alloc_buffer((1,), "int32", scope="local")
    y[0] = A[0]
    A[1] = y[0]
""")
    assert s_tir.script() == HEADER + """\
@T.prim_func(s_tir=True)
def f(A: T.Buffer((4,), "int32")):
    y = T.alloc_local((1,), "int32")
    y[0] = A[0]
    A[1] = y[0]"""
    _roundtrip(s_tir)


def test_buffer_aliasing_a_parameter_prints_its_data():
    # A flattened parameter used without a declaration: TVM 0.27 prints ``T.Buffer((16,))``
    # and loses the alias; ``data=B.data`` keeps it so the text parses back the same.
    B = tvm.tirx.decl_buffer((4, 4), "float32", name="B")
    flat = tvm.tirx.decl_buffer((16,), "float32", name="B_1", data=B.data)
    func = tvm.tirx.PrimFunc([B], S.BufferStore(flat, tirx.FloatImm("float32", 1.0),
                                                [tirx.IntImm("int32", 3)]))
    func = func.with_attr("global_symbol", "f")
    assert func.script() == HEADER + """\
@T.prim_func
def f(B: T.Buffer((4, 4), "float32")):
    B_1 = T.Buffer((16,), data=B.data)
    B_1[3] = T.float32(1.0)"""
    # A use without a declaration is not well-formed IR (TVM's FlattenBuffer declares it).
    parsed = from_source(func.script(), check_well_formed=False)
    store = parsed.body.seq[-1] if isinstance(parsed.body, S.SeqStmt) else parsed.body
    assert store.buffer.data is parsed.buffer_map[parsed.params[0]].data
    tvm.ir.assert_structural_equal(parsed, func, map_free_vars=True)
    assert parsed.script() == func.script()


def test_te_reducer_on_two_expressions_is_elementwise():
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int32")
    assert str(te.max(i, 3)) == "T.max(i, 3)"
    assert str(te.sum(i, j)) == "i + j"
    k = te.reduce_axis((0, 4), name="k")
    with pytest.raises(TypeError, match="where/init need an axis"):
        te.max(i, j, where=i < j)
    assert isinstance(te.max(i + k.var, axis=k), te.reduction.Reduce)


@pytest.mark.parametrize("name", sorted(MORE_SOURCES))
def test_more_sources_print_as_tvm(name):
    func = from_source(MORE_SOURCES[name])
    assert func.script() == EXPECTED_MORE_SOURCES[name]
    _roundtrip(func)


@pytest.mark.parametrize("name", sorted(PC_SCHEDULES))
def test_scheduled_producer_consumer_prints_as_tvm(name):
    func = scheduled_pc(name)
    assert func.script() == EXPECTED_PC_SCHEDULED[name]
    _roundtrip(func)
