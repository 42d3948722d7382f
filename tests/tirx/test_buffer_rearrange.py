"""``Buffer.rearrange``: einops patterns as view / permute / view of the same memory.

The layouts were checked against Apache TVM 0.27 (``(o i) t -> o t i`` of an (8, 4) buffer
with strides (4, 1) is ``T.S[(2, 4, 4):(16, 1, 4)]``).
"""

import pytest

import tvm
from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx.layout import TileLayout


def _buffers(func):
    found = {}

    def visit(node):
        if isinstance(node, (tirx.DeclBuffer, tirx.AllocBuffer)):
            found[node.buffer.name] = node.buffer

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return found


def test_split_permute_layout_and_addresses():
    src = tirx.decl_buffer((8, 4), "float16", layout=TileLayout(T.S[(8, 4):(4, 1)]))
    out = src.rearrange("(outer inner) tail -> outer tail inner", outer=2)
    assert [int(s) for s in out.shape] == [2, 4, 4]
    assert str(out.layout) == "T.TileLayout(T.S[(2, 4, 4):(16, 1, 4)])"
    # element (o, t, i) of the view is element (4 o + i, t) of the source: same address
    for o, t, i in [(0, 0, 0), (1, 2, 3), (1, 3, 1)]:
        got = out.layout.apply(o, t, i, shape=[2, 4, 4])["m"]
        want = src.ty.layout.apply(4 * o + i, t, shape=[8, 4])["m"]
        assert int(got) == int(want)


def test_merge_and_plain_transpose():
    src = tirx.decl_buffer((8, 4), "float16")
    merged = src.rearrange("a (b c) -> (a b) c", c=2)
    assert [int(s) for s in merged.shape] == [16, 2]
    assert merged.ty.layout.is_trivial()
    transposed = src.rearrange("a b -> b a")
    assert str(transposed.layout) == "T.TileLayout(T.S[(4, 8):(1, 4)])"
    assert src.rearrange("a b -> a b") is src  # nothing to do


def test_axis_names_may_be_keywords_of_the_method():
    src = tirx.decl_buffer((8, 4), "float16", layout=TileLayout(T.S[(8, 4):(4, 1)]))
    want = src.rearrange("(outer inner) tail -> outer tail inner", outer=2)
    for got in (src.rearrange("(self inner) tail -> self tail inner", self=2),
                src.rearrange("(pattern inner) tail -> pattern tail inner", pattern=2),
                src.rearrange(pattern="(outer inner) tail -> outer tail inner", outer=2)):
        assert_structural_equal(got.shape, want.shape)
        assert_structural_equal(got.layout, want.layout)


def test_integer_axes():
    src = tirx.decl_buffer((4, 6), "float32")
    out = src.rearrange("b (2 r) -> 2 b r")
    assert [int(s) for s in out.shape] == [2, 4, 3]


def test_in_a_script_round_trips():
    @T.prim_func
    def func() -> None:
        T.device_entry()
        A = T.alloc_buffer((8, 4), "float16", scope="local",
                           layout=T.TileLayout(T.S[(8, 4):(4, 1)]))
        B = A.rearrange("(o i) t -> (o t) i", o=2)
        B[0, 0] = T.float16(0)

    bufs = _buffers(func)
    assert [int(s) for s in bufs["B"].shape] == [8, 4]
    code = func.script()
    again = tvm.script.from_source(code)
    assert again.script() == code
    assert_structural_equal(func, again)


def test_bad_patterns_name_the_problem():
    src = tirx.decl_buffer((8, 4), "float16")
    with pytest.raises(ValueError, match="one 'lhs -> rhs' string"):
        src.rearrange("a b")
    with pytest.raises(ValueError, match="names 3 dims, the buffer has 2"):
        src.rearrange("a b c -> a b c")
    with pytest.raises(ValueError, match="same axes"):
        src.rearrange("a b -> a c")
    with pytest.raises(ValueError, match="2 axis sizes unknown"):
        src.rearrange("(a b) c -> a b c")
    with pytest.raises(ValueError, match="not a multiple of 3"):
        src.rearrange("(a b) c -> a b c", a=3)
    with pytest.raises(ValueError, match="multiply to 6"):
        src.rearrange("(a b) c -> a b c", a=2, b=3)
    with pytest.raises(ValueError, match="not in"):
        src.rearrange("a b -> b a", z=2)
    with pytest.raises(ValueError, match="unbalanced"):
        src.rearrange("(a b c -> a b c")
    with pytest.raises(TypeError, match="missing required argument: 'pattern'"):
        src.rearrange(a=2)
