# ruff: noqa: F841
"""Buffer views (``view``, ``local``, ``permute``, ``sub``, ``tile``, ``chunk``) and the
explicit ``layout=None``: printed as Apache TVM 0.27 prints them (checked against 0.27), round
trips, the addresses the views keep, and the errors."""

import pytest

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx import stmt_functor
from tvm.tirx.buffer import NO_LAYOUT
from tvm.tirx.layout import laneid

L_LANE = T.TileLayout(T.S[32:1 @ laneid])


def _views():
    @T.prim_func
    def f() -> None:
        T.device_entry()
        A = T.alloc_buffer([2], dtype="float16", scope="local")
        A_layout = T.TileLayout(T.S[(1, 2):(2, 1)])
        B = A.view(8, 8, layout=A_layout.tile(L_LANE, (8, 4), (1, 2)))
        B_local = B.local()
        B2 = B.local(2)
        C = T.alloc_buffer([8, 4], dtype="float16", scope="local",
                           layout=T.TileLayout(T.S[(8, 4):(4, 1)]))
        D = C.permute(1, 0)
        E = C.sub[2:4, :]
        F = C.sub[1]
        G = T.alloc_buffer([64, 32], dtype="float16", scope="shared")
        H = G.tile(0, (4, 16))[1, :]
        J = G.view(32, 64)
        K = G.view("float32")
        N = T.alloc_buffer([4], dtype="float32", scope="local", layout=None)
        B_local[0] = B2[0]
        D[0, 0] = T.float16(0)
        E[0, 0] = T.float16(0)
        F[0] = T.float16(0)
        H[0, 0] = T.float16(0)
        J[0, 0] = T.float16(0)
        K[0, 0] = T.float32(0)
        N[0] = T.float32(0)

    return f


# Printed by Apache TVM 0.27 for the same kernel.
EXPECTED = '''# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def f():
    T.attr({"tirx.device_entry": T.bool(True)})
    A = T.alloc_local((2,), "float16")
    B = A.view(8, 8, layout=T.TileLayout(T.S[(32, 2):(1 @ Axis.laneid, 1)]))
    B_local = B.local()
    B2 = B.local()
    C = T.alloc_local((8, 4), "float16")
    D = C.permute(1, 0)
    E = T.decl_buffer((2, 4), "float16", data=C.data, elem_offset=8, scope="local")
    F = T.decl_buffer((4,), "float16", data=C.data, elem_offset=4, scope="local")
    G = T.alloc_shared((64, 32), "float16")
    buffer = G.view(4, 16, 32)
    H = T.decl_buffer((16, 32), "float16", data=buffer.data, elem_offset=512, scope="shared")
    J = G.view(32, 64)
    K = G.view("float32")
    N = T.alloc_local((4,), layout=None)
    B_local[0] = B2[0]
    D[0, 0] = T.float16(0.0)
    E[0, 0] = T.float16(0.0)
    F[0] = T.float16(0.0)
    H[0, 0] = T.float16(0.0)
    J[0, 0] = T.float16(0.0)
    K[0, 0] = T.float32(0.0)
    N[0] = T.float32(0.0)'''


def _buffers(func):
    out = {}

    def visit(node):
        if isinstance(node, (tvm.tirx.DeclBuffer, tvm.tirx.AllocBuffer)):
            out[node.buffer.name] = node.buffer

    stmt_functor.post_order_visit(func.body, visit)
    return out


def test_views_print_as_0_27_and_round_trip():
    func = _views()
    code = func.script()
    assert code == EXPECTED
    again = tvm.script.from_source(code)
    assert again.script() == code
    assert_structural_equal(func, again)


def test_views_share_memory_and_keep_addresses():
    bufs = _buffers(_views())
    for name in ("B", "B_local", "D", "E", "F", "J", "K"):
        assert bufs[name].data.same_as(bufs["A" if name[0] == "B" else name[0]].data) or (
            bufs[name].data.same_as(bufs["C"].data) or bufs[name].data.same_as(bufs["G"].data))
    assert [int(s) for s in bufs["B_local"].shape] == [2]
    # C.sub[1]: row 1 of a (8, 4) row-major buffer starts at element 4.
    assert int(bufs["F"].elem_offset) == 4
    # D = C.permute(1, 0): D[j, i] is C[i, j] (same m address).
    layout = bufs["D"].layout
    assert int(layout.apply(3, 5, shape=[4, 8])["m"]) == 5 * 4 + 3
    # K = G.view("float32"): the last dim halves.
    assert [int(s) for s in bufs["K"].shape] == [64, 16]
    assert bufs["N"].layout is NO_LAYOUT


def test_local_of_laneid_layout_with_explicit_storage_layout():
    @T.prim_func
    def func() -> None:
        T.device_entry()
        A = T.alloc_buffer([6], dtype="float32", scope="local")
        B = A.view(32, 2, layout=T.TileLayout(T.S[(32, 2):(1 @ laneid, 2)] + 3))
        B_flat = B.local()
        B_2d = B.local(2, 3)
        B_storage = B.local(2, layout=B.layout.storage())
        B_flat[5] = B_2d[1, 2] + B_storage[1]

    bufs = _buffers(func)
    assert [int(s) for s in bufs["B_flat"].shape] == [6]
    assert [int(s) for s in bufs["B_2d"].shape] == [2, 3]
    code = func.script()
    assert "B_flat = B.local()" in code
    assert "B_2d = B.local(2, 3)" in code
    assert "B_storage = B.local(layout=" in code
    assert tvm.script.from_source(code).script() == code


def test_tile_and_chunk():
    @T.prim_func
    def func() -> None:
        T.device_entry()
        G = T.alloc_buffer([64, 32], dtype="float16", scope="shared")
        H = G.tile((0, (4, 16)), (1, (2, 16)))[3, :, 1, :]
        H[0, 0] = T.float16(0)
        T.evaluate(0)

    h = _buffers(func)["H"]
    assert [int(s) for s in h.shape] == [16, 16]
    assert int(h.elem_offset) == 3 * 16 * 32 + 16
    g = _buffers(func)["G"]
    region = g.chunk((4, None))[2]
    assert [(int(r.min), int(r.extent)) for r in region.region] == [(32, 16), (0, 32)]
    # A symbolic chunk index: the chunk is [c * k, c * k + k), the slice one writes by hand.
    c = tvm.tirx.Var("c", "int32")
    tvm.ir.assert_structural_equal(g.chunk((4, None))[c], g[c * 16:c * 16 + 16, :])
    with pytest.raises(ValueError, match="per-dim tuple"):
        g.chunk(4)


def test_view_errors():
    with pytest.raises(tvm.error.DiagnosticError, match="parent buffer has layout=None"):
        @T.prim_func
        def f1() -> None:
            T.device_entry()
            A = T.alloc_buffer((4,), dtype="float32", scope="local", layout=None)
            B = A.local(layout=T.TileLayout(T.S[4]))
            B[0] = T.float32(1)

    with pytest.raises(tvm.error.DiagnosticError, match="physical storage span 6 per thread"):
        @T.prim_func
        def f2() -> None:
            T.device_entry()
            A = T.alloc_buffer([6], dtype="float32", scope="local")
            B = A.view(32, 2, layout=T.TileLayout(T.S[(32, 2):(1 @ laneid, 2)] + 3))
            C = B.local(2)
            C[0] = T.float32(0)

    buf = tvm.tirx.decl_buffer((64, 64), "float16", scope="shared")
    with pytest.raises(ValueError, match="picks no factor"):
        buf.tile(1, (16, 4))[:, :]
    with pytest.raises(ValueError, match="exceeds dim 0 extent 64"):
        buf.sub[60:68]
    with pytest.raises(ValueError, match="out of range"):
        buf.sub[64]
    with pytest.raises(ValueError, match="not a permutation"):
        buf.permute(0, 0)
    with pytest.raises(ValueError, match="has 48 elements"):
        buf.view(6, 8)


def test_layout_none_alloc_local_keeps_alloc_form():
    @T.prim_func
    def func():
        T.device_entry()
        phase = T.alloc_local((1,), "int32", layout=None)
        phase[0] = T.int32(0)
        T.evaluate(phase[0])

    code = func.script()
    assert 'phase = T.alloc_local((1,), "int32", layout=None)' in code
    again = tvm.script.from_source(code)
    assert again.script() == code
    assert_structural_equal(func, again)


def test_verify_tirx_layouts_underlines_the_buffer():
    from tvm.tirx.analysis.verify_tirx import verify_tirx_layouts

    @T.prim_func
    def bad() -> None:
        T.device_entry()
        A = T.alloc_buffer([8, 4], "float32", scope="shared",
                           layout=T.TileLayout(T.S[(8, 8):(8, 1)]))
        A[0, 0] = T.float32(0)

    assert not verify_tirx_layouts(bad, assert_mode=False)
    with pytest.raises(ValueError, match="layout of buffer A has size 64, but the buffer has "
                                         "32 elements") as err:
        verify_tirx_layouts(bad)
    assert "^^^" in str(err.value)
    assert verify_tirx_layouts(_views())


def test_register_fragments():
    @T.prim_func
    def f() -> None:
        T.device_entry()
        wg = T.warpgroup_id([1])
        tid = T.thread_id_in_wg([128])
        R = T.wg_reg_tile(8, "float32")
        F = T.alloc_tcgen05_ldst_frag("32x32b", (128, 64), "float32")
        C = T.alloc_cast_frag(F, "float16")
        R[0, 0] = F[0, 0]
        C[0, 0] = T.float16(0)

    code = f.script()
    # These lines are Apache TVM 0.27's (which names the register tile ``R_1``).
    assert ('R_1 = T.alloc_local((128, 8), layout=T.TileLayout(T.S[(128, 8):'
            '(1 @ Axis.tid_in_wg, 1)]))') in code
    assert '''    buffer = T.alloc_local((64,))
    F = buffer.view(128, 64, layout=T.TileLayout(T.S[(128, 64):(1 @ Axis.tid_in_wg, 1)]))
    buffer_1 = T.alloc_local((64,), "float16")
    C = buffer_1.view(128, 64, layout=T.TileLayout(T.S[(128, 64):(1 @ Axis.tid_in_wg, 1)]))
''' in code
    again = tvm.script.from_source(code)
    assert again.script() == code
    assert_structural_equal(f, again)
    with pytest.raises(tvm.error.DiagnosticError, match="128 threads"):
        @T.prim_func
        def g() -> None:
            T.device_entry()
            F = T.alloc_tcgen05_ldst_frag("32x32b", (3, 5), "float32")
            F[0, 0] = T.float32(0)
