"""create_prim_func results print exactly as Apache TVM 0.27 prints the same computes."""

from tvm import te

MATMUL = '''# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j, k in T.grid(128, 128, 128):
        with T.sblock("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A[v_i, v_k], B[v_j, v_k])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]'''

PIPELINE = '''# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), E: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    D = T.sblock_alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.sblock("D"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j], B[v_i, v_j])
            T.writes(D[v_i, v_j])
            D[v_i, v_j] = A[v_i, v_j] + B[v_i, v_j]
    for i, j in T.grid(128, 128):
        with T.sblock("E"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(D[v_i, v_j])
            T.writes(E[v_i, v_j])
            E[v_i, v_j] = T.exp(D[v_i, v_j])'''

MULTI_OUTPUT = '''# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((4,), "float32"), C_v0: T.Buffer((4,), "float32"), C_v1: T.Buffer((4,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i in range(4):
        with T.sblock("C_v0"):
            v_i = T.axis.spatial(4, i)
            T.reads(A[v_i])
            T.writes(C_v0[v_i])
            C_v0[v_i] = A[v_i] + T.float32(1.0)
        with T.sblock("C_v1"):
            v_i = T.axis.spatial(4, i)
            T.reads(A[v_i])
            T.writes(C_v1[v_i])
            C_v1[v_i] = A[v_i] * T.float32(2.0)'''


def _inputs():
    return te.placeholder((128, 128), name="A"), te.placeholder((128, 128), name="B")


def test_matmul_prints_like_tvm():
    A, B = _inputs()
    k = te.reduce_axis((0, 128), name="k")
    C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    assert te.create_prim_func([A, B, C]).script() == MATMUL


def test_two_stage_pipeline_prints_like_tvm():
    A, B = _inputs()
    D = te.compute((128, 128), lambda i, j: A[i, j] + B[i, j], name="D")
    E = te.compute((128, 128), lambda i, j: te.exp(D[i, j]), name="E")
    assert te.create_prim_func([A, B, E]).script() == PIPELINE


def test_multi_output_prints_like_tvm():
    A = te.placeholder((4,), name="A")
    C, D = te.compute((4,), lambda i: (A[i] + 1.0, A[i] * 2.0), name="C")
    assert te.create_prim_func([A, C, D]).script() == MULTI_OUTPUT
