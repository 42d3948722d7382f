"""tirx expression nodes: construction, dtypes, validation, structural equality and text."""

import pickle

import pytest

import tvm
from tvm import tirx
from tvm.ffi import structural_equal, structural_hash
from tvm.ir import PrimExpr


def test_var_basics():
    x = tirx.Var("x", "int64")
    assert x.name == "x" and x.name_hint == "x"
    assert x.dtype == "int64"
    assert x.type_annotation is None
    assert isinstance(x, PrimExpr)
    assert tirx.Var("y").dtype == "int32"
    assert repr(x) == "x"


def test_var_accepts_datatype_and_numpy_dtype():
    import numpy as np

    assert tirx.Var("a", tvm.DataType("float16")).dtype == "float16"
    assert type(tirx.Var("a", tvm.DataType("float16")).dtype) is str
    assert tirx.Var("b", np.dtype("int8")).dtype == "int8"


def test_var_with_type_annotation():
    from tvm.ir.type import PointerType, PrimType

    ptr = tirx.Var("p", PointerType(PrimType("float32"), "global"))
    assert ptr.dtype == "handle"
    assert ptr.type_annotation.storage_scope == "global"
    scalar = tirx.Var("s", PrimType("int64"))
    assert scalar.dtype == "int64"


def test_var_errors():
    with pytest.raises(TypeError, match="name must be a str"):
        tirx.Var(3, "int32")
    with pytest.raises(ValueError, match="unknown dtype `floaty`"):
        tirx.Var("x", "floaty")


def test_size_var_is_var():
    n = tirx.SizeVar("n", "int64")
    assert isinstance(n, tirx.Var)
    assert n.type_key == "tirx.SizeVar"


def test_type_keys_follow_tvm():
    x = tirx.Var("x")
    assert tirx.IntImm("int32", 1).type_key == "ir.IntImm"
    assert tirx.FloatImm("float32", 1.0).type_key == "ir.FloatImm"
    assert tirx.Add(x, 1).type_key == "prim.Add"
    assert tirx.FloorDiv(x, 2).type_key == "prim.FloorDiv"
    assert tirx.EQ(x, 1).type_key == "prim.EQ"
    assert tirx.Cast("int64", x).type_key == "prim.Cast"


def test_int_imm():
    imm = tirx.IntImm("int64", 3)
    assert imm.value == 3 and imm.dtype == "int64"
    assert int(imm) == 3 and float(imm) == 3.0
    assert [10, 20, 30, 40][imm] == 40  # __index__
    assert bool(tirx.IntImm("int32", 0)) is False
    assert tirx.IntImm("bool", 1).value == 1
    assert repr(imm) == "T.int64(3)"
    assert repr(tirx.IntImm("int32", -2)) == "-2"
    assert repr(tirx.IntImm("bool", 1)) == "T.bool(True)"


def test_int_imm_errors():
    with pytest.raises(ValueError, match="exceeds range of int32"):
        tirx.IntImm("int32", 2**31)
    with pytest.raises(ValueError, match="exceeds range of uint8"):
        tirx.IntImm("uint8", -1)
    with pytest.raises(ValueError, match="supports only int or uint or bool type, but float32"):
        tirx.IntImm("float32", 1)
    with pytest.raises(ValueError, match="must be an integer"):
        tirx.IntImm("int32", 1.5)


def test_float_imm():
    f = tirx.FloatImm("float32", 1.5)
    assert f.value == 1.5 and float(f) == 1.5
    assert repr(f) == "T.float32(1.5)"
    assert repr(tirx.FloatImm("float64", 0.1)) == "T.float64(0.10000000000000001)"
    assert repr(tirx.FloatImm("float32", float("nan"))) == 'T.float32("nan")'
    assert repr(tirx.FloatImm("float32", -float("inf"))) == 'T.float32("-inf")'
    assert repr(tirx.FloatImm("float32", 1e20)) == "T.float32(100000000000000000000.0)"
    with pytest.raises(ValueError, match="supports only float type, but int32"):
        tirx.FloatImm("int32", 1.0)


def test_string_imm():
    s = tirx.StringImm("hi")
    assert s.value == "hi" and s.dtype == "handle"
    assert s == "hi" and s != "ho"
    assert repr(s) == '"hi"'
    with pytest.raises(TypeError, match="must be a str"):
        tirx.StringImm(3)


def test_binary_node_constructors_check_dtypes():
    x = tirx.Var("x", "int32")
    f = tirx.Var("f", "float32")
    add = tirx.Add(x, 1)
    assert add.a is x and add.b.dtype == "int32" and add.dtype == "int32"
    y = tirx.Var("y", "int64")
    assert tirx.Add(y, 1).b.dtype == "int64"  # Python numbers take the other side's dtype
    with pytest.raises(TypeError, match="mismatched types. int32 vs. float32"):
        tirx.Add(x, f)
    lt = tirx.LT(x, 1)
    assert lt.dtype == "bool"


def test_logical_nodes_require_bool():
    x = tirx.Var("x")
    with pytest.raises(TypeError, match="And requires bool"):
        tirx.And(x, x)
    with pytest.raises(TypeError, match="Not requires a bool"):
        tirx.Not(x)
    with pytest.raises(TypeError, match="BitwiseAnd requires int"):
        tirx.BitwiseAnd(tirx.Var("f", "float32"), tirx.Var("g", "float32"))
    assert tirx.Or(x < 1, x > 2).dtype == "bool"


def test_select():
    x = tirx.Var("x")
    sel = tirx.Select(x < 1, x, 2)
    assert sel.dtype == "int32" and repr(sel) == "T.Select(x < 1, x, 2)"
    with pytest.raises(TypeError, match="Select condition must be bool"):
        tirx.Select(x, x, x)
    with pytest.raises(TypeError, match="mismatched types. False type: float32; True type: int32"):
        tirx.Select(x < 1, x, tirx.Var("f", "float32"))


def test_let_defines_its_var():
    x = tirx.Var("x")
    let = tirx.Let(x, 1, x + 1)
    assert let.dtype == "int32"
    assert repr(let) == "T.Let(x + 1, where={x: 1})"
    y = tirx.Var("y")
    # Alpha-equivalent: the bound variable is mapped at its definition.
    assert structural_equal(let, tirx.Let(y, 1, y + 1))
    assert structural_hash(let) == structural_hash(tirx.Let(y, 1, y + 1))
    with pytest.raises(TypeError, match="Let var must be a tirx.Var"):
        tirx.Let(1, 1, x)
    with pytest.raises(TypeError, match="does not match var"):
        tirx.Let(x, tirx.Var("f", "float32"), x)


def test_vectors():
    x = tirx.Var("x")
    ramp = tirx.Ramp(x, 1, 4)
    assert ramp.dtype == "int32x4" and int(ramp.lanes) == 4
    assert tirx.Broadcast(tirx.Var("f", "float32"), 8).dtype == "float32x8"
    assert repr(ramp + x) == "T.Ramp(x, 1, 4) + T.Broadcast(x, 4)"
    shuffle = tirx.Shuffle([ramp], [0, 2])
    assert shuffle.dtype == "int32x2"
    with pytest.raises(ValueError, match="lanes must be positive"):
        tirx.Broadcast(x, 0)
    with pytest.raises(TypeError, match="Broadcast value must be a scalar"):
        tirx.Broadcast(ramp, 2)


def test_cast():
    x = tirx.Var("x")
    c = tirx.Cast("int64", x)
    assert c.dtype == "int64" and c.value is x
    assert repr(c) == 'T.Cast("int64", x)'
    # The node constructor does not fold; astype does.
    assert isinstance(tirx.Cast("int64", tirx.const(3)), tirx.Cast)
    assert repr(tirx.const(3).astype("int64")) == "T.int64(3)"
    assert x.astype("int32") is x


def test_call_node():
    x = tirx.Var("f", "float32")
    call = tirx.Call("float32", "tirx.exp", [x])
    assert call.op is tvm.ir.Op.get("tirx.exp")
    assert call.args == (x,)
    assert repr(call) == "T.exp(f)"
    # A short name means the tirx op.
    assert tirx.Call("float32", "exp", [x]).op.name == "tirx.exp"
    ext = tirx.Call("int32", "tirx.call_extern", ["foo", 1])
    assert isinstance(ext.args[0], tirx.StringImm)
    with pytest.raises(ValueError, match="not registered"):
        tirx.Call("float32", "tirx.no_such_op", [x])


def test_free_vars_compare_by_identity():
    x, y = tirx.Var("x"), tirx.Var("x")
    assert structural_equal(x + 1, x + 1)
    assert not structural_equal(x + 1, y + 1)
    assert structural_equal(x + 1, y + 1, map_free_vars=True)
    # Names never matter, dtypes do.
    assert not structural_equal(tirx.Var("a", "int32"), tirx.Var("a", "int64"), map_free_vars=True)


def test_structural_equal_of_constants_and_ops():
    x = tirx.Var("x")
    assert structural_equal(tirx.const(3), tirx.IntImm("int32", 3))
    assert not structural_equal(tirx.const(3), tirx.const(3, "int64"))
    assert not structural_equal(x + 1, x - 1)
    assert structural_hash(x * 2 + 1) == structural_hash(x * 2 + 1)


def test_nodes_are_immutable_and_replaceable():
    x = tirx.Var("x")
    add = x + 1
    with pytest.raises(AttributeError, match="immutable"):
        add.a = x
    assert add.replace(a=add.a) is add
    assert repr(add.replace(b=tirx.const(2))) == "x + 2"


def test_pickle_roundtrip_of_closed_expression():
    expr = tirx.const(3) * tirx.const(4, "int64").astype("int32")
    again = pickle.loads(pickle.dumps(expr))
    assert structural_equal(again, expr)


def test_expression_text_precedence():
    x, y = tirx.Var("x"), tirx.Var("y")
    assert repr((x + 1) * (x - 2) // 3 % 4) == "(x + 1) * (x - 2) // 3 % 4"
    assert repr(x - (x - 1)) == "x - (x - 1)"
    assert repr(x - (x + 1)) == "x - (x + 1)"
    assert repr(tirx.any(tirx.all(x < 1, x > 2), tirx.EQ(x, 3))) == "x < 1 and x > 2 or x == 3"
    assert repr(tirx.Not(tirx.all(x < 1, x > 2))) == "not (x < 1 and x > 2)"
    assert repr((x & 1) + 2) == "(x & 1) + 2"
    assert repr((x << 1) + 2) == "(x << 1) + 2"
    assert repr(tirx.EQ(x < 1, y < 2)) == "(x < 1) == (y < 2)"
    assert repr(tirx.min(x, y)) == "T.min(x, y)"
    assert repr(tirx.truncdiv(x, y)) == "T.Div(x, y)"
    assert repr(tirx.truncmod(x, y)) == "T.truncmod(x, y)"
    assert repr(~(x < 1)) == "~(x < 1)"


def test_deep_expression_repr_and_equality():
    x = tirx.Var("x")

    def build():
        expr = x
        for i in range(1, 3000):
            expr = expr + i
        return expr

    assert repr(build()).startswith("x + 1 + 2 + 3")
    assert structural_equal(build(), build())


def test_constants_need_scalar_dtypes():
    with pytest.raises(ValueError, match="needs a scalar dtype, got int32x4"):
        tirx.IntImm("int32x4", 1)
    with pytest.raises(ValueError, match="needs a scalar dtype, got float32x4"):
        tirx.FloatImm("float32x4", 1.0)
