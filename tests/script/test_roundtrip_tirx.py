"""Round trips of TIR TVMScript: parse -> print -> parse is structurally equal, and printing
again gives the same text.

The corpus covers every construct of the T dialect, ``te.create_prim_func`` outputs
(elementwise, matmul with init, two stages, reductions, symbolic shapes) and a scheduled loop
nest. The ``ORACLE_*`` texts are what Apache TVM 0.27 prints for the same programs (format
facts, recorded once): parsing them must give the same structure as parsing the source.
"""

import pytest

import tvm
from tvm import te, tirx
from tvm.script import from_source

CORPUS = {
    "elementwise_handle": """\
@T.prim_func
def main(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (128, 128), "float32")
    B = T.match_buffer(b, (128, 128), "float32")
    for i, j in T.grid(128, 128):
        B[i, j] = A[i, j] * T.float32(2.0)
""",
    "loops": """\
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in T.parallel(16):
        A[i] = T.float32(0.0)
    for i in T.vectorized(4):
        A[i] = T.Cast("float32", i)
    for i in T.unroll(4):
        A[i] = T.if_then_else(i > 1, A[i], T.float32(0.0))
    for i in T.thread_binding(16, thread="threadIdx.x"):
        A[i] = A[i] + T.float32(1.0)
    for i in T.serial(16, annotations={"pragma_unroll_explicit": 1}):
        A[i] = T.exp(A[i])
    for i in range(2, 10):
        A[i] = T.max(A[i], T.min(A[i - 1], T.float32(3.0)))
    for i in range(n):
        A[i % 16] = A[T.floordiv(i, 2) % 16]
""",
    "control": """\
@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    x: T.int32 = n * 2
    if x > 4 and n < 10:
        A[0] = x
    else:
        A[1] = T.floormod(x, 3)
    while A[0] < 100:
        A[0] = A[0] * 2
    assert n > 0, "n must be positive"
    T.evaluate(T.call_extern("int32", "foo", x, A[0]))
    with T.attr(0, "pragma_key", 1):
        A[2] = T.truncdiv(x, 4)
    B = T.alloc_buffer((4,), "int32", scope="local")
    B[0] = T.Select(n > 1, 1, 2)
    C = T.alloc_buffer((8, 8), "float16")
    C[0, 0] = T.float16(1.0)
""",
    "blocks": """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    B = T.sblock_alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] + T.float32(1.0)
    for i in range(128):
        for k in range(128):
            with T.sblock("C"):
                vi = T.axis.spatial(128, i)
                vk = T.axis.reduce(128, k)
                T.reads(B[vi, vk])
                T.writes(C[vi])
                T.sblock_attr({"meta": 1})
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + B[vi, vk]
""",
    "split": """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i_0, j, i_1 in T.grid(4, 128, 32):
        with T.sblock("B"):
            vi = T.axis.spatial(128, i_0 * 32 + i_1)
            vj = T.axis.spatial(128, j)
            T.where(i_0 * 32 + i_1 < 128)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj]
""",
    "match_region": """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32")):
    for i in range(4):
        with T.sblock("blk"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 4:vi * 4 + 4, 0:16])
            T.writes(A[vi * 4:vi * 4 + 4, 0:16])
            sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16))
            tmp = T.sblock_alloc_buffer((4,))
            for k in range(4):
                tmp[k] = sub[k, 0]
            for k in range(4):
                sub[k, 1] = tmp[k]
""",
    "symbolic": """\
@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4))
    B = T.match_buffer(b, (n, 4))
    for i, j in T.grid(n, 4):
        B[i, j] = A[i, j] + T.float32(1.0)
""",
    "int64": """\
@T.prim_func
def main(A: T.Buffer((T.int64(8),), "int64"), B: T.Buffer((T.int64(8),), "bool")):
    for i in range(T.int64(8)):
        A[i] = T.int64(3) + A[i]
        B[i] = T.bool(True)
""",
    "binds": """\
@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    x: T.let[T.int32] = n + 1
    y: T.let[T.int32] = x * 2
    z = T.Bind(T.float32(0.5))
    A[0] = T.Cast("float32", y) + z
    w: T.let[T.int64] = T.Cast("int64", x)
    A[1] = T.Cast("float32", w)
""",
    "buffers": """\
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((4, 4), "int8")):
    L = T.alloc_buffer((4,), scope="local")
    S = T.alloc_buffer((16,), "int32", scope="shared")
    V = T.decl_buffer((4, 4), data=A.data)
    L[0] = V[1, 2]
    S[3] = T.Cast("int32", B[0, 1])
    for i in range(4):
        A[i] = L[0] + T.Cast("float32", S[i])
""",
    "axes": """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("scan"):
            vi = T.axis.scan(8, i)
            T.reads(A[0:vi + 1])
            T.writes(B[vi])
            B[vi] = A[vi]
    for i in range(8):
        with T.sblock("opaque"):
            vi = T.axis.opaque(8, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = B[vi] + A[vi]
    for i in range(2, 6):
        with T.sblock("offset"):
            vi = T.axis.spatial((2, 6), i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(3.0)
""",
    "block_alloc": """\
@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i in T.thread_binding(16, thread="blockIdx.x"):
        with T.sblock("row"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi, 0:16])
            T.writes(B[vi])
            acc = T.sblock_alloc_buffer((1,), scope="local")
            acc[0] = T.float32(0.0)
            for k in range(16):
                acc[0] = acc[0] + A[vi, k]
            B[vi] = acc[0]
""",
    "nested_if": """\
@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(16):
        if i % 2 == 0:
            if i < 8:
                A[i] = 1
        elif i == 3 or not i < 12:
            A[i] = 2
        else:
            A[i] = T.min(i, 5)
""",
}

# Apache TVM 0.27: from_source(CORPUS[name]).script()
ORACLE_CORPUS = {
    "elementwise_handle": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    for i, j in T.grid(128, 128):
        B[i, j] = A[i, j] * T.float32(2.0)""",
    "loops": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    for i in T.parallel(16):
        A[i] = T.float32(0.0)
    for i in T.vectorized(4):
        A[i] = T.Cast("float32", i)
    for i in T.unroll(4):
        A[i] = T.if_then_else(i > 1, A[i], T.float32(0.0))
    for i in T.thread_binding(16, thread="threadIdx.x"):
        A[i] = A[i] + T.float32(1.0)
    for i in T.serial(16, annotations={"pragma_unroll_explicit": 1}):
        A[i] = T.exp(A[i])
    for i in range(2, 10):
        A[i] = T.max(A[i], T.min(A[i - 1], T.float32(3.0)))
    for i in range(n):
        A[i % 16] = A[i // 2 % 16]""",
    "control": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "int32"), n: T.int32):
    x: T.int32 = n * 2
    if x > 4 and n < 10:
        A[0] = x
    else:
        A[1] = x % 3
    while A[0] < 100:
        A[0] = A[0] * 2
    assert n > 0, ("RuntimeError", ["n must be positive"])
    T.call_extern("int32", "foo", x, A[0])
    with T.attr({"pragma_key": 1}):
        A[2] = T.Div(x, 4)
    B = T.alloc_local((4,), "int32")
    B[0] = T.Select(n > 1, 1, 2)
    C = T.alloc_buffer((8, 8), "float16")
    C[0, 0] = T.float16(1.0)""",
    "blocks": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128,), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] + T.float32(1.0)
    for i, k in T.grid(128, 128):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(B[vi, vk])
            T.writes(C[vi])
            T.sblock_attr({"meta": 1})
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + B[vi, vk]""",
    "split": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    for i_0, j, i_1 in T.grid(4, 128, 32):
        with T.sblock("B"):
            vi = T.axis.spatial(128, i_0 * 32 + i_1)
            vj = T.axis.spatial(128, j)
            T.where(i_0 * 32 + i_1 < 128)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj]""",
    "match_region": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32")):
    # with T.sblock("root"):
    for i in range(4):
        with T.sblock("blk"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi * 4:vi * 4 + 4, 0:16])
            T.writes(A[vi * 4:vi * 4 + 4, 0:16])
            tmp = T.sblock_alloc_buffer((4,))
            sub = T.match_buffer(A[vi * 4:vi * 4 + 4, 0:16], (4, 16))
            for k in range(4):
                tmp[k] = sub[k, 0]
            for k in range(4):
                sub[k, 1] = tmp[k]""",
    "symbolic": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer(("n", 4), "float32"), B: T.Buffer((n, 4), "float32")):
    n = T.int32()
    for i, j in T.grid(n, 4):
        B[i, j] = A[i, j] + T.float32(1.0)""",
    "int64": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((T.int64(8),), "int64"), B: T.Buffer((T.int64(8),), "bool")):
    for i in range(T.int64(8)):
        A[i] = T.int64(3) + A[i]
        B[i] = T.bool(True)""",
    "binds": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "float32"), n: T.int32):
    x: T.let[T.int32] = n + 1
    y: T.let[T.int32] = x * 2
    z: T.let[T.float32] = T.float32(0.5)
    A[0] = T.Cast("float32", y) + z
    w: T.let[T.int64] = T.Cast("int64", x)
    A[1] = T.Cast("float32", w)""",
    "buffers": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((4, 4), "int8")):
    L = T.alloc_local((4,))
    S = T.alloc_shared((16,), "int32")
    V = A.view(4, 4)
    L[0] = V[1, 2]
    S[3] = T.Cast("int32", B[0, 1])
    for i in range(4):
        A[i] = L[0] + T.Cast("float32", S[i])""",
    "axes": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    # with T.sblock("root"):
    for i in range(8):
        with T.sblock("scan"):
            vi = T.axis.scan(8, i)
            T.reads(A[0:vi + 1])
            T.writes(B[vi])
            B[vi] = A[vi]
    for i in range(8):
        with T.sblock("opaque"):
            vi = T.axis.opaque(8, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = B[vi] + A[vi]
    for i in range(2, 6):
        with T.sblock("offset"):
            vi = T.axis.spatial((2, 6), i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(3.0)""",
    "block_alloc": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    for i in T.thread_binding(16, thread="blockIdx.x"):
        with T.sblock("row"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi, 0:16])
            T.writes(B[vi])
            acc = T.sblock_alloc_buffer((1,), scope="local")
            acc[0] = T.float32(0.0)
            for k in range(16):
                acc[0] = acc[0] + A[vi, k]
            B[vi] = acc[0]""",
    "nested_if": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def main(A: T.Buffer((16,), "int32")):
    for i in range(16):
        if i % 2 == 0:
            if i < 8:
                A[i] = 1
        else:
            if i == 3 or not i < 12:
                A[i] = 2
            else:
                A[i] = T.min(i, 5)""",
}

# Apache TVM 0.27: te.create_prim_func(...).script() for the programs of _te_programs
ORACLE_TE = {
    "matmul": """\
# from tvm.script import tirx as T
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
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]""",
    "two_stage": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), E: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    D = T.sblock_alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.sblock("D"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(A[v_i, v_j])
            T.writes(D[v_i, v_j])
            D[v_i, v_j] = A[v_i, v_j] + T.float32(1.0)
    for i, j in T.grid(128, 128):
        with T.sblock("E"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(D[v_i, v_j])
            T.writes(E[v_i, v_j])
            E[v_i, v_j] = D[v_i, v_j] * T.float32(2.0)""",
    "max_reduce": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(X: T.Buffer((16, 32), "float32"), M: T.Buffer((16,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, r in T.grid(16, 32):
        with T.sblock("M"):
            v_i, v_r = T.axis.remap("SR", [i, r])
            T.reads(X[v_i, v_r])
            T.writes(M[v_i])
            with T.init():
                M[v_i] = T.float32(-340282346638528859811704183484516925440.0)
            M[v_i] = T.max(M[v_i], X[v_i, v_r])""",
    "sum_reduce": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(X: T.Buffer((16, 32), "float32"), S: T.Buffer((16,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, r in T.grid(16, 32):
        with T.sblock("S"):
            v_i, v_r = T.axis.remap("SR", [i, r])
            T.reads(X[v_i, v_r])
            T.writes(S[v_i])
            with T.init():
                S[v_i] = T.float32(0.0)
            S[v_i] = S[v_i] + X[v_i, v_r]""",
    "symbolic_exp": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(X: T.Buffer(("n", 4), "float32"), Y: T.Buffer((n, 4), "float32")):
    n = T.int32()
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(n, 4):
        with T.sblock("Y"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(X[v_i, v_j])
            T.writes(Y[v_i, v_j])
            Y[v_i, v_j] = T.exp(X[v_i, v_j])""",
    "select": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(P: T.Buffer((8, 8), "int32"), Q: T.Buffer((8, 8), "int32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(8, 8):
        with T.sblock("Q"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(P[T.min(v_i, v_j):T.min(v_i, v_j) + (T.max(v_i, v_j) + 1 - T.min(v_i, v_j)), T.min(v_j, v_i):T.min(v_j, v_i) + (T.max(v_j, v_i) + 1 - T.min(v_j, v_i))])
            T.writes(Q[v_i, v_j])
            Q[v_i, v_j] = T.if_then_else(v_j < v_i, P[v_i, v_j], P[v_j, v_i])""",
    "matmul_split": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i_0, j, i_1, k in T.grid(4, 128, 32, 128):
        with T.sblock("C"):
            v_i = T.axis.spatial(128, i_0 * 32 + i_1)
            v_j, v_k = T.axis.remap("SR", [j, k])
            T.reads(A[v_i, v_k], B[v_j, v_k])
            T.writes(C[v_i, v_j])
            with T.init():
                C[v_i, v_j] = T.float32(0.0)
            C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]""",
}


def _roundtrip(func):
    """Print, parse back, compare; print again and compare the text."""
    text = func.script()
    parsed = from_source(text)
    tvm.ir.assert_structural_equal(func, parsed)
    assert parsed.script() == text
    return parsed


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_roundtrip(name):
    _roundtrip(from_source(CORPUS[name]))


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_oracle_text_parses_to_the_same_structure(name):
    tvm.ir.assert_structural_equal(from_source(ORACLE_CORPUS[name]), from_source(CORPUS[name]))


def _te_programs():
    out = {}
    A = te.placeholder((128, 128), name="A")
    B = te.placeholder((128, 128), name="B")
    k = te.reduce_axis((0, 128), name="k")
    C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    out["matmul"] = te.create_prim_func([A, B, C])
    D = te.compute((128, 128), lambda i, j: A[i, j] + 1.0, name="D")
    E = te.compute((128, 128), lambda i, j: D[i, j] * 2.0, name="E")
    out["two_stage"] = te.create_prim_func([A, E])
    X = te.placeholder((16, 32), name="X")
    r = te.reduce_axis((0, 32), name="r")
    out["max_reduce"] = te.create_prim_func(
        [X, te.compute((16,), lambda i: te.max(X[i, r], axis=r), name="M")]
    )
    r2 = te.reduce_axis((0, 32), name="r")
    out["sum_reduce"] = te.create_prim_func(
        [X, te.compute((16,), lambda i: te.sum(X[i, r2], axis=r2), name="S")]
    )
    n = te.var("n")
    Xn = te.placeholder((n, 4), name="X")
    out["symbolic_exp"] = te.create_prim_func(
        [Xn, te.compute((n, 4), lambda i, j: te.exp(Xn[i, j]), name="Y")]
    )
    P = te.placeholder((8, 8), name="P", dtype="int32")
    Q = te.compute((8, 8), lambda i, j: tirx.if_then_else(i > j, P[i, j], P[j, i]), name="Q")
    out["select"] = te.create_prim_func([P, Q])
    return out


def _split_matmul(func):
    sch = tvm.s_tir.Schedule(func)
    i, j, _ = sch.get_loops(sch.get_sblock("C"))
    io, ii = sch.split(i, [None, 32])
    sch.reorder(io, j, ii)
    return sch.mod["main"]


@pytest.fixture(scope="module")
def te_programs():
    programs = _te_programs()
    programs["matmul_split"] = _split_matmul(programs["matmul"])
    return programs


@pytest.mark.parametrize("name", sorted(ORACLE_TE))
def test_te_roundtrip(te_programs, name):
    parsed = _roundtrip(te_programs[name])
    assert parsed.attrs["s_tir"] is True or parsed.attrs["s_tir"] == 1


@pytest.mark.parametrize("name", sorted(set(ORACLE_TE) - {"select"}))
def test_te_oracle_text_parses_to_the_same_structure(te_programs, name):
    # ("select" is left out: te keeps ``i > j`` where TVM prints ``v_j < v_i``.)
    tvm.ir.assert_structural_equal(from_source(ORACLE_TE[name]), te_programs[name])


def test_scheduled_nest_matches_the_observed_format(te_programs):
    text = te_programs["matmul_split"].script()
    assert "for i_0, j, i_1, k in T.grid(4, 128, 32, 128):" in text
    assert "v_i = T.axis.spatial(128, i_0 * 32 + i_1)" in text
    assert 'v_j, v_k = T.axis.remap("SR", [j, k])' in text


MODULE = """
@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), "float32"))
        z = R.call_tir(cls.double, (y,), out_ty=R.Tensor((4,), "float32"))
        return z
"""

# Apache TVM 0.27: from_source(MODULE).script()
ORACLE_MODULE = """\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        # with T.sblock("root"):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), dtype="float32"))
        z = R.call_tir(cls.double, (y,), out_ty=R.Tensor((4,), dtype="float32"))
        return z"""


def test_module_with_prim_funcs_and_relax():
    mod = from_source(MODULE)
    # Our printer writes the decorator's keywords as ``(s_tir=True, private=True)``; TVM puts
    # ``private`` first. Everything else is the same text.
    text = mod.script().replace("prim_func(s_tir=True, private=True)",
                                "prim_func(private=True, s_tir=True)")
    assert text == ORACLE_MODULE
    assert "global_symbol" not in mod["double"].attrs
    assert mod["add_one"].attrs["global_symbol"] == "add_one"
    _roundtrip(mod)
    tvm.ir.assert_structural_equal(from_source(ORACLE_MODULE), mod)

# Apache TVM 0.27: VectorizeLoop of the program below, then .script() (a stride-1 store ramp
# prints as a slice).
ORACLE_VECTORIZED = """\
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B[i * 4:i * 4 + 4] = A[T.Ramp(i * 4, 1, 4)] * T.Broadcast(T.float32(2.0), 4)"""


def test_vectorized_code_roundtrip_and_oracle_text():
    func = from_source(
        """
@T.prim_func
def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(4):
        for j in T.vectorized(4):
            B[i * 4 + j] = A[i * 4 + j] * T.float32(2.0)
"""
    )
    mod = tvm.tirx.transform.VectorizeLoop()(tvm.IRModule({"main": func}))
    _roundtrip(mod)
    tvm.ir.assert_structural_equal(from_source(ORACLE_VECTORIZED), mod)


# Apache TVM 0.27: te.create_prim_func of an int64-shaped elementwise compute, .script()
ORACLE_TE_INT64 = """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((T.int64(8), T.int64(4)), "float32"), B: T.Buffer((T.int64(8), T.int64(4)), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(T.int64(8), T.int64(4)):
        with T.sblock("B"):
            v_i = T.axis.spatial(T.int64(8), i)
            v_j = T.axis.spatial(T.int64(4), j)
            T.reads(A[v_i, v_j])
            T.writes(B[v_i, v_j])
            B[v_i, v_j] = A[v_i, v_j] * T.float32(2.0)"""


def test_int64_shapes_roundtrip_and_oracle_text():
    A = te.placeholder((tirx.IntImm("int64", 8), tirx.IntImm("int64", 4)), name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j] * 2.0, name="B")
    func = te.create_prim_func([A, B])
    _roundtrip(func)
    parsed = from_source(ORACLE_TE_INT64)
    # ``T.axis.spatial(T.int64(8), i)``: an int64 domain gives an int64 block variable.
    block = parsed.body.block.body.body.body.block
    assert [iv.var.dtype for iv in block.iter_vars] == ["int64", "int64"]
    tvm.ir.assert_structural_equal(parsed, func)


SYMBOLIC_MODULE = """
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def exp(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(4)))
        B = T.match_buffer(b, (n, T.int64(4)))
        for i, j in T.grid(n, T.int64(4)):
            B[i, j] = T.exp(A[i, j])

    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((n, 4), "float32"))
        return y
"""

# Apache TVM 0.27: from_source(SYMBOLIC_MODULE).script(). The shape variable is a module-level
# TypeVar, used by the PrimFunc's signature without a declaration in its body.
ORACLE_SYMBOLIC_MODULE = """\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True)
    def exp(A: T.Buffer((n, T.int64(4)), "float32"), B: T.Buffer((n, T.int64(4)), "float32")):
        for i, j in T.grid(n, T.int64(4)):
            B[i, j] = T.exp(A[i, j])

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((n, 4), dtype="float32"))
        return y"""


def test_symbolic_module_roundtrip_and_oracle_text():
    mod = from_source(SYMBOLIC_MODULE)
    _roundtrip(mod)
    parsed = from_source(ORACLE_SYMBOLIC_MODULE)
    tvm.ir.assert_structural_equal(parsed, mod)
    n = parsed["exp"].buffer_map[parsed["exp"].params[0]].shape[0]
    assert isinstance(n, tirx.Var) and n.name == "n" and n.dtype == "int64"


def test_return_statement_roundtrip():
    from tvm.script import tirx as T

    @T.prim_func
    def func(A: T.Buffer((4,), "int32")):
        if A[0] >= 3:
            return 0
        A[0] = 1

    text = func.script()
    assert "        return 0\n" in text
    tvm.ir.assert_structural_equal(from_source(text), func)
    (ret,) = [n for n in _stmts(func.body) if isinstance(n, tirx.Return)]
    assert int(ret.value) == 0


def test_return_without_value_is_a_diagnostic():
    with pytest.raises(tvm.error.DiagnosticError, match="needs a value"):
        from_source("from tvm.script import tirx as T\n"
                    "@T.prim_func\n"
                    "def f(A: T.Buffer((4,), 'int32')):\n"
                    "    return\n")


def test_let_expression_where_roundtrip():
    from tvm.script import tirx as T

    @T.prim_func
    def func(A: T.Buffer((16,), "int32")):
        q = T.int32()
        for i in range(4):
            A[T.Let(q * 2 + 1, where={q: i + 1})] = i

    text = func.script()
    assert "T.Let(" in text and "where={q: i + 1}" in text
    tvm.ir.assert_structural_equal(from_source(text), func)
    with pytest.raises(ValueError, match="exactly one"):
        T.Let(tirx.IntImm("int32", 1), where={})


def _stmts(stmt):
    found = []
    tvm.tirx.stmt_functor.post_order_visit(stmt, found.append)
    return found
