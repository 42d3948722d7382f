"""Round trips of scheduled TIR loop nests, checked against Apache TVM 0.27's printing.

Each schedule is applied to a ``te.create_prim_func`` program; the result must print exactly
as TVM 0.27 prints it (``ORACLE_SCHEDULED``, format facts recorded once), parse back to an
equal function, and parse from TVM's text to the same structure. The functions TVM printed
for the s_tir schedule tests (``tests/s_tir/schedule/tvm_outputs.txt``) must round-trip too.
"""

import pytest

import tvm
from tvm import te
from tvm.script import from_source


def _roundtrip(func):
    """Print, parse back, compare; print again and compare the text."""
    text = func.script()
    parsed = from_source(text)
    tvm.ir.assert_structural_equal(func, parsed)
    assert parsed.script() == text
    return parsed


@pytest.fixture(scope="module")
def te_programs():
    A = te.placeholder((128, 128), name="A")
    B = te.placeholder((128, 128), name="B")
    k = te.reduce_axis((0, 128), name="k")
    C = te.compute((128, 128), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    D = te.compute((128, 128), lambda i, j: A[i, j] + 1.0, name="D")
    E = te.compute((128, 128), lambda i, j: D[i, j] * 2.0, name="E")
    X = te.placeholder((16, 32), name="X")
    r = te.reduce_axis((0, 32), name="r")
    S = te.compute((16,), lambda i: te.sum(X[i, r], axis=r), name="S")
    return {
        "matmul": te.create_prim_func([A, B, C]),
        "two_stage": te.create_prim_func([A, E]),
        "sum_reduce": te.create_prim_func([X, S]),
    }

# --- scheduled loop nests ---------------------------------------------------------------------


def _sch(func):
    return tvm.s_tir.Schedule(func)


def _fuse_bind(p):
    sch = _sch(p["two_stage"])
    i, j = sch.get_loops(sch.get_sblock("E"))
    bx, tx = sch.split(sch.fuse(i, j), [None, 64])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.compute_inline(sch.get_sblock("D"))
    return sch.mod["main"]


def _cache(p):
    sch = _sch(p["matmul"])
    block = sch.get_sblock("C")
    sch.cache_read(block, 0, "shared")
    sch.cache_write(block, 0, "local")
    return sch.mod["main"]


def _decompose(p):
    sch = _sch(p["matmul"])
    block = sch.get_sblock("C")
    sch.decompose_reduction(block, sch.get_loops(block)[2])
    return sch.mod["main"]


def _compute_at(p):
    sch = _sch(p["two_stage"])
    i, _ = sch.get_loops(sch.get_sblock("E"))
    sch.compute_at(sch.get_sblock("D"), i)
    sch.vectorize(sch.get_loops(sch.get_sblock("E"))[-1])
    sch.parallel(i)
    return sch.mod["main"]


def _unroll_annotate(p):
    sch = _sch(p["sum_reduce"])
    i, r = sch.get_loops(sch.get_sblock("S"))
    _, ri = sch.split(r, [None, 4])
    sch.unroll(ri)
    sch.annotate(i, "pragma_auto_unroll_max_step", 16)
    return sch.mod["main"]


def _rfactor(p):
    sch = _sch(p["sum_reduce"])
    _, r = sch.get_loops(sch.get_sblock("S"))
    _, ri = sch.split(r, [None, 4])
    sch.rfactor(ri, 0)
    return sch.mod["main"]


SCHEDULES = {
    "fuse_bind": _fuse_bind,
    "cache": _cache,
    "decomp": _decompose,
    "compute_at": _compute_at,
    "unroll_annot": _unroll_annotate,
    "rfactor": _rfactor,
}

# Apache TVM 0.27: the same schedules applied to the same te programs, then .script()
ORACLE_SCHEDULED = {
    "fuse_bind": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), E: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i_j_fused_0 in T.thread_binding(256, thread="blockIdx.x"):
        for i_j_fused_1 in T.thread_binding(64, thread="threadIdx.x"):
            with T.sblock("E"):
                v_i = T.axis.spatial(128, (i_j_fused_0 * 64 + i_j_fused_1) // 128)
                v_j = T.axis.spatial(128, (i_j_fused_0 * 64 + i_j_fused_1) % 128)
                T.reads(A[v_i, v_j])
                T.writes(E[v_i, v_j])
                E[v_i, v_j] = (A[v_i, v_j] + T.float32(1.0)) * T.float32(2.0)""",
    "cache": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    A_shared = T.sblock_alloc_buffer((128, 128), scope="shared")
    C_local = T.sblock_alloc_buffer((128, 128), scope="local")
    for ax0, ax1 in T.grid(128, 128):
        with T.sblock("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v0, v1])
            T.writes(A_shared[v0, v1])
            A_shared[v0, v1] = A[v0, v1]
    for i, j, k in T.grid(128, 128, 128):
        with T.sblock("C"):
            v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
            T.reads(A_shared[v_i, v_k], B[v_j, v_k])
            T.writes(C_local[v_i, v_j])
            with T.init():
                C_local[v_i, v_j] = T.float32(0.0)
            C_local[v_i, v_j] = C_local[v_i, v_j] + A_shared[v_i, v_k] * B[v_j, v_k]
    for ax0, ax1 in T.grid(128, 128):
        with T.sblock("C_local"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(C_local[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_local[v0, v1]""",
    "decomp": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i, j in T.grid(128, 128):
        with T.sblock("C_init"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads()
            T.writes(C[v_i, v_j])
            C[v_i, v_j] = T.float32(0.0)
        for k in range(128):
            with T.sblock("C_update"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(C[v_i, v_j], A[v_i, v_k], B[v_j, v_k])
                T.writes(C[v_i, v_j])
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]""",
    "compute_at": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(A: T.Buffer((128, 128), "float32"), E: T.Buffer((128, 128), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    D = T.sblock_alloc_buffer((128, 128))
    for i in T.parallel(128):
        for ax0 in range(128):
            with T.sblock("D"):
                v_i, v_j = T.axis.remap("SS", [i, ax0])
                T.reads(A[v_i, v_j])
                T.writes(D[v_i, v_j])
                D[v_i, v_j] = A[v_i, v_j] + T.float32(1.0)
        for j in T.vectorized(128):
            with T.sblock("E"):
                v_i, v_j = T.axis.remap("SS", [i, j])
                T.reads(D[v_i, v_j])
                T.writes(E[v_i, v_j])
                E[v_i, v_j] = D[v_i, v_j] * T.float32(2.0)""",
    "unroll_annot": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(X: T.Buffer((16, 32), "float32"), S: T.Buffer((16,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for i in T.serial(16, annotations={"pragma_auto_unroll_max_step": 16}):
        for r_0 in range(8):
            for r_1 in T.unroll(4):
                with T.sblock("S"):
                    v_i = T.axis.spatial(16, i)
                    v_r = T.axis.reduce(32, r_0 * 4 + r_1)
                    T.reads(X[v_i, v_r])
                    T.writes(S[v_i])
                    with T.init():
                        S[v_i] = T.float32(0.0)
                    S[v_i] = S[v_i] + X[v_i, v_r]""",
    "rfactor": """\
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(s_tir=True)
def main(X: T.Buffer((16, 32), "float32"), S: T.Buffer((16,), "float32")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    S_rf = T.sblock_alloc_buffer((4, 16))
    for i, r_0, r_1 in T.grid(16, 8, 4):
        with T.sblock("S_rf"):
            vr_1, v_i, vr_0 = T.axis.remap("SSR", [r_1, i, r_0])
            T.reads(X[v_i, vr_0 * 4 + vr_1])
            T.writes(S_rf[vr_1, v_i])
            with T.init():
                S_rf[vr_1, v_i] = T.float32(0.0)
            S_rf[vr_1, v_i] = S_rf[vr_1, v_i] + X[v_i, vr_0 * 4 + vr_1]
    for i, r_1 in T.grid(16, 4):
        with T.sblock("S"):
            vr_1, v_i = T.axis.remap("RS", [r_1, i])
            T.reads(S_rf[vr_1, v_i])
            T.writes(S[v_i])
            with T.init():
                S[v_i] = T.float32(0.0)
            S[v_i] = S[v_i] + S_rf[vr_1, v_i]""",
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduled_roundtrip_and_oracle_text(te_programs, name):
    func = SCHEDULES[name](te_programs)
    _roundtrip(func)
    assert func.script() == ORACLE_SCHEDULED[name]
    tvm.ir.assert_structural_equal(from_source(ORACLE_SCHEDULED[name]), func)


def _tvm_schedule_outputs():
    """The scheduled functions Apache TVM 0.27 printed for the schedule tests (their file)."""
    import os
    import re

    path = os.path.join(os.path.dirname(__file__), "..", "s_tir", "schedule", "tvm_outputs.txt")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        sections = re.split(r"^### (\S+)\n", f.read(), flags=re.MULTILINE)[1:]
    return {name: body.split("\n---\n")[0] for name, body in zip(sections[::2], sections[1::2])}


_SCHEDULE_OUTPUTS = _tvm_schedule_outputs()


@pytest.mark.parametrize("name", sorted(_SCHEDULE_OUTPUTS))
def test_tvm_printed_schedule_outputs(name):
    text = _SCHEDULE_OUTPUTS[name]
    func = _roundtrip(from_source(text))
    # Our printer writes the same function text (after the import header).
    assert func.script().split("\n\n", 1)[1].strip() == text.strip()
