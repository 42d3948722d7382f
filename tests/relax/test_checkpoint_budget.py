"""``relax.transform.CheckpointToBudget`` and ``relax.analysis.estimate_kept_bytes`` (pytvm
extensions): the kept bytes measured on the adjoint Gradient builds fit the budget, shrink
with it, and the gradients stay those of the function without checkpoints."""

import numpy as np
import pytest

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.analysis import estimate_kept_bytes
from tvm.relax.testing import ReferenceEvaluator, nn
from tvm.relax.transform.checkpoint_budget import parse_memory_size
from tvm.script import ir as I
from tvm.script import relax as R


def _tensor(name, shape, dataflow=False):
    kind = relax.DataflowVar if dataflow else relax.Var
    return kind(name, relax.TensorType(list(shape), "float32"))


def _nbytes(ty):
    if isinstance(ty, relax.TupleType):
        return sum(_nbytes(field) for field in ty.fields)
    return int(np.prod([int(d) for d in ty.shape.values])) * np.dtype(ty.dtype).itemsize


def _measured_kept(adjoint):
    """Bytes of the forward values the adjoint reads after its seed (``<target>_adjoint =
    R.ones``), parameters excluded: what the backward pass really keeps."""
    bindings = adjoint.body.blocks[0].bindings
    seed = next(
        i
        for i, b in enumerate(bindings)
        if b.var.name_hint.endswith("_adjoint") and getattr(b.value.op, "name", "") == "relax.ones"
    )
    forward = {b.var for b in bindings[:seed]}
    used = set()
    for binding in bindings[seed:]:
        used |= {v for v in relax.analysis.free_vars(binding.value) if v in forward}
    return sum(_nbytes(v.ty) for v in used)


def _markers(func):
    return [
        b.var.name_hint
        for b in func.body.blocks[0].bindings
        if getattr(getattr(b.value, "op", None), "name", "").startswith("relax.grad.")
    ]


def _check_budgets(mod, inputs, budgets):
    """Run the pass for each budget (largest first); check the measured kept bytes and the
    gradients. Returns the measured kept bytes per budget."""
    plain = relax.transform.Gradient("main")(mod)
    plain_kept = _measured_kept(plain["main_adjoint"])
    assert plain_kept == estimate_kept_bytes(mod["main"])
    value_p, grads_p = ReferenceEvaluator(plain).run("main_adjoint", *inputs)
    measured = []
    for budget in budgets:
        after = relax.transform.CheckpointToBudget(budget)(mod)
        if budget >= plain_kept:
            # A function that fits is left unchanged.
            assert_structural_equal(after["main"], mod["main"])
        else:
            assert _markers(after["main"]), f"budget {budget} needs checkpoints"
        grad = relax.transform.Gradient("main")(after)
        kept = _measured_kept(grad["main_adjoint"])
        assert kept <= budget
        assert kept == estimate_kept_bytes(after["main"])
        value_c, grads_c = ReferenceEvaluator(grad).run("main_adjoint", *inputs)
        np.testing.assert_allclose(value_c, value_p, rtol=1e-6)
        assert len(grads_c) == len(grads_p)
        for g_c, g_p in zip(grads_c, grads_p):
            np.testing.assert_allclose(g_c, g_p, rtol=1e-5, atol=1e-6)
        measured.append(kept)
    assert measured == sorted(measured, reverse=True), "smaller budgets keep no more"
    return plain_kept, measured


# --- models ---------------------------------------------------------------------------------


def _mlp(layers=6, batch=4, width=5):
    """``sum((tanh(... tanh(x @ w_i + b_i) ...))^2)``, no markers."""
    x = _tensor("x", (batch, width))
    params = []
    for i in range(layers):
        params += [_tensor(f"w{i}", (width, width)), _tensor(f"b{i}", (width,))]
    bb = relax.BlockBuilder()
    with bb.function("main", [x, *params]):
        with bb.dataflow():
            out = x
            for i in range(layers):
                w, b = params[2 * i], params[2 * i + 1]
                out = bb.emit(relax.op.tanh(relax.op.add(relax.op.matmul(out, w), b)))
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, out)))
        bb.emit_func_output(gv)
    return bb.get()


def _rand(shape, seed, scale=0.5):
    return np.random.default_rng(seed).uniform(-scale, scale, shape).astype("float32")


def _mlp_inputs(layers=6, batch=4, width=5):
    inputs = [_rand((batch, width), 0, 1.0)]
    for i in range(layers):
        inputs += [_rand((width, width), 2 * i + 1), _rand((width,), 2 * i + 2)]
    return inputs


@I.ir_module
class CNN:
    @R.function
    def main(
        x: R.Tensor((2, 1, 6, 6), "float32"),
        w1: R.Tensor((4, 1, 3, 3), "float32"),
        b1: R.Tensor((1, 4, 1, 1), "float32"),
        w2: R.Tensor((4, 4, 3, 3), "float32"),
        fc: R.Tensor((36, 3), "float32"),
    ):
        with R.dataflow():
            c1 = R.nn.conv2d(x, w1, padding=(1, 1))
            a1 = R.nn.relu(R.add(c1, b1))
            c2 = R.nn.conv2d(a1, w2, padding=(1, 1))
            a2 = R.nn.relu(c2)
            p = R.nn.max_pool2d(a2, pool_size=(2, 2), strides=(2, 2))
            flat = R.reshape(p, (2, 36))
            logits = R.matmul(flat, fc)
            gv = R.sum(R.multiply(logits, logits))
            R.output(gv)
        return gv


@I.ir_module
class Branches:
    @R.function
    def main(x: R.Tensor((4, 6), "float32"), w: R.Tensor((6, 6), "float32")):
        with R.dataflow():
            h = R.tanh(R.matmul(x, w))
            parts = R.split(h, 2, axis=1)
            left = R.exp(parts[0])
            right = R.sigmoid(parts[1])
            pair = (left, right)
            mixed = R.multiply(pair[0], pair[1])
            joined = R.concat((mixed, right), axis=1)
            res = R.add(joined, h)
            out = R.tanh(R.matmul(res, w))
            gv = R.sum(R.multiply(out, res))
            R.output(gv)
        return gv


# --- budgets --------------------------------------------------------------------------------


def test_mlp_six_layers_fits_each_budget_with_the_same_gradients():
    mod = _mlp()
    plain, measured = _check_budgets(mod, _mlp_inputs(), [10_000, 400, 320, 240, 160, 80, 0])
    # Each layer keeps its tanh output (read by tanh's rule and the next matmul's): 6 x 80 B.
    assert plain == 6 * 4 * 5 * 4
    assert measured[0] == plain and measured[-1] == 0
    assert measured[1:4] == [400, 320, 240]


def test_mlp_least_recomputation_for_one_tensor_less():
    """Dropping one 80-byte tensor recomputes one layer (not a longer segment)."""
    mod = _mlp()
    after = relax.transform.CheckpointToBudget(400)(mod)
    grad = relax.transform.Gradient("main")(after)
    recomputed = [
        b.var.name_hint
        for b in grad["main_adjoint"].body.blocks[0].bindings
        if b.var.name_hint.endswith("_cp")
    ]
    assert len(recomputed) == 3  # matmul, add, tanh of one layer
    assert len(_markers(after["main"])) == 2  # one segment: start and end


def test_cnn_block_fits_each_budget_with_the_same_gradients():
    inputs = [_rand(s, i) for i, s in enumerate([(2, 1, 6, 6), (4, 1, 3, 3), (1, 4, 1, 1),
                                                   (4, 4, 3, 3), (36, 3)])]  # fmt: skip
    plain = estimate_kept_bytes(CNN["main"])
    budgets = [plain, plain - 1, plain // 2, plain // 4, 0]
    _, measured = _check_budgets(CNN, inputs, budgets)
    assert measured[-1] == 0 < measured[1] < plain


def test_branches_and_tuples_fit_each_budget_with_the_same_gradients():
    inputs = [_rand((4, 6), 0, 1.0), _rand((6, 6), 1)]
    plain = estimate_kept_bytes(Branches["main"])
    budgets = [plain, plain * 3 // 4, plain // 2, plain // 4, 0]
    _, measured = _check_budgets(Branches, inputs, budgets)
    assert measured[-1] == 0


def test_budget_strings_and_units():
    assert parse_memory_size("200KB") == 200 * 1024
    assert parse_memory_size("1.5 MB") == 3 * 512 * 1024
    assert parse_memory_size("4096") == parse_memory_size(4096) == 4096
    assert parse_memory_size("2kib") == 2048
    with pytest.raises(ValueError, match="cannot read the memory size '12 parsecs'"):
        parse_memory_size("12 parsecs")
    after = relax.transform.CheckpointToBudget("0.25KB")(_mlp())
    assert estimate_kept_bytes(after["main"]) <= 256
    with pytest.raises(ValueError, match="must be >= 0 bytes"):
        relax.transform.CheckpointToBudget(-1)


# --- errors ---------------------------------------------------------------------------------


@I.ir_module
class KeepsAnOutput:
    @R.function
    def main(x: R.Tensor((4, 4), "float32")):
        with R.dataflow():
            h = R.tanh(x)
            hidden = R.exp(h)
            gv = R.sum(R.multiply(hidden, hidden))
            R.output(hidden, gv)
        return (gv, hidden)


def test_infeasible_budget_names_the_smallest_achievable_one():
    # ``hidden`` is a function output (not a dataflow variable): no segment can hold it, and
    # the rules of exp and multiply read it (64 bytes); everything else can be recomputed.
    assert estimate_kept_bytes(KeepsAnOutput["main"]) == 128
    after = relax.transform.CheckpointToBudget(64)(KeepsAnOutput)
    assert estimate_kept_bytes(after["main"]) == 64
    with pytest.raises(ValueError, match=r"keeps 64 bytes, the smallest achievable budget"):
        relax.transform.CheckpointToBudget(63)(KeepsAnOutput)


def test_markers_already_present_are_rejected():
    x = _tensor("x", (3, 3))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = nn.emit_checkpoint(lambda v: relax.op.exp(v), x)
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(lv, lv)))
        bb.emit_func_output(gv)
    with pytest.raises(ValueError, match=r"already has checkpoint markers \(x_scp = "):
        relax.transform.CheckpointToBudget(0)(bb.get())


def test_symbolic_shapes_are_rejected():
    @I.ir_module
    class Symbolic:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32")):
            with R.dataflow():
                gv = R.sum(R.exp(x))
                R.output(gv)
            return gv

    with pytest.raises(ValueError, match=r"CheckpointToBudget\(main\): parameter x .*static"):
        relax.transform.CheckpointToBudget(100)(Symbolic)
    with pytest.raises(ValueError, match="needs static shapes"):
        estimate_kept_bytes(Symbolic["main"])


def test_no_dataflow_block_and_not_a_relax_function():
    @I.ir_module
    class NoDataflow:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            y = R.exp(x)
            gv = R.sum(y)
            return gv

    # Bindings outside dataflow are fine (Gradient differentiates them): y is kept.
    assert estimate_kept_bytes(NoDataflow["main"]) == 8
    with pytest.raises(ValueError, match="Cannot find global var"):
        relax.transform.CheckpointToBudget(0, "other")(NoDataflow)
    with pytest.raises(TypeError, match="expects a relax.Function"):
        estimate_kept_bytes(None)


# --- estimate_kept_bytes --------------------------------------------------------------------


def test_estimate_of_hand_placed_markers_matches_the_adjoint():
    """The six-layer chain of the checkpoint tests: 3 kept tanh outputs instead of 6."""
    x = _tensor("x", (4, 5))
    weights = [_tensor(f"w{i}", (5, 5)) for i in range(6)]

    def layer(w):
        return lambda v: relax.op.tanh(relax.op.matmul(v, w))

    bb = relax.BlockBuilder()
    with bb.function("main", [x, *weights]):
        with bb.dataflow():
            out = nn.emit_checkpoint_sequential([layer(w) for w in weights], 3, x)
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, out)))
        bb.emit_func_output(gv)
    mod = bb.get()
    grad = relax.transform.Gradient("main")(mod)
    assert estimate_kept_bytes(mod["main"]) == _measured_kept(grad["main_adjoint"]) == 240


def test_estimate_of_a_backbone_reduces_its_logits():
    @I.ir_module
    class Backbone:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                h = R.nn.relu(R.matmul(x, w))
                logits = R.matmul(h, R.permute_dims(w))
                R.output(logits)
            return logits

    # relu's rule reads its input (2x4 floats) and the second matmul reads h (2x4 floats).
    assert estimate_kept_bytes(Backbone["main"]) == 64
    after = relax.transform.CheckpointToBudget(0)(Backbone)
    assert estimate_kept_bytes(after["main"]) == 0
    with pytest.raises(ValueError, match="must be a float tensor"):

        @I.ir_module
        class IntOut:
            @R.function
            def main(x: R.Tensor((2,), "int32")):
                with R.dataflow():
                    y = R.add(x, x)
                    R.output(y)
                return y

        estimate_kept_bytes(IntOut["main"])


# --- optimality -----------------------------------------------------------------------------


def _all_placements(segmentable, p=0):
    """Every set of disjoint segments ``[p, q)`` over the segmentable positions."""
    if p >= len(segmentable):
        yield []
        return
    yield from _all_placements(segmentable, p + 1)
    for q in range(p + 1, len(segmentable) + 1):
        if not segmentable[q - 1]:
            break
        for rest in _all_placements(segmentable, q):
            yield [(p, q), *rest]


@I.ir_module
class SmallBranches:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")):
        with R.dataflow():
            parts = R.split(x, 2, axis=1)
            a = parts[0]
            m = R.multiply(R.exp(a), R.sigmoid(parts[1]))
            gv = R.sum(R.multiply(m, a))
            R.output(gv)
        return gv


@pytest.mark.parametrize(
    "make", [lambda: _mlp(layers=2), lambda: SmallBranches], ids=["mlp", "branches"]
)
def test_least_recomputation_against_every_placement(make):
    """For each budget, no placement of markers fits it with fewer recomputed FLOPs (FLOPs as
    the pass's cost model counts them, kept bytes measured exactly)."""
    from tvm.relax.analysis.kept_bytes import KeptModel
    from tvm.relax.transform import checkpoint_budget as cb

    func = make()["main"]
    model = KeptModel(func)
    bindings = list(func.body.blocks[0].bindings)
    segmentable = [isinstance(b.var, relax.DataflowVar) for b in bindings]
    chain = cb._Chain(bindings, model.reads, segmentable)
    flops = {(p, q): f for p in range(len(bindings)) for q, _, f in chain.segments_from(p)}
    best = {}  # kept bytes -> least FLOPs
    for placement in _all_placements(segmentable):
        kept = model.kept_bytes(cb.place_markers(func, placement) if placement else func)
        cost = sum(flops[s] for s in placement)
        best[kept] = min(best.get(kept, cost), cost)
    for budget in sorted(best):
        _, kept, placement = cb.checkpoint_to_budget(func, budget)
        assert kept <= budget
        assert sum(flops[s] for s in placement) == min(f for k, f in best.items() if k <= budget)
