"""TIR statements: construction, validation, SeqStmt flattening, structural equality."""

import pytest

from tvm import tirx
from tvm.ffi.structural import structural_equal, structural_hash
from tvm.ir import Range


def _store_loop(n=4, var_name="i", buf=None):
    buf = buf or tirx.decl_buffer((n,), "float32", name="A")
    i = tirx.Var(var_name, "int32")
    return buf, tirx.For(i, 0, n, tirx.ForKind.SERIAL, tirx.BufferStore(buf, 1.0, [i]))


def test_for_fields_and_kinds():
    _, loop = _store_loop()
    assert loop.kind is tirx.ForKind.SERIAL
    assert loop.min.value == 0 and loop.extent.value == 4 and loop.extent.dtype == "int32"
    assert loop.thread_binding is None and loop.step is None and loop.annotations == {}
    assert [k.name for k in tirx.ForKind] == [
        "SERIAL", "PARALLEL", "VECTORIZED", "UNROLLED", "THREAD_BINDING"]
    par = loop.replace(kind=tirx.ForKind.PARALLEL)
    assert par.kind == 1 and par.body is loop.body


def test_for_loop_var_dtype_drives_bounds():
    i = tirx.Var("i", "int64")
    buf = tirx.decl_buffer((4,), "float32")
    loop = tirx.For(i, 0, 4, tirx.ForKind.UNROLLED, tirx.Evaluate(0))
    assert loop.min.dtype == "int64" and loop.extent.dtype == "int64"
    assert buf.shape[0].dtype == "int32"


def test_buffer_store_and_load():
    A = tirx.decl_buffer((2, 3), "float16", name="A")
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int32")
    load = A[i, j]
    assert isinstance(load, tirx.BufferLoad) and load.dtype == "float16"
    assert load.buffer is A and load.indices == (i, j)
    store = tirx.BufferStore(A, load + tirx.const(1.0, "float16"), [i, j])
    assert store.value.dtype == "float16" and store.predicate is None
    with pytest.raises(ValueError, match="expects 2 indices, got 1"):
        tirx.BufferStore(A, 1.0, [i])
    with pytest.raises(ValueError, match="expects 2 indices, got 3"):
        tirx.BufferLoad(A, [i, j, i])
    with pytest.raises(TypeError, match="dtype mismatch on BufferStore.*float16.*float32"):
        tirx.BufferStore(A, tirx.FloatImm("float32", 1.0), [i, j])
    with pytest.raises(TypeError, match="expects a Buffer"):
        tirx.BufferLoad("A", [i])


def test_seq_stmt_flatten_and_empty():
    ev = tirx.Evaluate(0)
    nested = tirx.SeqStmt([ev, tirx.SeqStmt([ev, ev])])
    assert len(nested) == 2  # construction keeps the nesting, as TVM does
    flat = tirx.SeqStmt.flatten(nested, None, [ev])
    assert isinstance(flat, tirx.SeqStmt) and len(flat) == 4
    assert tirx.stmt_seq(ev) is ev
    assert tirx.stmt_list(nested) == [ev, ev, ev]
    x = tirx.Var("x", "int32")
    assert isinstance(tirx.stmt_seq(x, ev).seq[0], tirx.Evaluate)
    with pytest.raises(ValueError, match="An empty SeqStmt is prohibited"):
        tirx.SeqStmt([])
    with pytest.raises(TypeError, match="element 1 must be a Stmt"):
        tirx.SeqStmt([ev, 3])


def test_bind_is_let_stmt_without_body():
    x = tirx.Var("x", "int32")
    bind = tirx.LetStmt(x, 3)
    assert tirx.LetStmt is tirx.Bind
    assert bind.var is x and bind.value.value == 3 and not hasattr(bind, "body")
    with pytest.raises(TypeError, match="tirx.Var"):
        tirx.Bind("x", 3)


def test_other_statements():
    x = tirx.Var("x", "int32")
    A = tirx.decl_buffer((4,), "int32", name="A")
    loop = tirx.While(x < 3, tirx.Break())
    assert loop.condition.dtype == "bool"
    branch = tirx.IfThenElse(x > 0, tirx.Continue())
    assert branch.else_case is None
    attr = tirx.AttrStmt(A.data, "pragma_unroll", 1, tirx.Evaluate(0))
    assert attr.attr_key == "pragma_unroll" and attr.value.value == 1
    alloc = tirx.AllocBuffer(A)
    decl = tirx.DeclBuffer(A)
    assert alloc.buffer is A and alloc.annotations == {} and decl.data is None
    check = tirx.AssertStmt("ValueError", x > 0, ["x must be ", "positive"])
    assert check.kind.value == "ValueError"
    assert [p.value for p in check.message_parts] == ["x must be ", "positive"]


def test_iter_var_kinds_and_arithmetic():
    iv = tirx.IterVar(Range.from_min_extent(tirx.IntImm("int32", 0), tirx.IntImm("int32", 8)), "k",
                      tirx.IterVar.CommReduce)
    assert (tirx.IterVar.DataPar, tirx.IterVar.ThreadIndex, tirx.IterVar.CommReduce,
            tirx.IterVar.Ordered, tirx.IterVar.Opaque) == (0, 1, 2, 3, 4)
    assert iv.var.name == "k" and iv.dtype == "int32"
    expr = iv + 1
    assert isinstance(expr, tirx.Add) and expr.a is iv.var
    iv2 = tirx.IterVar((2, 10), "t", tirx.IterVar.DataPar)
    assert iv2.dom.min.value == 2 and iv2.dom.extent.value == 8
    with pytest.raises(TypeError, match="Range"):
        tirx.IterVar("bad", "t", 0)


def test_buffer_region_helpers():
    A = tirx.decl_buffer((4, 6), "float32", name="A")
    full = tirx.BufferRegion.full_region(A)
    assert [(r.min.value, r.extent.value) for r in full.region] == [(0, 4), (0, 6)]
    point = tirx.BufferRegion.from_point(A, [1, 2])
    assert [(r.min.value, r.extent.value) for r in point.region] == [(1, 1), (2, 1)]
    sliced = A[1:3, :]
    assert isinstance(sliced, tirx.BufferRegion)
    assert [(r.min.value, r.extent.value) for r in sliced.region] == [(1, 2), (0, 6)]
    with pytest.raises(ValueError, match="needs 2 ranges"):
        tirx.BufferRegion(A, [Range.from_min_extent(tirx.IntImm("int32", 0),
                                                    tirx.IntImm("int32", 1))])


def test_structural_equality_alpha_renames_loop_vars_and_buffers():
    _, a = _store_loop(var_name="i")
    _, b = _store_loop(var_name="j")
    # Loop vars are definitions; the two buffers are free (used, not defined) and differ.
    assert not structural_equal(a, b)
    assert structural_equal(a, b, map_free_vars=True)
    fa = tirx.PrimFunc([a.body.buffer], a)
    fb = tirx.PrimFunc([b.body.buffer], b)
    assert structural_equal(fa, fb)
    assert structural_hash(fa) == structural_hash(fb)
    _, c = _store_loop(n=5)
    assert not structural_equal(fa, tirx.PrimFunc([c.body.buffer], c))


def test_structural_equality_detects_swapped_uses():
    A = tirx.decl_buffer((4, 4), "float32", name="A")
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int32")

    def nest(first, second):
        body = tirx.BufferStore(A, 0.0, [first, second])
        return tirx.PrimFunc([A], tirx.For(i, 0, 4, 0, tirx.For(j, 0, 4, 0, body)))

    assert structural_equal(nest(i, j), nest(i, j))
    assert not structural_equal(nest(i, j), nest(j, i))


def test_sblock_construction_and_validation():
    A = tirx.decl_buffer((4,), "float32", name="A")
    vi = tirx.Var("vi", "int32")
    iv = tirx.IterVar(Range.from_min_extent(tirx.IntImm("int32", 0), tirx.IntImm("int32", 4)),
                      vi, 0)
    block = tirx.SBlock([iv], [], [tirx.BufferRegion.from_point(A, [vi])], "b",
                        tirx.BufferStore(A, 0.0, [vi]))
    assert block.type_key == "s_tir.SBlock" and block.init is None
    assert block.alloc_buffers == () and block.match_buffers == () and block.annotations == {}
    i = tirx.Var("i", "int32")
    realize = tirx.SBlockRealize([i], True, block)
    assert realize.predicate.dtype == "bool" and realize.type_key == "s_tir.SBlockRealize"
    with pytest.raises(ValueError, match="binds 2 values to 1 iteration variables"):
        tirx.SBlockRealize([i, i], True, block)
    with pytest.raises(TypeError, match="must be IterVar"):
        tirx.SBlock([vi], [], [], "b", tirx.Evaluate(0))


def test_vector_access_dtype_follows_ramp_lanes():
    A = tirx.decl_buffer((8,), "float32", name="A")
    ramp = tirx.Ramp(tirx.IntImm("int32", 0), tirx.IntImm("int32", 1), 4)
    load = A[ramp]
    assert load.dtype == "float32x4"
    assert tirx.BufferStore(A, load, [ramp]).value is load
    with pytest.raises(TypeError, match="lanes of indexing are: `4`"):
        tirx.BufferStore(A, A[0], [ramp])


def test_conditions_must_be_boolean():
    x = tirx.Var("x", "int32")
    # IfThenElse/While take any scalar as Apache TVM 0.27 does (non-zero is true)...
    assert tirx.IfThenElse(x, tirx.Evaluate(0)).condition.dtype == "int32"
    assert tirx.While(x, tirx.Evaluate(0)).condition.dtype == "int32"
    # ...but not a vector
    v = tirx.Var("v", "int32x4")
    with pytest.raises(TypeError, match="IfThenElse condition must be a boolean.*int32x4"):
        tirx.IfThenElse(v, tirx.Evaluate(0))
    with pytest.raises(TypeError, match="While condition must be a boolean"):
        tirx.While(v, tirx.Evaluate(0))
    with pytest.raises(TypeError, match="AssertStmt condition"):
        tirx.AssertStmt("RuntimeError", x, ["bad"])
    assert tirx.IfThenElse(True, tirx.Evaluate(0)).condition.dtype == "bool"


def test_buffer_region_slices_relative_to_its_mins():
    buf = tirx.decl_buffer((128, 64), "float16", name="buf")
    outer = buf[32:64, 0:32]
    inner = outer[0:16, 8:16]
    assert isinstance(inner, tirx.BufferRegion) and inner.buffer.same_as(buf)
    assert structural_equal(inner, buf[32:48, 8:16])
    assert structural_equal(outer[5], buf[37, 0:32])  # an index: extent 1
    assert structural_equal(outer[2:], buf[34:64, 0:32])  # trailing dims stay whole
    with pytest.raises(ValueError, match=r"dim 0 takes \[0, 40\) of a region of extent 32"):
        outer[0:40]
    with pytest.raises(ValueError, match="step 2 is not supported"):
        outer[0:8:2]
    with pytest.raises(ValueError, match="3 indices for 2 dimensions"):
        outer[0, 0, 0]
