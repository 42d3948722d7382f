"""tvm.compile / tvm.tirx.build: inputs, targets, caching, Relax modules."""

import numpy as np
import pytest

import tvm
from tvm import te


def _add_one(n=8, name="B"):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name=name)
    return te.create_prim_func([A, B])


@pytest.fixture(scope="module")
def compiled():
    return tvm.compile(_add_one())


def test_prim_func_becomes_main(compiled):
    a = np.arange(8, dtype="float32")
    b = np.zeros_like(a)
    compiled["main"](a, b)
    np.testing.assert_array_equal(b, a + 1)
    assert compiled.kind == "llvm"


def test_structurally_equal_function_hits_the_cache(compiled):
    again = tvm.compile(_add_one())  # a new, structurally equal PrimFunc
    assert again is compiled
    other = tvm.compile(_add_one(n=9))
    assert other is not compiled


def test_duplicate_global_symbols_are_refused():
    mod = tvm.IRModule({"inc": _add_one(4), "inc8": _add_one(8)})  # both are "main"
    with pytest.raises(ValueError, match="Duplicate PrimFunc global_symbol 'main'.*'inc8'"):
        tvm.compile(mod)


def test_irmodule_with_several_functions_and_tirx_build():
    mod = tvm.IRModule({"inc": _add_one(4).with_attr("global_symbol", "inc"),
                        "inc8": _add_one(8).with_attr("global_symbol", "inc8")})
    lib = tvm.tirx.build(mod, target="llvm")
    a = np.ones(4, "float32")
    b = np.zeros(4, "float32")
    lib["inc"](a, b)
    np.testing.assert_array_equal(b, 2)
    assert lib.implements_function("inc8")


def test_target_objects_and_options():
    lib = tvm.compile(_add_one(5), target=tvm.target.Target("llvm"))
    a = np.ones(5, "float32")
    b = np.zeros(5, "float32")
    lib["main"](a, b)
    np.testing.assert_array_equal(b, 2)


def test_target_kind_without_backend():
    # cuda has a backend; a loop without thread bindings (not s_tir, so no default GPU
    # schedule applies) would run on the host over device memory.
    from tvm.script import tirx as T

    @T.prim_func
    def plain_loop(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = T.float32(0)

    with pytest.raises(ValueError, match="function plain_loop accesses buffer A outside any "
                                         "GPU thread binding.*Did you forget to bind"):
        tvm.compile(plain_loop, target="cuda")
    with pytest.raises(ValueError, match="target kind 'rocm' has no backend .*no package"):
        tvm.compile(_add_one(), target="rocm")
    with pytest.raises(ValueError, match="target kind 'metal' has no backend .*registers none"):
        tvm.compile(_add_one(), target="metal")
    with pytest.raises(ValueError, match='Target kind "nope" is not defined'):
        tvm.compile(_add_one(), target="nope")


def test_bad_input_type():
    with pytest.raises(TypeError, match="expects a PrimFunc or an IRModule, got int"):
        tvm.compile(3)


def test_unknown_pipeline():
    with pytest.raises(ValueError, match="Unknown TIR pipeline 'fast'"):
        tvm.compile(_add_one(3), tir_pipeline="fast")


def test_relax_modules_go_to_relax_build():
    from tvm import relax

    x = relax.Var("x", relax.TensorType((2,), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(x)
    assert type(tvm.compile(bb.get())).__name__ == "Executable"
    with pytest.raises(ValueError, match="lowering Relax functions is not supported here.*relax.build"):
        tvm.driver.lower(bb.get())  # the TIR lowering alone takes PrimFuncs only


def test_lower_returns_the_codegen_input():
    lowered = tvm.driver.lower(_add_one(6))
    func = lowered["main"]
    assert func.get_attr("calling_conv") == 1
    assert func.get_attr("global_symbol") == "main"


def test_lower_applies_the_llvm_intrinsic_rules():
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((4,), lambda i: te.tanh(A[i]) + te.exp(A[i]), name="B")
    text = tvm.driver.lower(te.create_prim_func([A, B])).script()
    assert 'T.call_pure_extern("float32", "tanhf"' in text
    assert 'T.call_llvm_pure_intrin("float32", "llvm.exp"' in text


def test_pass_context_is_part_of_the_cache_key():
    A = te.placeholder((4, 8), "float32", name="A")
    B = te.compute((4, 8), lambda i, j: A[i, j] * 2.0, name="B")
    func = te.create_prim_func([A, B])  # the j loop gets vectorized by default
    plain = tvm.compile(func)
    with tvm.transform.PassContext(config={"tirx.disable_vectorize": True}):
        scalar = tvm.compile(func)
    assert scalar is not plain
    assert "<8 x float>" in plain.inspect_source("ll")
    assert tvm.compile(func) is plain
