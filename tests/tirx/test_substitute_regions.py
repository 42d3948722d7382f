"""``substitute`` on the non-expression nodes statements hold: regions, match buffers, buffers,
iteration variables and lists of them (a BufferRegion used to come back unchanged)."""

from tvm import arith, ir, tirx
from tvm.ffi.structural import structural_equal
from tvm.tirx.stmt_functor import post_order_visit, substitute


def _region(x):
    buf = tirx.decl_buffer((x, 8), "float32", name="A")
    ranges = [ir.Range.from_min_extent(x - 1, 1), ir.Range.from_min_extent(0, 8)]
    return buf, tirx.BufferRegion(buf, ranges)


def test_buffer_region_ranges_and_buffer_shape():
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    buf, region = _region(x)
    new = substitute(region, {x: y})
    assert isinstance(new, tirx.BufferRegion)
    assert structural_equal(new.region[0].min, y - 1)
    assert new.region[0].extent.value == 1
    assert new.buffer.shape[0] is y and new.buffer.data is buf.data
    assert str(new) == "A[y - 1, 0:8]"
    assert substitute(region, {tirx.Var("z", "int32"): y}) is region  # unchanged: same object


def test_match_buffer_region_source_and_buffer():
    x = tirx.Var("x", "int32")
    _buf, region = _region(x)
    sub = tirx.decl_buffer((1, 8), "float32", name="S")
    match = tirx.MatchBufferRegion(sub, region)
    new = substitute(match, {x: 5})
    assert isinstance(new, tirx.MatchBufferRegion)
    assert new.buffer is sub
    assert arith.Analyzer().simplify(new.source.region[0].min).value == 4  # 5 - 1
    assert new.source.buffer.shape[0].value == 5
    assert substitute(match, {}) is match


def test_buffer_iter_var_and_lists():
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    buf, region = _region(x)
    assert substitute(buf, {x: y}).shape[0] is y
    iv = tirx.IterVar(ir.Range.from_min_extent(0, x), tirx.Var("i", "int32"), 0)
    new_iv = substitute(iv, {x: y})
    assert new_iv.dom.extent is y and new_iv.var is iv.var  # the variable is a definition
    items = substitute([x + 1, region], {x: y})
    assert isinstance(items, list) and structural_equal(items[0], y + 1)
    assert str(items[1]) == "A[y - 1, 0:8]"
    same = (x + 1,)
    assert substitute(same, {}) is same
    assert substitute((x + 1, x), {x: 3})[1].value == 3


def test_regions_inside_a_block_and_visitors_see_regions():
    x = tirx.Var("x", "int32")
    _buf, region = _region(x)
    body = tirx.Evaluate(0)
    block = tirx.SBlock([], [region], [region], "b", body)
    new = substitute(block, {x: 3})
    simplify = arith.Analyzer().simplify
    assert simplify(new.reads[0].region[0].min).value == 2
    assert simplify(new.writes[0].region[0].min).value == 2
    seen = []
    post_order_visit(region, seen.append)
    assert any(node is x for node in seen)
