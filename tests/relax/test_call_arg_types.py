"""Calls to Relax functions check their arguments' types (messages as TVM 0.27 words them)."""

import pytest

import tvm
from tvm import relax, tirx
from tvm.error import DiagnosticError
from tvm.script import from_source

T = relax.TensorType
F32_3 = T((3,), "float32")
I64 = tvm.ir.PrimType("int64")


def _call(params, arg_types, ret=None):
    """Normalize ``f(args)`` inside a function, where ``f`` is a FuncType-typed variable."""
    bb = relax.BlockBuilder()
    f = relax.Var("f", relax.FuncType(params, ret if ret is not None else relax.ObjectType()))
    args = [relax.Var(f"a{k}", ty) for k, ty in enumerate(arg_types)]
    with bb.function("main", [f, *args]):
        try:
            return bb.normalize(relax.Call(f, args)).ty
        finally:
            bb.emit_func_output(args[0] if args else relax.const(1))


@pytest.mark.parametrize(
    "arg_types, index, expected, given",
    [
        ([I64, F32_3], 0, 'R.Tensor((3,), dtype="float32")', "T.int64"),  # swapped arguments
        ([T((3, 4), "float32"), I64], 0, "R.Tensor((3,)", 'R.Tensor((3, 4), dtype="float32")'),
        ([T((3,), "int32"), I64], 0, "R.Tensor((3,)", 'R.Tensor((3,), dtype="int32")'),
        ([T((4,), "float32"), I64], 0, "R.Tensor((3,)", 'R.Tensor((4,), dtype="float32")'),
        ([F32_3, tvm.ir.PrimType("int32")], 1, "T.int64", "T.int32"),
        ([relax.TupleType([]), I64], 0, "R.Tensor((3,)", "R.Tuple"),
        # Coarser than the parameter: TVM 0.27 wants a match_cast there, so it is an error too.
        ([T(ndim=-1, dtype="float32"), I64], 0, "R.Tensor((3,)", 'R.Tensor(dtype="float32")'),
        ([relax.ObjectType(), I64], 0, "R.Tensor((3,)", "R.Any"),
    ],
)
def test_mismatched_argument_is_a_value_error(arg_types, index, expected, given):
    with pytest.raises(ValueError) as info:
        _call([F32_3, I64], arg_types)
    message = str(info.value)
    assert message.startswith(f"Argument {index} type mismatch: expected {expected}")
    assert f"given {given}" in message
    assert "in a call to f" in message


@pytest.mark.parametrize(
    "param, arg",
    [
        (relax.TupleType([F32_3]), relax.TupleType([F32_3, F32_3])),  # tuple arity
        (relax.ShapeType([tirx.Var("n", "int64")]), relax.ShapeType([4, 5])),  # shape rank
        (
            relax.FuncType([F32_3], F32_3),
            relax.FuncType([T((4,), "float32")], F32_3),
        ),
        (relax.FuncType([F32_3], F32_3), relax.FuncType([F32_3], F32_3, purity=False)),
        (T((3,), "float32"), T((3,), "")),  # unknown dtype given for a known one
    ],
)
def test_other_kinds_of_mismatch(param, arg):
    with pytest.raises(ValueError, match="Argument 0 type mismatch: expected"):
        _call([param], [arg])


@pytest.mark.parametrize("count", [1, 3])
def test_wrong_arity_is_a_value_error(count):
    with pytest.raises(ValueError) as info:
        _call([F32_3, I64], [F32_3, I64, I64][:count])
    message = str(info.value)
    assert message.startswith("Number of arguments and parameters mismatch: Function f has type")
    assert f"accepts 2 parameters, but was called with {count} arguments ((a0" in message


def test_symbolic_parameters_bind_to_concrete_arguments():
    n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
    ret = _call([T((n, m), "float32")], [T((3, 4), "float32")], ret=T((m, n), "float32"))
    tvm.ir.assert_structural_equal(ret, T((4, 3), "float32"))
    # An expression of the callee's variables, or a caller's variable for a constant extent,
    # cannot be decided statically: accepted as TVM does.
    assert _call([T((n + 1,), "float32")], [T((3,), "float32")]) is not None
    k = tirx.Var("k", "int64")
    assert _call([F32_3], [T((k,), "float32")]) is not None
    assert _call([F32_3], [T(ndim=1, dtype="float32")]) is not None
    assert _call([relax.TupleType([T((n,), "float32")])], [relax.TupleType([F32_3])]) is not None
    assert _call([relax.ShapeType([n])], [relax.ShapeType([4])]) is not None


@pytest.mark.parametrize(
    "param, arg",
    [
        (T(ndim=-1, dtype=""), T((3, 4), "int8")),  # unknown dtype and rank accept any tensor
        (T(ndim=-1, dtype="void"), T((3, 4), "int8")),
        (T((3,), ""), T((3,), "int8")),
        (T(ndim=2, dtype="float32"), T((3, 4), "float32")),
        (relax.ObjectType(), F32_3),  # R.Object accepts anything
        (relax.ObjectType(), relax.TupleType([F32_3])),
        (relax.FuncType([F32_3], F32_3), relax.FuncType([F32_3], F32_3)),
    ],
)
def test_arguments_that_fit_are_accepted(param, arg):
    assert _call([param], [arg]) is not None


_MODULE = '''
@I.ir_module
class Mod:
    @R.function
    def f(s: R.Tensor((3,), "float32"), i: R.Prim("int64")) -> R.Tensor((3,), "float32"):
        return s

    @R.function
    def main(s: R.Tensor((3,), "float32"), i: R.Prim("int64")):
        y = Mod.f(CALL_ARGS)
        return y
'''


def _module(args):
    return from_source(_MODULE.replace("CALL_ARGS", args))


def test_tvmscript_global_call_with_swapped_arguments_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as info:
        _module("i, s")
    message = str(info.value)
    assert 'Argument 0 type mismatch: expected R.Tensor((3,), dtype="float32"), given ' \
        "T.int64" in message
    assert "in a call to f" in message
    assert "10 |          y = Mod.f(i, s)\n    |          ^^^^^^^^^^^^^^^" in message


def test_tvmscript_global_call_with_the_wrong_arity_is_a_diagnostic():
    with pytest.raises(DiagnosticError) as info:
        _module("s")
    message = str(info.value)
    assert 'Function I.GlobalVar("f") has type' in message
    assert "accepts 2 parameters, but was called with 1 arguments ((s,))" in message
    assert message.endswith("10 |          y = Mod.f(s)\n    |          ^^^^^^^^^^^^")


def test_tvmscript_callable_parameter_and_local_function_calls_are_checked():
    with pytest.raises(DiagnosticError) as info:
        from_source('''
@R.function
def main(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")),
         x: R.Tensor((3,), "int32")):
    z = f(x)
    return z
''')
    assert 'given R.Tensor((3,), dtype="int32") (in a call to f)' in str(info.value)
    assert "z = f(x)\n   |      ^^^^^^^^" in str(info.value)
    with pytest.raises(DiagnosticError) as info:
        from_source('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    @R.function
    def g(a: R.Tensor((3, 3), "float32")) -> R.Tensor((3, 3), "float32"):
        return a
    z = g(x)
    return z
''')
    assert 'expected R.Tensor((3, 3), dtype="float32"), given R.Tensor((3,), dtype="float32")' \
        in str(info.value)
    assert "z = g(x)\n   |      ^^^^^^^^" in str(info.value)


def test_tvmscript_accepted_calls_keep_their_types():
    mod = from_source('''
@I.ir_module
class Mod:
    @R.function
    def f(a: R.Tensor(("n",), "float32"), b: R.Object, c: R.Tensor(ndim=-1)) -> R.Tensor(
        ("n",), "float32"
    ):
        return a

    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((4, 5), "int8")):
        z = Mod.f(x, y, y)
        return z
''')
    tvm.ir.assert_structural_equal(mod["main"].ret_ty, F32_3)


def test_a_computed_callee_is_checked_too():
    fty = relax.FuncType([F32_3], F32_3)
    bb = relax.BlockBuilder()
    pair = relax.Var("pair", relax.TupleType([fty]))
    x = relax.Var("x", T((3,), "int32"))
    with bb.function("main", [pair, x]):
        with pytest.raises(ValueError) as info:
            bb.normalize(relax.Call(relax.TupleGetItem(pair, 0), [x]))
        bb.emit_func_output(x)
    message = str(info.value)
    # The normalizer binds the callee to a variable first; the message names that one.
    assert message.startswith(
        'Argument 0 type mismatch: expected R.Tensor((3,), dtype="float32"), given '
        'R.Tensor((3,), dtype="int32")'
    )


def test_tvmscript_nested_call_points_at_the_binding():
    with pytest.raises(DiagnosticError) as info:
        _module("R.add(s, s), s")
    assert "Argument 1 type mismatch: expected T.int64, given " in str(info.value)
    assert "y = Mod.f(R.add(s, s), s)" in str(info.value)
