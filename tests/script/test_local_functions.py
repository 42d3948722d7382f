"""TVMScript for local (nested) Relax functions: recursion, closures, symbolic variables.

The expected texts were printed by Apache TVM 0.27 for the same sources.
"""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.error import DiagnosticError
from tvm.ir import IRModule, assert_structural_equal
from tvm.relax import BindingBlock, Call, Function, If, SeqExpr, Var, VarBinding
from tvm.relax.ty import FuncType, TensorType
from tvm.script import from_source


def _lines(text):
    # TVM prints an indented blank line before a nested function; compare without trailing
    # blanks so the expected texts below carry no trailing whitespace.
    return [line.rstrip() for line in text.splitlines()]


RECURSIVE = '''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        @R.function
        def while_loop(
            i: R.Tensor((), "int32"), s: R.Tensor((2, 3), "float32")
        ) -> R.Tensor((2, 3), "float32"):
            cond: R.Tensor((), "bool") = R.less(i, R.const(10, "int32"))
            c: R.Tensor((), "int32") = R.const(1, "int32")
            if cond:
                new_i: R.Tensor((), "int32") = R.add(i, c)
                new_s: R.Tensor((2, 3), "float32") = R.add(s, x)
                r: R.Tensor((2, 3), "float32") = while_loop(new_i, new_s)
            else:
                r: R.Tensor((2, 3), "float32") = s
            return r

        gv: R.Tensor((2, 3), "float32") = while_loop(R.const(0, "int32"), x)
        return gv
'''

RECURSIVE_PRINTED = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        # from tvm.script import relax as R

        @R.function
        def while_loop(i: R.Tensor((), dtype="int32"), s: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
            cond: R.Tensor((), dtype="bool") = R.less(i, R.const(10, "int32"))
            c: R.Tensor((), dtype="int32") = R.const(1, "int32")
            if cond:
                new_i: R.Tensor((), dtype="int32") = R.add(i, c)
                new_s: R.Tensor((2, 3), dtype="float32") = R.add(s, x)
                r_then: R.Tensor((2, 3), dtype="float32") = while_loop(new_i, new_s)
                r: R.Tensor((2, 3), dtype="float32") = r_then
            else:
                r: R.Tensor((2, 3), dtype="float32") = s
            return r

        gv: R.Tensor((2, 3), dtype="float32") = while_loop(R.const(0, "int32"), x)
        return gv'''

RECURSIVE_LIFTED = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main_while_loop(i: R.Tensor((), dtype="int32"), s: R.Tensor((2, 3), dtype="float32"), x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        cond: R.Tensor((), dtype="bool") = R.less(i, R.const(10, "int32"))
        c: R.Tensor((), dtype="int32") = R.const(1, "int32")
        if cond:
            new_i: R.Tensor((), dtype="int32") = R.add(i, c)
            new_s: R.Tensor((2, 3), dtype="float32") = R.add(s, x)
            r_then: R.Tensor((2, 3), dtype="float32") = cls.main_while_loop(new_i, new_s, x)
            r: R.Tensor((2, 3), dtype="float32") = r_then
        else:
            r: R.Tensor((2, 3), dtype="float32") = s
        return r

    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        while_loop: R.Any = R.make_closure(cls.main_while_loop, (x,))
        gv: R.Tensor((2, 3), dtype="float32") = R.invoke_pure_closure(while_loop, (R.const(0, "int32"), x), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        return gv'''


def _while_loop(mod):
    return mod["main"].body.blocks[0].bindings[0]


def test_recursive_local_function_refers_to_its_own_binding_variable():
    mod = from_source(RECURSIVE)
    binding = _while_loop(mod)
    inner = binding.value
    assert isinstance(inner, Function)
    branch = inner.body.blocks[0].bindings[2].value.true_branch
    call = branch.blocks[0].bindings[2].value
    # The recursive call's callee is the variable the function is bound to (as in TVM) ...
    assert call.op is binding.var
    # ... typed by the annotated signature.
    t23, ti = TensorType([2, 3], "float32"), TensorType([], "int32")
    assert_structural_equal(binding.var.ty, FuncType([ti, t23], t23, True))
    relax.analysis.well_formed(mod)


def test_recursive_local_function_prints_as_tvm_and_round_trips():
    mod = from_source(RECURSIVE)
    text = mod.script()
    assert _lines(text) == _lines(RECURSIVE_PRINTED)
    # The blank line before the nested function is indented, as TVM prints it.
    assert "\n        \n        @R.function\n        def while_loop(" in text
    again = from_source(text)
    assert_structural_equal(again, mod)
    assert again.script() == text


def _ir_api_recursive():
    """RECURSIVE built with the IR API."""
    t23, ti = TensorType([2, 3], "float32"), TensorType([], "int32")
    x = Var("x", t23)
    loop = Var("while_loop", FuncType([ti, t23], t23))
    i, s = Var("i", ti), Var("s", t23)
    cond, c = Var("cond", TensorType([], "bool")), Var("c", ti)
    new_i, new_s = Var("new_i", ti), Var("new_s", t23)
    r_then, r = Var("r_then", t23), Var("r", t23)
    then = SeqExpr(
        [
            BindingBlock(
                [
                    VarBinding(new_i, relax.op.add(i, c)),
                    VarBinding(new_s, relax.op.add(s, x)),
                    VarBinding(r_then, Call(loop, [new_i, new_s])),
                ]
            )
        ],
        r_then,
    )
    body = SeqExpr(
        [
            BindingBlock(
                [
                    VarBinding(cond, relax.op.less(i, relax.const(10, "int32"))),
                    VarBinding(c, relax.const(1, "int32")),
                    VarBinding(r, If(cond, then, SeqExpr([], s))),
                ]
            )
        ],
        r,
    )
    gv = Var("gv", t23)
    inner = Function([i, s], body, t23).with_attr("global_symbol", "while_loop")
    main = Function(
        [x],
        SeqExpr(
            [
                BindingBlock(
                    [
                        VarBinding(loop, inner),
                        VarBinding(gv, Call(loop, [relax.const(0, "int32"), x])),
                    ]
                )
            ],
            gv,
        ),
        t23,
    ).with_attr("global_symbol", "main")
    return relax.transform.Normalize()(IRModule({"main": main}))


def test_recursive_local_function_equals_the_ir_api_build():
    assert_structural_equal(from_source(RECURSIVE), _ir_api_recursive())


def test_lambda_lift_of_the_parsed_recursive_function_matches_tvm():
    lifted = relax.transform.LambdaLift()(from_source(RECURSIVE))
    relax.analysis.well_formed(lifted)
    assert _lines(lifted.script()) == _lines(RECURSIVE_LIFTED)
    assert_structural_equal(from_source(lifted.script()), lifted)


SUM = '''
@I.ir_module
class Module:
    @R.function
    def main(n: R.Tensor((), "int64"), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        @R.function
        def total(
            i: R.Tensor((), "int64"), acc: R.Tensor((3,), "float32")
        ) -> R.Tensor((3,), "float32"):
            if R.greater(i, R.const(0, "int64")):
                step = R.multiply(x, R.astype(i, "float32"))
                r = total(R.subtract(i, R.const(1, "int64")), R.add(acc, step))
            else:
                r = acc
            return r

        out = total(n, R.zeros((3,), "float32"))
        return out
'''

SUM_LIFTED_TAIL = '''    @R.function
    def main(n: R.Tensor((), dtype="int64"), x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        total: R.Any = R.make_closure(cls.main_total, (x,))
        gv: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
        out: R.Tensor((3,), dtype="float32") = R.invoke_pure_closure(total, (n, gv), ty_args=(R.Tensor((3,), dtype="float32"),))
        return out'''


def test_recursive_sum_prints_as_tvm():
    mod = from_source(SUM)
    text = mod.script()
    # A computed condition is bound just before the if, with the next automatic name; the
    # binding of a recursive function takes none (TVM's names).
    assert '            gv6: R.Tensor((), dtype="bool") = R.greater(i, R.const(0, "int64"))\n' \
        "            if gv6:\n" in text
    assert '        gv: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")' \
        in text
    assert_structural_equal(from_source(text), mod)
    lifted = relax.transform.LambdaLift()(mod).script()
    assert lifted.endswith(SUM_LIFTED_TAIL)
    assert "r_then: R.Tensor((3,), dtype=\"float32\") = cls.main_total(gv2, gv3, x)" in lifted


def test_recursive_local_function_runs_on_the_vm():
    ex = relax.build(from_source(SUM), target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.array([1.0, 2.0, 0.5], "float32")
    for n in (0, 1, 6):
        out = vm["main"](tvm.runtime.tensor(np.array(n, "int64")), tvm.runtime.tensor(x))
        np.testing.assert_allclose(out.numpy(), x * sum(range(n + 1)))


def _recursive_source(call, ret=' -> R.Tensor((2, 3), "float32")'):
    return f'''
@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    @R.function
    def f(i: R.Tensor((), "int32"), s: R.Tensor((2, 3), "float32")){ret}:
        cond = R.less(i, R.const(10, "int32"))
        if cond:
            r = {call}
        else:
            r = s
        return r
    gv = f(R.const(0, "int32"), x)
    return gv
'''


def test_recursive_call_with_the_wrong_arity_is_a_diagnostic():
    with pytest.raises(DiagnosticError, match="Function f has type .* and accepts 2 parameters, "
                                              "but was called with 1 arguments") as info:
        from_source(_recursive_source('f(R.add(i, R.const(1, "int32")))'))
    assert "r = f(R.add(i, R.const(1, \"int32\")))" in str(info.value)


def test_recursive_function_without_return_annotation_is_a_diagnostic():
    # TVM 0.27 types the recursive call as an empty tuple here and reports an ill-formed
    # program; the error here says what to add.
    with pytest.raises(DiagnosticError, match="The local function f calls itself, so it needs a "
                                              "return type annotation"):
        from_source(_recursive_source("f(i, s)", ret=""))


def test_a_parameter_named_like_its_function_shadows_it():
    mod = from_source('''
@R.function
def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
    @R.function
    def f(f: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return R.add(f, f)
    gv = f(x)
    return gv
''')
    inner = mod.body.blocks[0].bindings[0].value
    assert inner.body.blocks[0].bindings[0].value.args[0] is inner.params[0]


def test_non_recursive_local_functions_are_bound_as_before():
    mod = from_source(_recursive_source("R.add(s, x)", ret=""))
    binding = mod.body.blocks[0].bindings[0]
    # Without a recursive use the variable takes the function's inferred type.
    assert_structural_equal(binding.var.ty, binding.value.ty)


# --- if: conditions and symbolic variables ----------------------------------------------------

SYMBOLIC_IF = '''
@R.function
def f(c: R.Tensor((), "bool"), x: R.Tensor(ndim=1, dtype="float32"), z: R.Tensor(ndim=1, dtype="float32")):
    n = T.int64()
    k = T.int64()
    y = R.match_cast(x, R.Tensor((n,), "float32"))
    w: R.Tensor((k,), "float32") = R.add(z, z)
    if c:
        r = R.add(y, y)
    else:
        r = y
    if c:
        q = R.add(w, w)
    else:
        q = w
    return (r, q)
'''

SYMBOLIC_IF_BODY = '''    if c:
        r_then: R.Tensor((n,), dtype="float32") = R.add(y, y)
        r: R.Tensor((n,), dtype="float32") = r_then
    else:
        r: R.Tensor((n,), dtype="float32") = y
    if c:
        q_then: R.Tensor((k,), dtype="float32") = R.add(w, w)
        q: R.Tensor(dtype="float32", ndim=1) = q_then
    else:
        q: R.Tensor(dtype="float32", ndim=1) = w
    return (r, q)'''


def test_an_if_keeps_the_symbolic_variables_its_function_defines():
    # n comes from a match_cast: kept; k is only declared: erased (TVM's types).
    mod = from_source(SYMBOLIC_IF, check_well_formed=False)
    text = mod.script()
    assert text.endswith(SYMBOLIC_IF_BODY)
    signature = from_source('''
@R.function
def f(i: R.Tensor((), "int32"), s: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
    if R.less(i, R.const(10, "int32")):
        r = R.add(s, s)
    else:
        r = s
    return r
''')
    assert 'r: R.Tensor((m,), dtype="float32") = r_then' in signature.script()


# --- printer: symbolic variable names ---------------------------------------------------------


def test_signature_symbolic_names_belong_to_their_function():
    mod = from_source('''
@I.ir_module
class Module:
    @R.function
    def a_fn(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        return x
    @R.function
    def b_fn(n: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        m = R.add(n, n)
        return m
    @R.function
    def c_fn(y: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        n = T.int64()
        z = R.match_cast(y, R.Tensor((n,), "float32"))
        return y
''')
    text = mod.script()
    # As TVM 0.27 prints it: n and m are free again after a_fn and c_fn.
    assert 'n = TypeVar("n")\nm = TypeVar("m")\n' in text
    assert '    def b_fn(n: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):\n' \
        '        m: R.Tensor((3,), dtype="float32") = R.add(n, n)\n' in text
    assert '        n = T.int64()\n        z: R.Tensor((n,), dtype="float32") = R.match_cast(' \
        in text
    assert_structural_equal(from_source(text), mod)


def test_an_outer_symbolic_name_is_still_taken_in_a_nested_function():
    text = from_source('''
@R.function
def main(x: R.Tensor(("n",), "float32")):
    n = T.int64()
    @R.function
    def g(n: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return n
    return g
''').script()
    assert '    def g(n_1: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):\n' \
        "        return n_1" in text


def test_a_lifted_symbolic_capture_prints_under_its_own_name():
    mod = from_source('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor((4,), "float32")):
        n = T.int64()
        @R.function
        def g(a: R.Tensor((4,), "float32")):
            b = R.add(a, a)
            return (b, R.shape([n * 2]))
        r = g(y)
        return r
''')
    text = relax.transform.LambdaLift()(mod).script()
    # TVM 0.27 prints the lifted parameter as ``n: T.int64`` (was ``n_1`` here).
    assert (
        '    def main_g(a: R.Tensor((4,), dtype="float32"), n: T.int64) -> '
        'R.Tuple(R.Tensor((4,), dtype="float32"), R.Shape(ndim=1)):\n'
        '        b: R.Tensor((4,), dtype="float32") = R.add(a, a)\n'
        "        return (b, R.shape([n * 2]))"
    ) in text
    assert "        g: R.Any = R.make_closure(cls.main_g, (n,))" in text


# --- closures ---------------------------------------------------------------------------------

CLOSURES = '''
@I.ir_module
class Module:
    @R.function(private=True)
    def lifted(x: R.Tensor((2, 3), "float32"), c: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        s = R.add(x, c)
        return s

    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        clo = R.make_closure(cls.lifted, (x,))
        a = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((2, 3), "float32"),))
        b: R.Tensor((2, 3), "float32") = R.invoke_closure(clo, (a,), ty_args=R.Tensor((2, 3), "float32"))
        c = R.invoke_pure_closure(clo, (b,), ty_args=[R.Tensor((2, 3), "float32"), R.Tensor((2, 3), "float32")])
        return b
'''

CLOSURES_MAIN = '''    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        cls = Module
        clo: R.Any = R.make_closure(cls.lifted, (x,))
        a: R.Tensor((2, 3), dtype="float32") = R.invoke_pure_closure(clo, (x,), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        b: R.Tensor((2, 3), dtype="float32") = R.invoke_closure(clo, (a,), ty_args=(R.Tensor((2, 3), dtype="float32"),))
        c: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")) = R.invoke_pure_closure(clo, (b,), ty_args=(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32")))
        return b'''


def test_closure_ops_print_as_tvm_and_round_trip():
    mod = from_source(CLOSURES)
    text = mod.script()
    assert text.endswith(CLOSURES_MAIN)
    again = from_source(text)
    assert_structural_equal(again, mod)
    assert again.script() == text
    bindings = mod["main"].body.blocks[0].bindings
    assert [b.value.op.name for b in bindings] == [
        "relax.make_closure", "relax.invoke_pure_closure", "relax.invoke_closure",
        "relax.invoke_pure_closure",
    ]
    assert isinstance(bindings[3].var.ty, relax.TupleType)


# --- symbolic variables of local function signatures -------------------------------------------

NESTED_SIGNATURE_VARS = '''
@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    @R.function
    def f(s: R.Tensor(("n",), "float32"), t: R.Tensor(("b", "a"), "float32")) -> R.Tensor(("n",), "float32"):
        return s
    r = f(x, R.zeros((2, 3), "float32"))
    return r
'''

NESTED_SIGNATURE_VARS_PRINTED = '''# from typing import TypeVar
# from tvm.script import relax as R

n = TypeVar("n")
@R.function
def main(x: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
    # from typing import TypeVar
    # from tvm.script import relax as R

    a = TypeVar("a")
    b = TypeVar("b")
    n_1 = TypeVar("n_1")
    @R.function
    def f(s: R.Tensor((n_1,), dtype="float32"), t: R.Tensor((b, a), dtype="float32")) -> R.Tensor((n_1,), dtype="float32"):
        return s

    gv1: R.Tensor((2, 3), dtype="float32") = R.zeros(R.shape([2, 3]), dtype="float32")
    r: R.Tensor((n,), dtype="float32") = f(x, gv1)
    return r'''


def test_a_local_function_declares_its_signature_variables_before_its_def():
    # TVM 0.27's form: TypeVars in the enclosing body, fresh names (the local ``"n"`` is a new
    # variable, printed n_1).
    mod = from_source(NESTED_SIGNATURE_VARS)
    text = mod.script()
    assert _lines(text) == _lines(NESTED_SIGNATURE_VARS_PRINTED)
    again = from_source(text)
    assert_structural_equal(again, mod)
    assert again.script() == text


def test_a_local_signature_name_declared_by_the_enclosing_body_is_that_variable():
    mod = from_source('''
@R.function
def f(c: R.Tensor((), "bool"), x: R.Tensor(("n",), "float32")):
    n = T.int64()
    @R.function
    def g(c: R.Tensor((), "bool")) -> R.Tensor(("n",), "float32"):
        if c:
            r = R.add(x, x)
        else:
            r = x
        return r
    return g(c)
''')
    g = mod.body.blocks[0].bindings[0].value
    assert g.ret_ty.shape.values[0] is mod.params[1].ty.shape.values[0]
    text = mod.script()
    # As TVM prints it: no TypeVar of its own, the if's type erases the outer n.
    assert '    def g(c_1: R.Tensor((), dtype="bool")) -> R.Tensor((n,), dtype="float32"):\n' \
        "        if c_1:\n" in text
    assert '            r: R.Tensor(dtype="float32", ndim=1) = r_then' in text


def test_signature_variables_of_one_name_get_fresh_names():
    text = from_source('''
@R.function
def main(x: R.Tensor((3,), "float32")):
    @R.function
    def g(a: R.Tensor(("m", "k"), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        return b
    @R.function
    def h(a: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        return a
    return (g, h)
''').script()
    # Apache TVM 0.27's text: the return type of main names them first.
    assert 'k = TypeVar("k")\nm = TypeVar("m")\nm_1 = TypeVar("m_1")\n@R.function\n' in text
    assert '    def h(a: R.Tensor((m_1,), dtype="float32")) -> R.Tensor((m_1,), dtype="float32"):' \
        in text
    assert "    # from typing import TypeVar" not in text


# --- more recursion -----------------------------------------------------------------------------

_COUNTDOWN = '''
            if R.greater(i, R.const(0, "int64")):
                r = f(R.subtract(i, R.const(1, "int64")), R.add(s, {step}))
            else:
                r = s
            return r
'''


def test_an_impure_recursive_local_function_keeps_its_purity():
    # TVM 0.27 types the recursive reference as pure and rejects this program as ill-formed;
    # here the reference carries the function's purity.
    mod = from_source('''
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function(pure=False)
        def f(i: R.Tensor((), "int64"), s: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            R.print(s, format="{}")''' + _COUNTDOWN.format(step="s") + '''
        gv = f(R.const(3, "int64"), x)
        return gv
''')
    binding = mod["main"].body.blocks[0].bindings[0]
    assert binding.var.ty.purity is False
    relax.analysis.well_formed(mod)
    lifted = relax.transform.LambdaLift()(mod)
    text = lifted.script()
    assert "    @R.function(pure=False, private=True)\n    def main_f(" in text
    assert "r_then: R.Tensor((2,), dtype=\"float32\") = cls.main_f(gv1, gv2)" in text
    assert_structural_equal(from_source(text), lifted)


def test_recursion_in_a_function_nested_twice_lifts_as_in_tvm():
    mod = from_source('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function
        def outer(y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            @R.function
            def f(i: R.Tensor((), "int64"), s: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):''' + _COUNTDOWN.format(step="y").replace("\n    ", "\n        ") + '''
            z = f(R.const(2, "int64"), y)
            return z
        gv = outer(x)
        return gv
''')
    text = relax.transform.LambdaLift()(mod).script()
    # Apache TVM 0.27 prints the same lines.
    assert "            r_then: R.Tensor((2,), dtype=\"float32\") = cls.main_f(gv, gv1, y)" in text
    assert "        f: R.Any = R.make_closure(cls.main_f, (y,))" in text
    assert "        gv: R.Tensor((2,), dtype=\"float32\") = cls.main_outer(x)" in text


def test_a_capture_free_recursive_function_used_as_a_value():
    mod = from_source('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        @R.function
        def f(i: R.Tensor((), "int64"), s: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):''' + _COUNTDOWN.format(step="s") + '''
        return (f, f(R.const(1, "int64"), x))
''')
    text = relax.transform.LambdaLift()(mod).script()
    # As TVM 0.27 prints it: the function becomes a global reference everywhere.
    assert "        return (cls.main_f, gv)" in text
    assert "r_then: R.Tensor((2,), dtype=\"float32\") = cls.main_f(gv, gv1)" in text
