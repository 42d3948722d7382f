"""The CUDA intrinsic rules (``tvm.backend.cuda.intrin.INTRIN_RULES``) and LowerIntrin for cuda."""

import pytest

import tvm
from tvm import tirx
from tvm.backend.cuda import intrin
from tvm.script import tirx as T


def _lower(call):
    return intrin.INTRIN_RULES[call.op.name.split(".", 1)[1]](call)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [("float32", 'T.call_pure_extern("float32", "expf", x)'),
     ("float64", 'T.call_pure_extern("float64", "exp", x)'),
     ("float16", 'T.call_pure_extern("float16", "hexp", x)'),
     ("bfloat16", 'T.call_pure_extern("bfloat16", "hexp", x)')],
)
def test_exp_picks_the_function_by_dtype(dtype, expected):
    x = tirx.Var("x", dtype)
    assert str(_lower(tirx.exp(x))) == expected


def test_half_without_a_cuda_function_computes_in_float32():
    x = tirx.Var("x", "float16")
    lowered = _lower(tirx.tanh(x))
    assert str(lowered) == 'T.Cast("float16", T.call_pure_extern("float32", "tanhf", T.Cast("float32", x)))'


def test_sigmoid_popcount_and_integer_math():
    f = tirx.Var("f", "float32")
    assert str(_lower(tirx.sigmoid(f))) == (
        "T.float32(1.0) / (T.float32(1.0) + T.exp(f * T.float32(-1.0)))")
    n = tirx.Var("n", "int64")
    assert str(_lower(tirx.popcount(n))) == 'T.call_pure_extern("int64", "__popcll", n)'
    with pytest.raises(ValueError, match="tirx.exp of int32 has no CUDA lowering"):
        _lower(tirx.exp(tirx.Var("i", "int32")))


def test_lower_intrin_uses_the_cuda_rules_for_cuda_functions():
    intrin.register_rules()

    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.exp(A[i]) + T.round(A[i])

    f = f.with_attr("target", tvm.target.Target("cuda"))
    out = tirx.transform.LowerIntrin()(tvm.IRModule({"f": f}))["f"].script()
    assert 'T.call_pure_extern("float32", "expf", A[i])' in out
    assert 'T.call_pure_extern("float32", "roundf", A[i])' in out
