"""Parser, printer and IR-size limits (issue 22, defects 7-9): deep IR works or fails with a
clear error, the parser's evaluator bounds its work, and the printed forms parse back."""

import pytest

import tvm
from tvm import relax, tirx
from tvm.error import DiagnosticError
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T
from tvm.support.recursion import IRTooDeepError


def _deep_func(depth):
    x = tirx.Var("x", "float32")
    e = x
    for _ in range(depth):
        e = e + tirx.FloatImm("float32", 1.0)
    a = tirx.decl_buffer((1,), "float32", name="a")
    body = tirx.BufferStore(a, e, [0])
    return tirx.PrimFunc([x, a], body).with_attr("global_symbol", "deep")


# --- defect 7: deep IR -----------------------------------------------------------------------


def test_a_5000_deep_expression_prints_and_parses_back():
    func = _deep_func(5000)
    text = func.script()
    assert text.count("T.float32(1.0)") == 5000
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), func)


def test_an_8000_deep_expression_compiles_and_runs():
    import numpy as np

    ex = tvm.compile(_deep_func(8000), target="llvm")
    out = np.zeros(1, "float32")
    ex["deep"](np.float32(0.5), out)
    assert out[0] == np.float32(8000.5)


def test_a_10000_deep_expression_is_well_formed():
    assert tvm.tirx.analysis.verify_well_formed(_deep_func(10000))


def test_ir_too_deep_even_for_the_raised_limit_is_a_clear_value_error():
    with pytest.raises(IRTooDeepError, match="printing TVMScript: the IR is nested too deeply"):
        _deep_func(100_000).script()
    assert issubclass(IRTooDeepError, ValueError)


def test_the_recursion_limit_is_restored_afterwards():
    import sys

    before = sys.getrecursionlimit()
    _deep_func(10).script()
    with pytest.raises(IRTooDeepError):
        _deep_func(100_000).script()
    assert sys.getrecursionlimit() == before


def test_an_undecorated_method_in_an_ir_module_is_a_diagnostic():
    with pytest.raises(DiagnosticError, match="Function must be decorated"):

        @I.ir_module
        class Module:
            def helper(x: R.Tensor((2,), "float32")):
                return x

            @R.function
            def main(x: R.Tensor((2,), "float32")):
                return x

    text = (
        "@I.ir_module\n"
        "class Module:\n"
        "    def helper(x: R.Tensor((2,), 'float32')):\n"
        "        return x\n"
    )
    with pytest.raises(DiagnosticError, match="Function must be decorated"):
        tvm.script.from_source(text)


# --- defect 8: the evaluator bounds its work --------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "words"),
    [
        ("10**12**12", "is too large to evaluate while parsing"),
        ("1 << 10**9", "is too large to evaluate while parsing"),
        ("len('ab' * 10**12)", "repeating a str of length 2"),
    ],
)
def test_huge_constant_expressions_in_a_shape_are_diagnostics(expr, words):
    text = (
        "@T.prim_func\n"
        f"def f(a: T.Buffer(({expr},), 'float32')):\n"
        "    T.evaluate(0)\n"
    )
    with pytest.raises(DiagnosticError, match=words):
        tvm.script.from_source(text)


def test_ordinary_powers_and_shifts_still_evaluate():
    text = (
        "@T.prim_func\n"
        "def f(a: T.Buffer((2**4, 1 << 3, 3 * 2), 'float32')):\n"
        "    T.evaluate(0)\n"
    )
    func = tvm.script.from_source(text)
    assert [int(d) for d in func.buffer_map[func.params[0]].shape] == [16, 8, 6]


# --- defect 9: round trips -------------------------------------------------------------------


def test_a_0d_buffer_access_prints_as_an_empty_tuple_index_and_parses_back():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.sum(x)
            return y

    mod = relax.transform.LegalizeOps()(Module)
    text = mod.script()
    assert "x_red[()] = x_red[()] + x[v_k0, v_k1]" in text  # 0.27's form
    assert "[]" not in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)


@pytest.mark.parametrize(
    ("value", "printed"),
    [(1e400, 'T.float32("inf")'), (-1e400, 'T.float32("-inf")'), (float("nan"), 'T.float32("nan")')],
)
def test_non_finite_float_constants_round_trip(value, printed):
    a = tirx.decl_buffer((1,), "float32", name="a")
    func = tirx.PrimFunc([a], tirx.BufferStore(a, tirx.FloatImm("float32", value), [0]))
    text = func.script()
    assert printed in text  # as TVM 0.27 prints it
    back = tvm.script.from_source(text)
    stored = back.body.value
    assert isinstance(stored, tirx.FloatImm)
    assert repr(stored.value) == repr(value)


def test_a_float_constructor_with_a_name_is_still_a_variable():
    v = T.float32("alpha")
    assert isinstance(v, tirx.Var) and v.name == "alpha"


def test_legalized_log_softmax_with_symbolic_shape_declares_each_var_once():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor(("a", "b"), "float32")):
            z = R.nn.log_softmax(x)
            return z

    mod = relax.transform.LegalizeOps()(Module)
    text = mod.script()
    for name in ("a", "b"):
        assert text.count(f"    {name} = T.int64()") <= 1
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)
