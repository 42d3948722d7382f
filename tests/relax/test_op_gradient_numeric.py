"""Every FPrimalGradient rule against central finite differences (``check_numerical_grads``).

The cases come from the op case tables (``tests/relax/op/op_cases``): each static-shape case of
an op with a gradient rule and float inputs becomes ``gv = sum(op(...) * w)`` (``w`` random,
so every output element matters). Its adjoint, computed by ``relax.transform.Gradient`` and run
by the reference evaluator, is compared with finite differences of the forward function run by
the same evaluator; in float64 when the op accepts it. Adding an op case adds its check.
"""

from __future__ import annotations

import dataclasses
import importlib
import pathlib
import sys

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.ir.op import Op
from tvm.relax.testing import ReferenceEvaluator

sys.path.insert(0, str(pathlib.Path(__file__).parent / "op"))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}
_FLOAT = ("float16", "float32", "float64", "bfloat16")
#: Markers: stripped by the pass (checkpoints) or stopping gradients by definition (no_grad).
_SKIP_OPS = {"relax.grad.start_checkpoint", "relax.grad.end_checkpoint", "relax.grad.no_grad"}
#: Float parameters that TVM 0.27's rules deliberately give no gradient (param positions).
_NO_GRAD_PARAMS = {"relax.nn.nll_loss": (2,), "relax.grad.nll_loss_backward": (3,)}
#: Piecewise-constant ops: their explicit inputs sit on the jumps (e.g. round at .5).
_STEP_OPS = {"relax.ceil", "relax.floor", "relax.round", "relax.sign", "relax.trunc"}


def _op_name(case):
    try:
        call, _, _ = op_cases.build(case)
    except Exception:  # noqa: BLE001 - a case that does not build is the op tests' business
        return None
    return getattr(getattr(call, "op", None), "name", None)


def _params(case):
    return [a for a in case.args if isinstance(a, op_cases.TensorParam)] + [
        p
        for a in case.args
        if isinstance(a, list)
        for p in a
        if isinstance(p, op_cases.TensorParam)
    ]


def _is_static(case):
    return all(
        p.shape is not None and all(isinstance(d, int) for d in p.shape) for p in _params(case)
    )


def _collect():
    items = []
    for family, module in _TABLES.items():
        for i, case in enumerate(module.CASES):
            if case.grad is False or not _is_static(case):
                continue
            name = _op_name(case)
            if name is None or name in _SKIP_OPS:
                continue
            if name in _STEP_OPS and case.inputs is not None:
                continue
            if Op.get(name).get_attr("FPrimalGradient") is None:
                continue
            if not any(p.dtype in _FLOAT for p in _params(case)):
                continue
            items.append(pytest.param(case, id=f"{family}-{op_cases.case_id(case)}-{i}"))
    return items


def _with_dtype(case, dtype):
    def convert(arg):
        if isinstance(arg, op_cases.TensorParam) and arg.dtype in _FLOAT:
            return dataclasses.replace(arg, dtype=dtype)
        if isinstance(arg, list):
            return [convert(a) for a in arg]
        return arg

    inputs = case.inputs
    if inputs is not None:
        inputs = [
            np.asarray(a).astype(dtype) if np.asarray(a).dtype.kind == "f" else a for a in inputs
        ]
    return dataclasses.replace(case, args=[convert(a) for a in case.args], inputs=inputs)


def _build(case, rng):
    """``(mod, params, inputs)``: main(params) = sum(op(...) * w); None for non-float outputs."""
    call, params, specs = op_cases.build(case)
    ty = relax.BlockBuilder().normalize(call).ty
    if isinstance(ty, relax.TupleType):
        ty = ty.fields[0]
    # Casts to low-precision or integer types are steps: finite differences see no slope.
    if not isinstance(ty, relax.TensorType) or ty.dtype not in ("float32", "float64"):
        return None
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit(call)
            if isinstance(out.ty, relax.TupleType):
                out = bb.emit(relax.TupleGetItem(out, 0))
            dims = getattr(ty.shape, "values", None)
            if dims is None:
                # A data-dependent output shape (dynamic_strided_slice): weight by itself.
                weight = out
            else:
                dims = [int(d) for d in dims]
                weight = relax.const(rng.uniform(0.5, 1.5, dims).astype(ty.dtype), ty.dtype)
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, weight)))
        bb.emit_func_output(gv)
    inputs = op_cases.as_numpy_inputs(case, specs, rng)
    return bb.get(), params, inputs


@pytest.mark.parametrize("case", _collect())
def test_gradient_matches_finite_differences(case):
    rng = np.random.default_rng(0)
    dtype = "float64"
    try:
        built = _build(_with_dtype(case, "float64"), rng)
        if built is not None and built[0]["main"].body.blocks[0].bindings[-1].var.ty.dtype != (
            "float64"
        ):
            raise TypeError("the op computes in float32 (e.g. a cast): check in float32")
    except (TypeError, ValueError):
        # The op (or an attribute of this case) does not accept float64: check in float32.
        dtype = "float32"
        rng = np.random.default_rng(0)
        built = _build(case, rng)
    if built is None:
        pytest.skip("the op's output is not a float tensor")
    mod, params, inputs = built
    stopped = _NO_GRAD_PARAMS.get(_op_name(case), ())
    float_idx = [i for i, p in enumerate(params) if p.ty.dtype in _FLOAT and i not in stopped]
    require = [params[i] for i in float_idx]
    try:
        mod = relax.transform.Gradient("main", require_grads=require)(mod)
    except ValueError as err:
        if "not supported" in str(err) or "only" in str(err):
            # A rule that states its limits (listed in docs/arch/autodiff.md).
            pytest.skip(f"partial gradient rule: {err}")
        raise
    evaluator = ReferenceEvaluator(mod)
    _, grads = evaluator.run("main_adjoint", *inputs)

    def forward(*float_values):
        values = list(inputs)
        for i, value in zip(float_idx, float_values):
            values[i] = value.astype(inputs[i].dtype)
        return evaluator.run("main", *values)

    tol = {"atol": 1e-4, "rtol": 1e-3, "delta": 1e-6} if dtype == "float64" else {}
    tvm.testing.check_numerical_grads(
        forward, [inputs[i] for i in float_idx], [np.asarray(g) for g in grads], **tol
    )


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradient_through_all_outputs(training):
    """The running statistics (outputs 1 and 2) carry gradient too."""
    rng = np.random.default_rng(3)
    shapes = [(4, 3, 2), (3,), (3,), (3,), (3,)]
    names = ["x", "gamma", "beta", "moving_mean", "moving_var"]
    params = [relax.Var(n, relax.TensorType(list(s), "float64")) for n, s in zip(names, shapes)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit(relax.op.nn.batch_norm(*params, axis=1, training=training))
            terms = []
            for i, shape in enumerate([(4, 3, 2), (3,), (3,)]):
                weight = relax.const(rng.uniform(0.5, 1.5, shape), "float64")
                field = relax.TupleGetItem(out, i)
                terms.append(bb.emit(relax.op.sum(relax.op.multiply(field, weight))))
            gv = bb.emit_output(relax.op.add(relax.op.add(terms[0], terms[1]), terms[2]))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    evaluator = ReferenceEvaluator(mod)
    inputs = [rng.uniform(-1, 1, s) for s in shapes]
    inputs[4] = rng.uniform(0.5, 1.5, shapes[4])  # a variance is positive
    _, grads = evaluator.run("main_adjoint", *inputs)
    tvm.testing.check_numerical_grads(
        lambda *args: evaluator.run("main", *args),
        inputs,
        [np.asarray(g) for g in grads],
        atol=1e-5,
        rtol=1e-4,
        delta=1e-6,
    )


@pytest.mark.parametrize(
    "subscripts, shapes",
    [
        ("ij->j", [(3, 4)]),
        ("ij,jk", [(2, 3), (3, 4)]),
        ("ij,ij->", [(2, 3), (2, 3)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("i,j->ij", [(3,), (4,)]),
        ("ijk,k->i", [(2, 3, 4), (4,)]),
    ],
)
def test_einsum_gradient(subscripts, shapes):
    rng = np.random.default_rng(5)
    params = [
        relax.Var(f"a{i}", relax.TensorType(list(s), "float64")) for i, s in enumerate(shapes)
    ]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit(relax.op.einsum(params, subscripts))
            dims = [int(d) for d in out.ty.shape.values]
            weight = relax.const(rng.uniform(0.5, 1.5, dims), "float64")
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, weight)))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    evaluator = ReferenceEvaluator(mod)
    inputs = [rng.uniform(-1, 1, s) for s in shapes]
    _, grads = evaluator.run("main_adjoint", *inputs)
    tvm.testing.check_numerical_grads(
        lambda *args: evaluator.run("main", *args),
        inputs,
        [np.asarray(g) for g in grads],
        atol=1e-5,
        rtol=1e-4,
        delta=1e-6,
    )


def test_attention_gradient_with_bias_scale_and_bottom_right_mask():
    rng = np.random.default_rng(7)
    shapes = [(1, 3, 2, 4), (1, 4, 2, 4), (1, 4, 2, 5), (1, 2, 3, 4)]
    params = [relax.Var(n, relax.TensorType(list(s), "float64")) for n, s in zip("qkvb", shapes)]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            q, k, v, b = params
            out = bb.emit(relax.op.nn.attention(q, k, v, b, scale=0.7, causal_mask="BottomRight"))
            weight = relax.const(rng.uniform(0.5, 1.5, (1, 3, 2, 5)), "float64")
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, weight)))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    evaluator = ReferenceEvaluator(mod)
    inputs = [rng.uniform(-1, 1, s) for s in shapes]
    _, grads = evaluator.run("main_adjoint", *inputs)
    tvm.testing.check_numerical_grads(
        lambda *args: evaluator.run("main", *args),
        inputs,
        [np.asarray(g) for g in grads],
        atol=1e-5,
        rtol=1e-4,
        delta=1e-6,
    )


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_gradient_both_sides_two_axes(mode):
    rng = np.random.default_rng(9)
    x = relax.Var("x", relax.TensorType([3, 4], "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit(relax.op.nn.pad(x, [2, 1, 1, 3], pad_mode=mode))
            weight = relax.const(rng.uniform(0.5, 1.5, (6, 8)), "float64")
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, weight)))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    evaluator = ReferenceEvaluator(mod)
    data = rng.uniform(-1, 1, (3, 4))
    _, (grad,) = evaluator.run("main_adjoint", data)
    tvm.testing.check_numerical_grads(
        lambda a: evaluator.run("main", a), [data], [np.asarray(grad)], atol=1e-6, rtol=1e-5
    )


@pytest.mark.parametrize(
    "layouts, data_shape, weight_shape, groups",
    [
        (("NHWC", "HWIO", "NHWC"), (1, 5, 5, 4), (3, 3, 2, 6), 2),
        (("NCHW", "OIHW", "NHWC"), (2, 2, 6, 6), (3, 2, 2, 2), 1),
    ],
)
def test_conv2d_gradient_other_layouts_and_groups(layouts, data_shape, weight_shape, groups):
    rng = np.random.default_rng(11)
    x = relax.Var("x", relax.TensorType(list(data_shape), "float64"))
    w = relax.Var("w", relax.TensorType(list(weight_shape), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            out = bb.emit(
                relax.op.nn.conv2d(
                    x, w, strides=2, padding=1, groups=groups, data_layout=layouts[0],
                    kernel_layout=layouts[1], out_layout=layouts[2],
                )
            )  # fmt: skip
            dims = [int(d) for d in out.ty.shape.values]
            weight = relax.const(rng.uniform(0.5, 1.5, dims), "float64")
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, weight)))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    evaluator = ReferenceEvaluator(mod)
    inputs = [rng.uniform(-1, 1, data_shape), rng.uniform(-1, 1, weight_shape)]
    _, grads = evaluator.run("main_adjoint", *inputs)
    tvm.testing.check_numerical_grads(
        lambda *args: evaluator.run("main", *args),
        inputs,
        [np.asarray(g) for g in grads],
        atol=1e-5,
        rtol=1e-4,
        delta=1e-6,
    )


# --- check_numerical_grads itself -----------------------------------------------------------------


def test_check_numerical_grads_positional_and_keyword():
    x, y = np.array([1.0, 2.0]), np.array([[0.5], [3.0]])
    tvm.testing.check_numerical_grads(
        lambda a, b: (a * a).sum() + b.sum(), [x, y], [2 * x, 1 + 0 * y]
    )
    tvm.testing.check_numerical_grads(
        lambda a, b: a * b, {"a": np.array(2.0), "b": np.array(3.0)},
        {"b": np.array(2.0), "a": np.array(3.0)}, function_value=6.0,
    )  # fmt: skip


def test_check_numerical_grads_reports_the_worst_element():
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(AssertionError) as info:
        tvm.testing.check_numerical_grads(lambda a: (a**2).sum(), [x], [np.array([2.0, 4.0, 0.0])])
    message = str(info.value)
    assert "grads wrt '0' differ too much" in message
    assert "first 10 of wrong positions: [(2,)]" in message


def test_check_numerical_grads_bad_arguments():
    x = np.ones(2)
    with pytest.raises(ValueError, match="1 input values but 2 gradient values"):
        tvm.testing.check_numerical_grads(np.sum, [x], [x, x])
    with pytest.raises(ValueError, match="has unexpected shape"):
        tvm.testing.check_numerical_grads(np.sum, [x], [np.ones(3)])
    with pytest.raises(ValueError, match="same keys"):
        tvm.testing.check_numerical_grads(np.sum, {"a": x}, {"b": x})
    # As TVM: function_value is the base of the forward differences, not checked; a wrong
    # one only sends the estimate to central differences, where it cancels out.
    tvm.testing.check_numerical_grads(np.sum, [x], [np.ones(2)], function_value=5.0)


@pytest.mark.parametrize("reduce", ["mean", "variance", "std", "sum"])
@pytest.mark.parametrize("axis, keepdims", [(None, False), ([1], False), ([0], True)])
def test_reduction_gradients_with_symbolic_shapes(reduce, axis, keepdims):
    """The element count of mean/variance/std is a tensor when the shape is symbolic."""
    from tvm.tirx.expr import Var as TirVar

    n = TirVar("n", "int64")
    x = relax.Var("x", relax.TensorType([n, 3], "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit(getattr(relax.op, reduce)(x, axis, keepdims=keepdims))
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(out, out)))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    evaluator = ReferenceEvaluator(mod)
    data = np.random.default_rng(13).uniform(-1, 1, (4, 3))
    _, (grad,) = evaluator.run("main_adjoint", data)
    tvm.testing.check_numerical_grads(
        lambda a: evaluator.run("main", a), [data], [np.asarray(grad)], atol=1e-5, rtol=1e-4,
        delta=1e-6,
    )  # fmt: skip
