"""Layouts in TVMScript: ``layout=`` on buffers, ``T.S``/``T.R``/``T.TileLayout``/
``T.ComposeLayout``, printed as Apache TVM 0.27 prints them, and parsed back."""

import pytest

from tvm.ir import assert_structural_equal
from tvm.script import from_source
from tvm.script import tirx as T
from tvm.script.printer.tirx_layout_printer import layout_to_doc, print_layout
from tvm.tirx import decl_buffer
from tvm.tirx.layout import ComposeLayout, S, TileLayout, laneid, warpid
from tvm.tirx.stmt import AllocBuffer
from tvm.tirx.stmt_functor import post_order_visit

EXPECTED = """# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func
def f(A: T.Buffer((10, 11), "float32", layout=T.TileLayout(T.S[(10, 11):(1, 10)]))):
    B = T.alloc_shared((64, 64), "float16", layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])))
    C = T.alloc_local((32, 2), layout=T.TileLayout(T.S[(32, 2):(1 @ Axis.laneid, 1)]))
    D = T.alloc_shared((8,), "float16", layout=T.TileLayout(T.S[8:4 @ Axis.laneid] + (1 @ Axis.laneid + 64 + 2 @ Axis.warpid)))
    E = T.alloc_shared((8, 16), "float16")
    A[0, 0] = T.Cast("float32", B[0, 0] + D[0] + E[0, 0]) + C[0, 0]"""


def _func():
    @T.prim_func
    def f(A: T.Buffer((10, 11), "float32", layout=T.TileLayout(T.S[(10, 11):(1, 10)]))):
        B = T.alloc_buffer((64, 64), "float16", scope="shared",
                           layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(64, 64):(64, 1)])))
        C = T.alloc_buffer((32, 2), scope="local",
                           layout=T.TileLayout(T.S[(32, 2):(1 @ laneid, 1)]))
        D = T.alloc_buffer((8,), "float16", scope="shared",
                           layout=T.TileLayout(T.S[8 : 4 @ laneid] + 1 @ laneid + 2 @ warpid + 64))
        E = T.alloc_buffer((8, 16), "float16", scope="shared",
                           layout=T.TileLayout(T.S[(8, 16):(16, 1)]))
        A[0, 0] = T.Cast("float32", B[0, 0] + D[0] + E[0, 0]) + C[0, 0]

    return f


def test_buffer_layouts_print_as_tvm_0_27_and_round_trip():
    func = _func()
    code = func.script()
    assert code == EXPECTED
    parsed = from_source(code)
    assert parsed.script() == code
    assert_structural_equal(func, parsed)


def test_the_printed_axis_header_imports():
    namespace = {}
    exec("from tvm.tirx.layout import Axis", namespace)  # noqa: S102 - the printed header
    assert namespace["Axis"].laneid.name == "laneid"


def test_default_layouts_are_not_stored():
    func = _func()
    buffers = {}

    def visit(node):
        if isinstance(node, AllocBuffer):
            buffers[node.buffer.name] = node.buffer

    post_order_visit(func.body, visit)
    assert buffers["E"].layout is None
    assert isinstance(buffers["B"].layout, ComposeLayout)
    assert decl_buffer((4, 4), layout="default").layout is None
    assert decl_buffer((4, 4), layout=TileLayout(S[4, 4])).layout is None
    with pytest.raises(TypeError, match="buffer layout must be"):
        decl_buffer((4, 4), layout="row-major")


def test_layout_printer_entry_points():
    lay = TileLayout(S[8 : 4 @ laneid] + 2 @ warpid)
    assert print_layout(lay) == "T.TileLayout(T.S[8:4 @ Axis.laneid] + 2 @ Axis.warpid)"
    assert print_layout(lay) == str(lay)
    with pytest.raises(TypeError, match="TileLayout or ComposeLayout"):
        layout_to_doc(3)


def test_match_buffer_and_decl_buffer_layouts_round_trip():
    @T.prim_func
    def g(a: T.handle):
        A = T.match_buffer(a, (16, 8), "float16",
                           layout=T.TileLayout(T.S[(16, 8):(1, 16)]))
        B = T.decl_buffer((128,), "float16", data=A.data,
                          layout=T.TileLayout(T.S[(8, 16):(1, 8)]))
        A[0, 0] = B[0]

    code = g.script()
    assert 'A: T.Buffer((16, 8), "float16", layout=T.TileLayout(T.S[(16, 8):(1, 16)]))' in code
    assert "layout=T.TileLayout(T.S[(8, 16):(1, 8)])" in code
    parsed = from_source(code)
    assert parsed.script() == code
    assert_structural_equal(g, parsed)
