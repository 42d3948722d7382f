"""Gradient of functions Apache TVM 0.27 rejects: ``R.If`` (nested too), several blocks,
bindings outside dataflow. Each case is checked against central finite differences of the
forward function, for both values of every predicate, through the reference evaluator and
compiled code.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import ReferenceEvaluator
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.testing import check_numerical_grads


def _runner(mod, compiled):
    if compiled:
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())

        def run(name, *args):
            out = vm[name](*[tvm.runtime.tensor(np.asarray(a)) for a in args])
            return out

        def as_np(value):
            if isinstance(value, tvm.runtime.Tensor):
                return value.numpy()
            return [as_np(v) for v in value]

        return lambda name, *args: as_np(run(name, *args))
    ev = ReferenceEvaluator(mod)

    def run_ev(name, *args):
        def as_np(value):
            if isinstance(value, (tuple, list)):
                return [as_np(v) for v in value]
            return np.asarray(value)

        return as_np(ev.run(name, *args))

    return run_ev


def _check(mod, inputs, flags, n_grads, compiled=False):
    """Adjoints of the first ``n_grads`` params match finite differences, for every flag."""
    params = mod["main"].params
    after = relax.transform.Gradient("main", require_grads=params[:n_grads])(mod)
    relax.analysis.well_formed(after)
    run = _runner(after, compiled)
    for values in itertools.product((True, False), repeat=flags):
        flag_args = [np.array(v) for v in values]

        def forward(*xs, flag_args=flag_args):
            return np.asarray(run("main", *xs, *flag_args))

        value, grads = run("main_adjoint", *inputs, *flag_args)
        np.testing.assert_allclose(value, forward(*inputs), rtol=1e-10)
        check_numerical_grads(forward, list(inputs), list(grads), delta=1e-5, atol=1e-7,
                              rtol=1e-5)
    return after


def _inputs(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1.0, 1.0, size=s) for s in shapes]


@I.ir_module
class OneIf:
    @R.function
    def main(
        x: R.Tensor((3,), "float64"), w: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")
    ):
        with R.dataflow():
            a = R.multiply(x, w)
            R.output(a)
        if c:
            d = R.exp(a)
            r = R.multiply(d, x)
        else:
            r = R.tanh(w)
        gv = R.sum(r)
        return gv


@pytest.mark.parametrize("compiled", [False, True], ids=["evaluator", "compiled"])
def test_if(compiled):
    _check(OneIf, _inputs((3,), (3,)), flags=1, n_grads=2, compiled=compiled)


def test_if_adjoint_branches_on_the_same_predicate():
    after = relax.transform.Gradient("main", require_grads=OneIf["main"].params[:2])(OneIf)
    ifs = [b for block in after["main_adjoint"].body.blocks for b in block.bindings
           if isinstance(b.value, relax.If)]
    assert len(ifs) == 2  # the forward branch and its backward twin
    assert all(b.value.cond.same_as(after["main_adjoint"].params[2]) for b in ifs)


def test_branch_not_reading_a_variable_gives_it_zeros():
    """``x`` is read by one branch only: in the other its slope is exactly zero."""
    after = relax.transform.Gradient("main", require_grads=OneIf["main"].params[:2])(OneIf)
    x, w = _inputs((3,), (3,), seed=1)
    _value, (gx, _gw) = ReferenceEvaluator(after).run("main_adjoint", x, w, np.array(False))
    np.testing.assert_array_equal(np.asarray(gx), np.zeros(3))


@I.ir_module
class NestedIf:
    @R.function
    def main(
        x: R.Tensor((2, 3), "float64"),
        w: R.Tensor((3, 2), "float64"),
        c1: R.Tensor((), "bool"),
        c2: R.Tensor((), "bool"),
    ):
        h = R.matmul(x, w)
        if c1:
            k = R.sin(h)  # local to the branch, read by the inner If
            if c2:
                g = R.sigmoid(k)
            else:
                g = R.multiply(k, h)
            r = R.add(g, h)
        else:
            r = R.exp(h)
        s = R.sum(r)
        return s


@pytest.mark.parametrize("compiled", [False, True], ids=["evaluator", "compiled"])
def test_nested_if(compiled):
    _check(NestedIf, _inputs((2, 3), (3, 2), seed=2), flags=2, n_grads=2, compiled=compiled)


def test_several_blocks_and_bindings_outside_dataflow():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float64"), y: R.Tensor((4,), "float64")):
            with R.dataflow():
                a = R.exp(x)
                R.output(a)
            b = R.multiply(a, y)
            with R.dataflow():
                c = R.tanh(b)
                d = R.sum(c)
                R.output(d)
            return d

    after = _check(Mod, _inputs((4,), (4,), seed=3), flags=0, n_grads=2, compiled=True)
    blocks = after["main_adjoint"].body.blocks
    # No control flow: the pure adjoint is regrouped into one dataflow block.
    assert len(blocks) == 1 and isinstance(blocks[0], relax.DataflowBlock)


def test_no_dataflow_block():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float64")):
            gv = R.sum(R.sin(x))
            return gv

    _check(Mod, _inputs((3,), seed=4), flags=0, n_grads=1)


def test_tuple_valued_if():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")):
            if c:
                t = (R.exp(x), R.sin(x))
            else:
                t = (x, R.cos(x))
            p = R.multiply(t[0], t[1])
            gv = R.sum(p)
            return gv

    _check(Mod, _inputs((3,), seed=5), flags=1, n_grads=1, compiled=True)


def test_checkpoint_markers_around_an_if():
    """Checkpoint markers in a function with an If: the If's value is kept, the rest works."""

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")):
            with R.dataflow():
                x_cp = R.grad.start_checkpoint(x)
                a = R.exp(x_cp)
                b = R.multiply(a, a)
                b_cp = R.grad.end_checkpoint(b)
                R.output(b_cp)
            if c:
                r = R.sin(b_cp)
            else:
                r = R.multiply(b_cp, x)
            gv = R.sum(r)
            return gv

    _check(Mod, _inputs((3,), seed=6), flags=1, n_grads=1)


def test_single_dataflow_block_output_unchanged():
    """Functions TVM accepts keep TVM's adjoint: one dataflow block, no regrouping."""

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.exp(x)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    adjoint = relax.transform.Gradient("main")(Mod)["main_adjoint"]
    names = [b.var.name_hint for b in adjoint.body.blocks[0].bindings]
    assert len(adjoint.body.blocks) == 1
    assert names == ["lv", "gv", "gv_adjoint", "lv_adjoint", "x_adjoint", "x_adjoint_out"]


@I.ir_module
class Deep:
    @R.function
    def main(
        x: R.Tensor((16, 16), "float64"), w: R.Tensor((16, 16), "float64"), c: R.Tensor((), "bool")
    ):
        with R.dataflow():
            a = R.tanh(R.matmul(x, w))
            b = R.tanh(R.matmul(a, w))
            R.output(b)
        if c:
            r = R.sigmoid(b)
        else:
            r = R.exp(b)
        with R.dataflow():
            d = R.tanh(R.matmul(r, w))
            gv = R.sum(d)
            R.output(gv)
        return gv


def test_checkpoint_to_budget_around_an_if():
    """CheckpointToBudget places markers in a branching function; the adjoint keeps what
    the estimate says, recomputes the rest, and its values do not change."""
    budget = 16 * 16 * 8  # one 16x16 float64 tensor
    before = relax.analysis.estimate_kept_bytes(Deep["main"])
    after_mod = relax.transform.CheckpointToBudget(budget)(Deep)
    kept = relax.analysis.estimate_kept_bytes(after_mod["main"])
    assert kept <= budget < before
    plain = _check(Deep, _inputs((16, 16), (16, 16), seed=7), flags=1, n_grads=2)
    ckpt = _check(after_mod, _inputs((16, 16), (16, 16), seed=7), flags=1, n_grads=2)
    # The checkpointed adjoint recomputes forward values (``*_cp``); the plain one does not.
    names = lambda m: [b.var.name_hint for blk in m["main_adjoint"].body.blocks
                       for b in blk.bindings]
    assert not any(n.endswith("_cp") for n in names(plain))
    assert any(n.endswith("_cp") for n in names(ckpt))


def _random_model(m, n, k):
    """``sum(branch(x @ w))`` with a helper call in one branch, built for the given shapes."""
    f64 = "float64"
    a = relax.Var("a", relax.TensorType((m, n), f64))
    bb = relax.BlockBuilder()
    with bb.function("helper", [a]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.multiply(relax.op.tanh(a), a))
        bb.emit_func_output(out)
    helper = bb.get().get_global_var("helper")
    x = relax.Var("x", relax.TensorType((m, k), f64))
    w = relax.Var("w", relax.TensorType((k, n), f64))
    c = relax.Var("c", relax.TensorType((), "bool"))
    with bb.function("main", [x, w, c]):
        with bb.dataflow():
            h = bb.emit_output(relax.op.matmul(x, w))
        then_branch = relax.SeqExpr([], relax.Call(helper, [h]))
        else_branch = relax.SeqExpr([], relax.op.exp(h))
        r = bb.emit(relax.If(c, then_branch, else_branch))
        with bb.dataflow():
            loss = bb.emit_output(relax.op.sum(relax.op.sigmoid(r)))
        bb.emit_func_output(loss)
    return bb.get()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_shapes(seed):
    """Random shapes, both predicates, evaluator and compiled: adjoints and JVPs match finite
    differences."""
    rng = np.random.default_rng(100 + seed)
    m, n, k = (int(v) for v in rng.integers(1, 6, size=3))
    mod = _random_model(m, n, k)
    inputs = [rng.uniform(-0.5, 0.5, size=(m, k)), rng.uniform(-0.5, 0.5, size=(k, n))]
    _check(mod, inputs, flags=1, n_grads=2, compiled=bool(seed % 2))
    fwd = relax.transform.ForwardGradient("main", require_grads=mod["main"].params[:2])(mod)
    ev = ReferenceEvaluator(fwd)
    tangents = [rng.standard_normal(np.shape(v)) for v in inputs]
    for flag in (True, False):
        _value, tangent = ev.run("main_jvp", *inputs, np.array(flag), *tangents)
        eps = 1e-6
        moved = [np.asarray(ev.run("main", *[v + s * eps * u for v, u in zip(inputs, tangents)],
                                   np.array(flag))) for s in (1, -1)]
        np.testing.assert_allclose(np.asarray(tangent), (moved[0] - moved[1]) / (2 * eps),
                                   rtol=1e-5, atol=1e-8)
