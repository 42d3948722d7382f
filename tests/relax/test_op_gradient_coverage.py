"""Which floating-point ops of the library have a gradient rule (``FPrimalGradient``).

An op counts as floating-point when a case of its op case table takes a float tensor and
returns a float tensor. The ops still lacking a rule are pinned in ``MISSING`` (and listed in
``docs/arch/autodiff.md``): adding a rule, or a new float op without one, updates the list.
"""

from __future__ import annotations

import importlib
import pathlib
import sys

from tvm import relax
from tvm.ir.op import Op

sys.path.insert(0, str(pathlib.Path(__file__).parent / "op"))
import op_cases

_TABLES = {f: importlib.import_module(f"op_cases.{f}") for f in op_cases.FAMILIES}
_FLOAT = ("float16", "float32", "float64", "bfloat16")

#: Float ops without a gradient rule, with the reason.
MISSING = {
    "relax.grad.start_checkpoint": "stripped by the Gradient pass before differentiation",
}


def _try_build(case):
    try:
        call, params, _ = op_cases.build(case)
        return call, params, relax.BlockBuilder().normalize(call).ty
    except Exception:  # noqa: BLE001 - cases that fail are the op tests' business
        return None


def _float_ops():
    ops = set()
    for module in _TABLES.values():
        for case in module.CASES:
            built = _try_build(case)
            if built is None:
                continue
            call, params, ty = built
            if isinstance(ty, relax.TupleType):
                ty = ty.fields[0]
            takes_float = any(getattr(p.ty, "dtype", "") in _FLOAT for p in params)
            gives_float = getattr(ty, "dtype", "") in _FLOAT
            if takes_float and gives_float:
                ops.add(call.op.name)
    return ops


def test_float_ops_without_gradient_are_the_documented_ones():
    missing = {name for name in _float_ops() if Op.get(name).get_attr("FPrimalGradient") is None}
    assert missing == set(MISSING), (
        f"newly covered: {sorted(set(MISSING) - missing)}; "
        f"newly missing: {sorted(missing - set(MISSING))}"
    )


def test_the_52_ops_of_tvm_have_rules():
    names = [
        "add",
        "subtract",
        "multiply",
        "divide",
        "power",
        "maximum",
        "minimum",
        "equal",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "not_equal",
        "zeros_like",
        "ones_like",
        "full_like",
        "zeros",
        "ones",
        "full",
        "triu",
        "abs",
        "cos",
        "exp",
        "log",
        "negative",
        "sigmoid",
        "sin",
        "sqrt",
        "tanh",
        "sum",
        "mean",
        "variance",
        "permute_dims",
        "concat",
        "split",
        "expand_dims",
        "reshape",
        "cumsum",
        "broadcast_to",
        "take",
        "where",
        "matmul",
        "astype",
        "nn.relu",
        "nn.silu",
        "nn.softmax",
        "nn.log_softmax",
        "nn.cross_entropy_with_logits",
        "nn.nll_loss",
        "nn.conv2d",
        "nn.max_pool2d",
        "nn.avg_pool2d",
    ]
    assert len(names) == 52
    for name in names:
        assert Op.get(f"relax.{name}").get_attr("FPrimalGradient") is not None, name


def test_rules_beyond_tvm():
    """Rules Apache TVM 0.27 lacks: dropout (inference semantics), dynamic_strided_slice, and
    the second order of take, nll_loss, avg_pool2d and max_pool2d."""
    for name in (
        "nn.dropout",
        "dynamic_strided_slice",
        "grad.take_backward",
        "grad.nll_loss_backward",
        "grad.avg_pool2d_backward",
        "grad.max_pool2d_backward",
    ):
        assert Op.get(f"relax.{name}").get_attr("FPrimalGradient") is not None, name


def test_register_gradient_public_path():
    from tvm.relax.op.base import register_gradient

    calls = []

    def rule(orig_var, orig_call, output_grad, ctx):
        calls.append(orig_call)
        return [output_grad]

    op = Op.get("relax.nn.max_pool3d")
    original = op.get_attr("FPrimalGradient")
    register_gradient("relax.nn.max_pool3d", rule, level=20)
    try:
        assert op.get_attr("FPrimalGradient") is rule
    finally:
        op.reset_attr("FPrimalGradient")
        register_gradient("relax.nn.max_pool3d", original)
    assert op.get_attr("FPrimalGradient") is original
