"""Buffer layouts as Apache TVM 0.27 reports them (``Buffer.ty.layout``), ``layout=None``,
``allocated_addr`` as an array, and a TMEM ``DeclBuffer``'s ``data``.

Formats checked against TVM 0.27: ``decl_buffer((4, 8))`` has the layout
``T.TileLayout(T.S[(4, 8):(8, 1)])``, ``layout=None`` has none, a scalar buffer has none.
"""

import pytest

import tvm
from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx.buffer import NO_LAYOUT
from tvm.tirx.layout import TCol, TileLayout, TLane


def _decls(func):
    found = []
    tirx.stmt_functor.post_order_visit(
        func.body, lambda n: found.append(n) if isinstance(n, tirx.DeclBuffer) else None)
    return {d.buffer.name: d for d in found}


def test_default_layout_is_row_major_tile_layout():
    buf = tirx.decl_buffer((4, 8), "float16")
    assert str(buf.ty.layout) == "T.TileLayout(T.S[(4, 8):(8, 1)])"
    assert buf.layout is None  # stored form: None is the default
    n = tirx.Var("n", "int32")
    assert str(tirx.decl_buffer((n, 8)).ty.layout) == "T.TileLayout(T.S[(n, 8):(8, 1)])"
    assert tirx.decl_buffer((), "float32").ty.layout is None  # a scalar has no layout


def test_layout_none_means_no_layout():
    buf = tirx.decl_buffer((4, 8), "float32", layout=None)
    assert buf.layout is NO_LAYOUT
    assert buf.ty.layout is None
    # "default" and an explicit row-major layout are the default
    assert tirx.decl_buffer((4, 8), layout="default").layout is None
    same = tirx.decl_buffer((4, 8), layout=TileLayout(T.S[(4, 8):(8, 1)]))
    assert same.layout is None


def test_explicit_layout_is_reported_as_given():
    lay = TileLayout(T.S[(4, 8):(1, 4)])
    buf = tirx.decl_buffer((4, 8), layout=lay)
    assert_structural_equal(buf.ty.layout, lay)
    assert_structural_equal(buf.ty.layout, buf.layout)


def test_script_buffers_report_default_and_none():
    @T.prim_func
    def func(A: T.Buffer((16, 16), "float32")):
        T.device_entry()
        B = T.alloc_shared((16, 16), layout=None)
        C = T.decl_buffer((16, 16), data=B.data, scope="shared")
        C[0, 0] = A[0, 0]

    decls = _decls(func)
    assert str(decls["C"].buffer.ty.layout) == "T.TileLayout(T.S[(16, 16):(16, 1)])"
    code = func.script()
    assert "B = T.alloc_shared((16, 16), layout=None)" in code
    assert tvm.script.from_source(code).script() == code


def test_allocated_addr_is_an_array_and_prints_bare():
    buf = tirx.decl_buffer((64, 128), "float32", scope="tmem", allocated_addr=64,
                           layout=TileLayout(T.S[(64, 128):(1 @ TLane, 1 @ TCol)]))
    assert isinstance(buf.allocated_addr, tuple) and int(buf.allocated_addr[0]) == 64
    assert tirx.decl_buffer((4,)).allocated_addr is None
    assert [int(a) for a in tirx.decl_buffer((4,), allocated_addr=[1, 2]).allocated_addr] == [1, 2]
    with pytest.raises(TypeError, match="allocated_addr"):
        tirx.decl_buffer((4,), allocated_addr="x")


def test_tmem_decl_buffer_data_is_reinterpret_of_address():
    @T.prim_func
    def func():
        T.device_entry()
        Q = T.decl_buffer((64, 128), "float32", scope="tmem", allocated_addr=256,
                          layout=T.TileLayout(T.S[(64, 128):(1 @ TLane, 1 @ TCol)]))
        Q_tail = Q.sub[:, 32:64]
        T.evaluate(Q_tail[0, 0])

    decls = _decls(func)
    data = decls["Q"].data
    assert data.op.name == "tirx.reinterpret" and int(data.args[0]) == 256
    # the view moved the column address: 256 + 32 fp32 columns
    assert int(decls["Q_tail"].buffer.allocated_addr[0]) == 288
    code = func.script()
    assert "allocated_addr=256)" in code and "data=" not in code
    again = tvm.script.from_source(code)
    assert again.script() == code
    assert_structural_equal(func, again)
