"""LowerIntrin: math ops become LLVM intrinsics, libm calls or expressions (llvm target)."""

import tvm
import tvm.backend.llvm.intrin
from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.tirx import BufferStore, PrimFunc, Var, decl_buffer
from tvm.tirx.transform import LowerIntrin


def _lower(value_fn, dtype="float32"):
    A = decl_buffer((1,), dtype, name="A")
    x = Var("x", dtype)
    func = PrimFunc([A, x], BufferStore(A, value_fn(x), [0]))
    out = LowerIntrin()(tvm.IRModule({"main": func}))["main"]
    return out.body.value, x


def test_exp_becomes_llvm_intrinsic():
    value, x = _lower(tirx.exp)
    assert_structural_equal(value, tirx.call_llvm_pure_intrin("float32", "llvm.exp", x))


def test_tanh_becomes_libm_call():
    value, x = _lower(tirx.tanh)
    assert_structural_equal(value, tirx.call_pure_extern("float32", "tanhf", x))
    value64, y = _lower(tirx.tanh, "float64")
    assert_structural_equal(value64, tirx.call_pure_extern("float64", "tanh", y))


def test_sigmoid_expands():
    value, x = _lower(tirx.sigmoid)
    one = tirx.FloatImm("float32", 1.0)
    expected = one / (one + tirx.call_llvm_pure_intrin("float32", "llvm.exp", -x))
    assert_structural_equal(value, expected)


def test_float16_computes_in_float32():
    value, x = _lower(tirx.exp, "float16")
    wide = tirx.call_llvm_pure_intrin("float32", "llvm.exp", tirx.Cast("float32", x))
    assert_structural_equal(value, tirx.Cast("float16", wide))


def test_ops_without_rule_are_kept():
    value, _ = _lower(lambda v: tirx.call_extern("float32", "my_fn", v))
    assert value.op.name == "tirx.call_extern"
