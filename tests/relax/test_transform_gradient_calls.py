"""Gradient through calls between Relax functions (``cls.helper(x)``): inlined, then swept.

Apache TVM 0.27 treats such a call as constant and returns zero adjoints for what flows
through it; pytvm differentiates the callee. Every case is checked against central finite
differences, through the reference evaluator and through compiled code.
"""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.testing import ReferenceEvaluator
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.testing import check_numerical_grads


def _check_fd(mod, *inputs, compiled=False):
    """The adjoints of ``main`` match finite differences of ``main`` (float64 inputs)."""
    mod = relax.transform.Gradient("main")(mod)
    if compiled:
        ex = relax.build(mod, "llvm")
        vm = relax.VirtualMachine(ex, tvm.cpu())

        def run(name, *args):
            return vm[name](*[tvm.runtime.tensor(a) for a in args])

        def forward(*args):
            return run("main", *args).numpy()

        value, grads = run("main_adjoint", *inputs)
        grads = [g.numpy() for g in grads]
        value = value.numpy()
    else:
        ev = ReferenceEvaluator(mod)

        def forward(*args):
            return np.asarray(ev.run("main", *args))

        value, grads = ev.run("main_adjoint", *inputs)
        grads = [np.asarray(g) for g in grads]
        value = np.asarray(value)
    np.testing.assert_allclose(value, forward(*inputs), rtol=1e-6)
    assert all(np.any(g != 0) for g in grads), "a non-zero slope came out as zeros"
    check_numerical_grads(forward, list(inputs), grads, delta=1e-4, atol=1e-6, rtol=1e-4)
    return mod


@I.ir_module
class Helper:
    @R.function
    def helper(u: R.Tensor(("n",), "float64")) -> R.Tensor(("n",), "float64"):
        with R.dataflow():
            e = R.exp(u)
            z = R.multiply(e, u)
            R.output(z)
        return z

    @R.function
    def main(x: R.Tensor((4,), "float64"), w: R.Tensor((4,), "float64")):
        cls = Helper
        with R.dataflow():
            lv = R.multiply(x, w)
            lv1 = cls.helper(lv)
            gv = R.sum(lv1)
            R.output(gv)
        return gv


def _inputs(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, size=s).astype("float64") for s in shapes]


@pytest.mark.parametrize("compiled", [False, True], ids=["evaluator", "compiled"])
def test_helper_call_is_differentiated(compiled):
    x, w = _inputs((4,), (4,))
    _check_fd(Helper, x, w, compiled=compiled)


def test_helper_call_adjoint_matches_inlined_model():
    """The adjoint equals the adjoint of the same model written without the helper."""

    @I.ir_module
    class Flat:
        @R.function
        def main(x: R.Tensor((4,), "float64"), w: R.Tensor((4,), "float64")):
            with R.dataflow():
                lv = R.multiply(x, w)
                e = R.exp(lv)
                z = R.multiply(e, lv)
                lv1 = z
                gv = R.sum(lv1)
                R.output(gv)
            return gv

    got = relax.transform.Gradient("main")(Helper)["main_adjoint"]
    want = relax.transform.Gradient("main")(Flat)["main_adjoint"]
    assert_structural_equal(got, want)


def test_nested_and_repeated_calls():
    """A helper calling a helper, and one helper called twice (each call gets its own copy)."""

    @I.ir_module
    class Mod:
        @R.function
        def inner(a: R.Tensor((2, 3), "float64")) -> R.Tensor((2, 3), "float64"):
            with R.dataflow():
                t = R.tanh(a)
                R.output(t)
            return t

        @R.function
        def outer(a: R.Tensor((2, 3), "float64"), b: R.Tensor((2, 3), "float64")):
            cls = Mod
            with R.dataflow():
                s = cls.inner(a)
                p = R.multiply(s, b)
                R.output(p)
            return p

        @R.function
        def main(x: R.Tensor((2, 3), "float64"), w: R.Tensor((2, 3), "float64")):
            cls = Mod
            with R.dataflow():
                h1 = cls.outer(x, w)
                h2 = cls.outer(h1, x)
                gv = R.sum(h2)
                R.output(gv)
            return gv

    x, w = _inputs((2, 3), (2, 3), seed=1)
    after = _check_fd(Mod, x, w)
    calls = [
        b for b in after["main_adjoint"].body.blocks[0].bindings
        if type(getattr(b.value, "op", None)).__name__ == "GlobalVar"
    ]
    assert calls == [], "every call of a module function is inlined in the adjoint"


def test_helper_returning_tuple_and_matmul():
    @I.ir_module
    class Mod:
        @R.function
        def layer(h: R.Tensor((3, 4), "float64"), w: R.Tensor((4, 2), "float64")):
            with R.dataflow():
                y = R.matmul(h, w)
                r = R.nn.relu(y)
                s = R.sigmoid(y)
                out = (r, s)
                R.output(out)
            return out

        @R.function
        def main(x: R.Tensor((3, 4), "float64"), w: R.Tensor((4, 2), "float64")):
            cls = Mod
            with R.dataflow():
                t = cls.layer(x, w)
                a = t[0]
                b = t[1]
                c = R.multiply(a, b)
                gv = R.sum(c)
                R.output(gv)
            return gv

    x, w = _inputs((3, 4), (4, 2), seed=2)
    _check_fd(Mod, x, w, compiled=True)


def test_recursion_is_an_error_naming_the_cycle():
    @I.ir_module
    class Mod:
        @R.function
        def f(a: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Mod
            with R.dataflow():
                b = cls.g(a)
                R.output(b)
            return b

        @R.function
        def g(a: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Mod
            with R.dataflow():
                b = cls.f(a)
                R.output(b)
            return b

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            cls = Mod
            with R.dataflow():
                lv = cls.f(x)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    with pytest.raises(ValueError, match=r"recursive \(f -> g -> f\)"):
        relax.transform.Gradient("main")(Mod)


def test_helper_with_control_flow():
    """A helper that branches is inlined; the adjoint takes the control-flow path."""

    @I.ir_module
    class Mod:
        @R.function
        def f(a: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")):
            if c:
                r = R.exp(a)
            else:
                r = R.negative(a)
            return r

        @R.function
        def main(x: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")):
            cls = Mod
            with R.dataflow():
                lv = cls.f(x, c)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    (x,) = _inputs((3,), seed=3)
    for flag, slope in ((True, np.exp(x)), (False, -np.ones(3))):
        after = relax.transform.Gradient("main", require_grads=Mod["main"].params[0])(Mod)
        _value, (gx,) = ReferenceEvaluator(after).run("main_adjoint", x, np.array(flag))
        np.testing.assert_allclose(np.asarray(gx), slope, rtol=1e-12)


def test_closure_call_on_the_path_is_an_error_not_zeros():
    """A call of a function held in a variable has no known derivative: an error, not zeros."""

    @R.function
    def main(
        x: R.Tensor((3,), "float32"),
        f: R.Callable([R.Tensor((3,), "float32")], R.Tensor((3,), "float32")),
    ):
        with R.dataflow():
            y = f(x)
            gv = R.sum(y)
            R.output(gv)
        return gv

    mod = tvm.IRModule({"main": main})
    with pytest.raises(ValueError, match=r"bound to y: its callee f \(Var\)"):
        relax.transform.Gradient("main", require_grads=main.params[0])(mod)


def test_symbolic_helper_dims_take_the_argument_shape():
    """``helper(u: R.Tensor(("n",)))`` called with a (4,) tensor: the inlined types say 4."""
    after = relax.transform.Gradient("main")(Helper)
    for binding in after["main_adjoint"].body.blocks[0].bindings:
        shape = getattr(binding.var.ty, "shape", None)
        values = getattr(shape, "values", None) or ()
        assert all(isinstance(v, tvm.tirx.IntImm) for v in values), binding.var


def test_unused_helper_result_does_not_need_a_rule():
    """A helper whose value does not reach the target is inlined but not swept."""

    @I.ir_module
    class Mod:
        @R.function
        def side(a: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            with R.dataflow():
                b = R.floor(a)
                R.output(b)
            return b

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            cls = Mod
            with R.dataflow():
                unused = cls.side(x)  # noqa: F841 - TVMScript binds it
                gv = R.sum(R.exp(x))
                R.output(gv)
            return gv

    after = relax.transform.Gradient("main")(Mod)
    (gx,) = ReferenceEvaluator(after).run("main_adjoint", np.ones(3, "float32"))[1]
    np.testing.assert_allclose(np.asarray(gx), np.exp(np.ones(3)), rtol=1e-6)


def test_call_inside_a_branch_is_inlined():
    @I.ir_module
    class Mod:
        @R.function
        def sq(a: R.Tensor((3,), "float64")) -> R.Tensor((3,), "float64"):
            with R.dataflow():
                b = R.multiply(a, a)
                R.output(b)
            return b

        @R.function
        def main(x: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")):
            cls = Mod
            if c:
                r = cls.sq(x)
            else:
                r = R.exp(x)
            gv = R.sum(r)
            return gv

    (x,) = _inputs((3,), seed=4)
    after = relax.transform.Gradient("main", require_grads=Mod["main"].params[0])(Mod)
    ev = ReferenceEvaluator(after)
    for flag, slope in ((True, 2 * x), (False, np.exp(x))):
        _value, (gx,) = ev.run("main_adjoint", x, np.array(flag))
        np.testing.assert_allclose(np.asarray(gx), slope, rtol=1e-12)
