"""Checkpointing (spec F.4): the builders, same gradients as without checkpoints, and fewer
forward values kept for the backward pass."""

import numpy as np
import pytest

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.testing import ReferenceEvaluator, nn
from tvm.script import ir as I
from tvm.script import relax as R


def _x(shape=(3, 3)):
    return relax.Var("x", relax.TensorType(list(shape), "float32"))


def test_emit_checkpoint_and_sequential_builders():
    """The bindings and names TVM 0.27 emits (``_scp``/``_ecp``, segments [0, 2), [2, 4))."""
    x = _x()
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.exp(x))
            out = nn.emit_checkpoint(lambda v: relax.op.multiply(v, v), lv)
            fns = [relax.op.exp, relax.op.sin, relax.op.cos, relax.op.tanh]
            out = nn.emit_checkpoint_sequential(fns, 2, out)
            gv = bb.emit_output(relax.op.sum(out))
        bb.emit_func_output(gv)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(lv)
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv_scp, lv_scp)
                lv1_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv1)
                lv1_ecp_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(lv1_ecp)
                lv2: R.Tensor((3, 3), dtype="float32") = R.exp(lv1_ecp_scp)
                lv3: R.Tensor((3, 3), dtype="float32") = R.sin(lv2)
                lv3_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv3)
                lv4: R.Tensor((3, 3), dtype="float32") = R.cos(lv3_ecp)
                lv5: R.Tensor((3, 3), dtype="float32") = R.tanh(lv4)
                gv: R.Tensor((), dtype="float32") = R.sum(lv5, axis=None, keepdims=False)
                R.output(gv)
            return gv

    assert_structural_equal(bb.get(), Expected)
    assert bb.get().script() == Expected.script()


def test_emit_checkpoint_tuple_results_and_var_result():
    x = _x()
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a, b = nn.emit_checkpoint(
                lambda u, v: (relax.op.add(u, v), relax.op.multiply(u, v)), x, x
            )
            c = nn.emit_checkpoint(lambda u: bb.emit(relax.op.exp(u)), a)
            gv = bb.emit_output(relax.op.sum(relax.op.add(b, c)))
        bb.emit_func_output(gv)
    names = [binding.var.name_hint for binding in bb.get()["main"].body.blocks[0].bindings]
    assert names == [
        "x_scp", "x_scp1", "lv", "lv_ecp", "lv1", "lv1_ecp",
        "lv_ecp_scp", "lv2", "lv3", "lv3_ecp", "lv4", "gv",
    ]  # fmt: skip


def test_emit_checkpoint_sequential_explicit_segments_checkpoint_last():
    x = _x()
    bb = relax.BlockBuilder()
    fns = [relax.op.exp, relax.op.sin, relax.op.cos, relax.op.tanh, relax.op.exp]
    with bb.function("main", [x]):
        with bb.dataflow():
            out = nn.emit_checkpoint_sequential(fns, [0, 3], x, checkpoint_last=True)
            gv = bb.emit_output(relax.op.sum(out))
        bb.emit_func_output(gv)
    names = [binding.var.name_hint for binding in bb.get()["main"].body.blocks[0].bindings]
    assert names == [
        "x_scp", "lv", "lv1", "lv2", "lv2_ecp",
        "lv2_ecp_scp", "lv3", "lv4", "lv4_ecp", "gv",
    ]  # fmt: skip
    with (
        pytest.raises(ValueError, match="invalid segment boundaries"),
        bb.function("f", [x]),
        bb.dataflow(),
    ):
        nn.emit_checkpoint_sequential(fns, [0, 9], x)


def test_checkpoint_wraps_without_emitting():
    x = _x()
    results = nn.checkpoint(lambda a, b: (relax.op.add(a, b), a), x, x)
    assert isinstance(results, list) and len(results) == 2
    assert results[0].op.name == "relax.grad.end_checkpoint"
    inner = results[0].args[0]
    assert inner.op.name == "relax.add"
    assert all(arg.op.name == "relax.grad.start_checkpoint" for arg in inner.args)
    single = nn.checkpoint(relax.op.exp, x)
    assert single.op.name == "relax.grad.end_checkpoint"


def test_emit_checkpoint_needs_var_arguments():
    x = _x()
    bb = relax.BlockBuilder()
    with (
        pytest.raises(TypeError, match="needs Var arguments"),
        bb.function("main", [x]),
        bb.dataflow(),
    ):
        nn.emit_checkpoint(relax.op.exp, relax.op.exp(x))
    with pytest.raises(ValueError, match="current BlockBuilder"):
        nn.emit_checkpoint(relax.op.exp, x)


# --- numerics and memory ------------------------------------------------------------------------


def _deep_model(checkpointed, segments=3, layers=6):
    """``sum(tanh(... tanh(x @ w_i) ...))`` with ``layers`` layers, optionally checkpointed."""
    x = _x((4, 5))
    weights = [relax.Var(f"w{i}", relax.TensorType([5, 5], "float32")) for i in range(layers)]

    def layer(w):
        return lambda v: relax.op.tanh(relax.op.matmul(v, w))

    bb = relax.BlockBuilder()
    with bb.function("main", [x, *weights]):
        with bb.dataflow():
            if checkpointed:
                out = nn.emit_checkpoint_sequential([layer(w) for w in weights], segments, x)
            else:
                out = x
                for w in weights:
                    out = bb.emit(layer(w)(out))
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, out)))
        bb.emit_func_output(gv)
    return bb.get()


def _kept_forward_values(adjoint):
    """Forward-pass variables the backward pass reads: those bound before the seed adjoint
    (``<target>_adjoint = R.ones``) and used after it, with their tensor sizes in bytes."""
    bindings = adjoint.body.blocks[0].bindings
    seed = next(
        i
        for i, b in enumerate(bindings)
        if b.var.name_hint.endswith("_adjoint") and getattr(b.value.op, "name", "") == "relax.ones"
    )
    forward = {b.var for b in bindings[:seed]} | set(adjoint.params)
    used = set()
    for binding in bindings[seed:]:
        used |= {v for v in relax.analysis.free_vars(binding.value) if v in forward}
    kept = [v for v in used if v not in adjoint.params]
    size = sum(int(np.prod([int(d) for d in v.ty.shape.values])) * 4 for v in kept)
    return kept, size


def test_checkpointed_gradients_equal_plain_ones_and_keep_less():
    plain = relax.transform.Gradient("main")(_deep_model(False))
    ckpt = relax.transform.Gradient("main")(_deep_model(True))
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-1, 1, (4, 5)).astype("float32")] + [
        rng.uniform(-0.5, 0.5, (5, 5)).astype("float32") for _ in range(6)
    ]
    value_p, grads_p = ReferenceEvaluator(plain).run("main_adjoint", *inputs)
    value_c, grads_c = ReferenceEvaluator(ckpt).run("main_adjoint", *inputs)
    np.testing.assert_allclose(value_c, value_p, rtol=1e-6)
    assert len(grads_c) == len(grads_p) == 7
    for g_c, g_p in zip(grads_c, grads_p):
        np.testing.assert_allclose(g_c, g_p, rtol=1e-5, atol=1e-6)

    kept_plain, bytes_plain = _kept_forward_values(plain["main_adjoint"])
    kept_ckpt, bytes_ckpt = _kept_forward_values(ckpt["main_adjoint"])
    # Plain: the tanh output of every layer is read by the backward pass (6 tensors of 4x5).
    assert len(kept_plain) == 6 and bytes_plain == 6 * 4 * 5 * 4
    # Checkpointed (3 segments of 2 layers, the last one not checkpointed): only the input of
    # the second segment and the last segment's values are kept; the rest is recomputed.
    assert sorted(v.name_hint for v in kept_ckpt) == ["lv11", "lv3", "lv9"]
    assert bytes_ckpt == 3 * 4 * 5 * 4 < bytes_plain
    cp_names = [
        b.var.name_hint
        for b in ckpt["main_adjoint"].body.blocks[0].bindings
        if b.var.name_hint.endswith("_cp")
    ]
    assert cp_names, "the checkpointed segments are recomputed in the backward pass"


def test_checkpoint_gradients_checked_numerically():
    import tvm.testing

    mod = relax.transform.Gradient("main")(_deep_model(True, segments=2, layers=4))
    evaluator = ReferenceEvaluator(mod)
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(-1, 1, (4, 5))] + [rng.uniform(-0.5, 0.5, (5, 5)) for _ in range(4)]
    inputs = [a.astype("float32") for a in inputs]
    _, grads = evaluator.run("main_adjoint", *inputs)
    tvm.testing.check_numerical_grads(
        lambda *args: evaluator.run("main", *[a.astype("float32") for a in args]),
        inputs,
        [np.asarray(g) for g in grads],
        delta=1e-2,
        atol=1e-2,
        rtol=1e-2,
    )


def test_emit_checkpoint_sequential_bad_segments():
    x = _x()
    bb = relax.BlockBuilder()
    with (
        pytest.raises(ValueError, match="segments must be positive"),
        bb.function("main", [x]),
        bb.dataflow(),
    ):
        nn.emit_checkpoint_sequential([relax.op.exp], 0, x)
    with pytest.raises(ValueError, match="current BlockBuilder"):
        nn.emit_checkpoint_sequential([relax.op.exp], 1, x)
