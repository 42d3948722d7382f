"""tirx intrinsics: registration, dtype rules and errors (behaviour of TVM 0.27's tvm.tirx)."""

import pytest

import tvm
from tvm import tirx
from tvm.ir import Op

UNARY = ["exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh",
         "sigmoid", "erf", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
         "popcount"]
BINARY = ["atan2", "fmod", "copysign", "hypot", "nextafter", "ldexp"]


@pytest.mark.parametrize("name", UNARY + ["sin", "cos", "tan"])
def test_unary_math_keeps_float_dtype(name):
    f = tirx.Var("f", "float32")
    call = getattr(tirx, name)(f)
    assert isinstance(call, tirx.Call)
    assert call.op is Op.get(f"tirx.{name}")
    assert call.dtype == "float32"
    assert repr(call) == f"T.{name}(f)"
    assert call.op.get_attr("TCallEffectKind") == tirx.CallEffectKind.Pure


@pytest.mark.parametrize("name", UNARY)
def test_unary_math_on_int_keeps_int_dtype(name):
    # TVM builds these calls on integers too, with the integer dtype.
    x = tirx.Var("x", "int32")
    assert getattr(tirx, name)(x).dtype == "int32"


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_rejects_integers(name):
    with pytest.raises(TypeError, match=f"tirx.{name} only supports floating-point inputs, but got int32"):
        getattr(tirx, name)(tirx.Var("x", "int32"))


@pytest.mark.parametrize("name", BINARY)
def test_binary_math(name):
    f = tirx.Var("f", "float32")
    call = getattr(tirx, name)(f, 2)
    assert call.dtype == "float32"
    assert repr(call) == f"T.{name}(f, 2)"


def test_pow():
    f, h = tirx.Var("f", "float32"), tirx.Var("h", "float16")
    assert repr(tirx.pow(f, 2)) == "T.pow(f, T.float32(2.0))"
    assert repr(tirx.power(f, h)) == 'T.pow(f, T.Cast("float32", h))'
    with pytest.raises(TypeError, match="power only applies to float"):
        tirx.pow(tirx.Var("x", "int32"), 2)


def test_rounding_functions():
    x, f = tirx.Var("x", "int32"), tirx.Var("f", "float32")
    for name in ["floor", "ceil", "round", "trunc", "nearbyint"]:
        fn = getattr(tirx, name)
        assert fn(x) is x
        assert repr(fn(f)) == f"T.{name}(f)"
    assert repr(tirx.floor(tirx.const(-3.5))) == "T.float32(-4.0)"
    assert repr(tirx.ceil(tirx.const(-3.5))) == "T.float32(-3.0)"
    assert repr(tirx.round(tirx.const(2.5))) == "T.float32(2.0)"
    assert repr(tirx.trunc(tirx.const(-3.5))) == "T.float32(-3.0)"


def test_abs():
    x, f, u = tirx.Var("x", "int32"), tirx.Var("f", "float32"), tirx.Var("u", "uint32")
    assert repr(tirx.abs(x)) == "T.Select(x >= 0, x, 0 - x)"
    assert repr(tirx.abs(f)) == "T.fabs(f)"
    assert tirx.abs(u) is u
    assert repr(tirx.abs(tirx.const(-3))) == "3"
    assert repr(tirx.abs(tirx.const(-3.0))) == "T.float32(3.0)"


def test_nan_inf_tests():
    x, f = tirx.Var("x", "int32"), tirx.Var("f", "float32")
    assert repr(tirx.isnan(x)) == "T.bool(False)"
    assert repr(tirx.isinf(x)) == "T.bool(False)"
    assert repr(tirx.isfinite(x)) == "T.bool(True)"
    assert repr(tirx.isnan(f)) == "T.isnan(f)"
    assert tirx.isnan(f).dtype == "bool"
    assert repr(tirx.isinf(f)) == 'T.fabs(f) == T.float32("inf") and not T.isnan(f)'
    assert repr(tirx.isfinite(f)) == (
        'not (T.fabs(f) == T.float32("inf") and not T.isnan(f)) and not T.isnan(f)'
    )


def test_clz_is_int32():
    assert tirx.clz(tirx.Var("f", "float32")).dtype == "int32"
    assert tirx.clz(tirx.Var("y", "int64")).dtype == "int32"


def test_logaddexp():
    f, h = tirx.Var("f", "float32"), tirx.Var("h", "float16")
    assert repr(tirx.logaddexp(f, h)) == 'T.log(T.exp(f) + T.exp(T.Cast("float32", h)))'
    with pytest.raises(TypeError, match="logaddexp requires floating-point"):
        tirx.logaddexp(f, tirx.Var("x", "int32"))


def test_integer_helpers():
    x = tirx.Var("x", "int32")
    assert repr(tirx.shift_left(x, 1)) == "x << 1"
    assert repr(tirx.shift_right(x, 1)) == "x >> 1"
    assert repr(tirx.bitwise_and(x, 1)) == "x & 1"
    assert repr(tirx.bitwise_or(x, 1)) == "x | 1"
    assert repr(tirx.bitwise_xor(x, 1)) == "x ^ 1"
    assert repr(tirx.bitwise_not(x)) == "~x"
    assert repr(tirx.ceildiv(x, 4)) == "(x + 4 - 1) // 4"
    assert repr(tirx.ceildiv(tirx.const(7), 2)) == "4"
    assert repr(tirx.indexdiv(x, 4)) == "x // 4"
    assert repr(tirx.indexmod(x, 4)) == "x % 4"
    assert repr(tirx.div(x, 4)) == "T.Div(x, 4)"
    assert repr(tirx.div(tirx.Var("f", "float32"), 2)) == "f / T.float32(2.0)"
    f = tirx.Var("f", "float32")
    with pytest.raises(TypeError, match="operator << requires integer operands, got float32"):
        tirx.shift_left(f, 1)
    with pytest.raises(TypeError, match="operator ~ requires an integer operand"):
        tirx.bitwise_not(f)
    with pytest.raises(TypeError, match="ceildiv requires integer operands"):
        tirx.ceildiv(f, 2)
    with pytest.raises(TypeError, match="truncdiv requires integer operands"):
        tirx.truncdiv(f, 2)


def test_q_multiply_shift():
    x = tirx.Var("x", "int32")
    call = tirx.q_multiply_shift(x, x, 1, 2)
    assert call.dtype == "int32" and repr(call) == "T.q_multiply_shift(x, x, 1, 2)"


def test_if_then_else():
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int64")
    assert repr(tirx.if_then_else(x < 1, x, 2)) == "T.if_then_else(x < 1, x, 2)"
    promoted = tirx.if_then_else(x < 1, x, y)
    assert repr(promoted) == 'T.if_then_else(x < 1, T.Cast("int64", x), y)'
    assert promoted.dtype == "int64"
    assert tirx.if_then_else(tirx.const(True), x, 2) is x
    with pytest.raises(TypeError, match="if_then_else only accept the condition to be boolean"):
        tirx.if_then_else(x, x, 2)


def test_likely():
    x = tirx.Var("x")
    assert repr(tirx.likely(x < 1)) == "T.likely(x < 1)"
    assert repr(tirx.likely(tirx.const(True))) == "T.bool(True)"
    assert Op.get("tirx.likely").get_attr("TCallEffectKind") == tirx.CallEffectKind.ExprAnnotation


def test_reinterpret():
    x, f = tirx.Var("x", "int32"), tirx.Var("f", "float32")
    assert repr(tirx.reinterpret("float32", x)) == 'T.reinterpret("float32", x)'
    assert tirx.reinterpret("int32", x) is x
    assert tirx.reinterpret("int32", f).dtype == "int32"
    with pytest.raises(TypeError, match="Reinterpret requires size match float64 vs int32"):
        tirx.reinterpret("float64", x)


def test_calls():
    x, f = tirx.Var("x"), tirx.Var("f", "float32")
    ext = tirx.call_extern("float32", "foo", x, 2.0)
    assert repr(ext) == 'T.call_extern("float32", "foo", x, T.float32(2.0))'
    assert ext.op.get_attr("TCallEffectKind") == tirx.CallEffectKind.Opaque
    pure = tirx.call_pure_extern("float32", "expf", f)
    assert repr(pure) == 'T.call_pure_extern("float32", "expf", f)'
    assert pure.op.get_attr("TCallEffectKind") == tirx.CallEffectKind.Pure
    llvm = tirx.call_llvm_intrin("float32", "llvm.exp", f)
    assert repr(llvm) == 'T.call_llvm_intrin("float32", "llvm.exp", f)'
    assert repr(tirx.call_intrin("float32", "tirx.exp", f)) == "T.exp(f)"
    assert repr(tirx.ret(x)) == "T.ret(x)"
    with pytest.raises(ValueError, match="Operator tirx.nonexist is not registered"):
        tirx.call_intrin("float32", "tirx.nonexist", f)
    with pytest.raises(TypeError, match="the function name must be a str"):
        tirx.call_extern("float32", 3, f)


def test_all_any_need_arguments():
    with pytest.raises(ValueError, match="all must take at least 1 argument"):
        tirx.all()
    with pytest.raises(ValueError, match="any must take at least 1 argument"):
        tirx.any()
    with pytest.raises(TypeError, match="logical_and requires bool operands, got int32"):
        tirx.all(tirx.Var("x"), tirx.Var("y"))


@pytest.mark.parametrize(
    "fn, dtype, text",
    [
        (tirx.min_value, "int32", "-2147483648"),
        (tirx.max_value, "int64", "T.int64(9223372036854775807)"),
        (tirx.min_value, "uint8", "T.uint8(0)"),
        (tirx.max_value, "uint32", "T.uint32(4294967295)"),
        (tirx.min_value, "float16", "T.float16(-65504.0)"),
        (tirx.max_value, "float32", "T.float32(340282346638528859811704183484516925440.0)"),
        (tirx.max_value, "float8_e4m3fn", "T.float8_e4m3fn(448.0)"),
        (tirx.infinity, "float32", 'T.float32("inf")'),
    ],
)
def test_dtype_limits(fn, dtype, text):
    assert repr(fn(dtype)) == text


def test_dtype_limit_errors():
    with pytest.raises(TypeError, match="Cannot decide max_value for type bool"):
        tirx.max_value("bool")
    with pytest.raises(TypeError, match="Cannot decide infinity for type int32"):
        tirx.infinity("int32")


def test_every_intrinsic_is_a_registered_op_with_an_effect_kind():
    names = [n for n in Op.list_op_names() if n.startswith("tirx.")]
    for name in ["tirx.exp", "tirx.fabs", "tirx.if_then_else", "tirx.call_extern", "tirx.ret"]:
        assert name in names
    for name in names:
        op = Op.get(name)
        if op.family in ("math", "intrinsic"):
            assert op.get_attr("TCallEffectKind") is not None, name


def test_op_module_path():
    # tvm.tirx.op is the module TVM users import intrinsics from.
    assert tvm.tirx.op.exp is tirx.exp
