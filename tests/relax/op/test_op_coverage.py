"""Which concerns each registered ``relax.*`` op has: inference, reference, legalize, gradient.

Run with ``-s`` to see the table; ``python tests/relax/op/test_op_coverage.py --write``
rewrites the table in ``docs/arch/relax_ops.md``.
"""

from __future__ import annotations

import pathlib
import sys

import tvm  # noqa: F401 - registers every op
from tvm.ir.op import Op
from tvm.relax.testing import EVALUATOR_BUILTIN_OPS

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import op_cases
from test_op_cases import CASES

#: The ops of the op-library issue (TVM 0.27 names); each must have inference and reference.
LIBRARY_OPS = (
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bitwise_not",
    "ceil",
    "clip",
    "cos",
    "cosh",
    "erf",
    "exp",
    "floor",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "logical_not",
    "negative",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "floor_mod",
    "mod",
    "power",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "ewise_fma",
    "where",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
    "arange",
    "tril",
    "triu",
    "eye",
    "astype",
    "wrap_param",
    "reshape",
    "permute_dims",
    "expand_dims",
    "squeeze",
    "flatten",
    "concat",
    "stack",
    "split",
    "broadcast_to",
    "collapse_sum_like",
    "collapse_sum_to",
    "repeat",
    "tile",
    "flip",
    "gather_elements",
    "scatter_elements",
    "one_hot",
    "layout_transform",
    "take",
    "strided_slice",
    "dynamic_strided_slice",
    "matmul",
    "einsum",
    "outer",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "std",
    "variance",
    "cumsum",
    "cumprod",
    "argmax",
    "argmin",
    "sort",
    "argsort",
    "topk",
    "nn.relu",
    "nn.leakyrelu",
    "nn.gelu",
    "nn.gelu_tanh",
    "nn.silu",
    "nn.softplus",
    "nn.softmax",
    "nn.log_softmax",
    "nn.cross_entropy_with_logits",
    "nn.nll_loss",
    "nn.conv1d",
    "nn.conv2d",
    "nn.conv2d_transpose",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.adaptive_avg_pool2d",
    "nn.layer_norm",
    "nn.group_norm",
    "nn.rms_norm",
    "nn.batch_norm",
    "nn.dropout",
    "nn.attention",
    "nn.pad",
    "grad.no_grad",
    "grad.start_checkpoint",
    "grad.end_checkpoint",
    "grad.nll_loss_backward",
    "grad.max_pool2d_backward",
    "grad.avg_pool2d_backward",
    "grad.take_backward",
)

CONCERNS = (
    ("inference", "FInferType"),
    ("reference", "FReference"),
    ("legalization", "FLegalize"),
    ("gradient", "FPrimalGradient"),
)


def coverage_rows():
    """``(op name, family, {concern: bool})`` for every registered ``relax.*`` op."""
    rows = []
    for name in Op.list_op_names():
        if not name.startswith("relax."):
            continue
        op = Op.get(name)
        has = {c: op.has_attr(key) for c, key in CONCERNS}
        if name in EVALUATOR_BUILTIN_OPS:
            has["reference"] = "evaluator"  # run by the evaluator itself, not by a rule
        rows.append((name, op.family, has))
    return rows


def _mark(value) -> str:
    if isinstance(value, str):
        return value
    return "yes" if value else "-"


def coverage_table() -> str:
    """The coverage report as a Markdown table (one row per op, ``-`` marks a missing rule)."""
    lines = [
        "| op | family | " + " | ".join(c for c, _ in CONCERNS) + " |",
        "|---|---|" + "---|" * len(CONCERNS),
    ]
    for name, family, has in coverage_rows():
        marks = " | ".join(_mark(has[c]) for c, _ in CONCERNS)
        lines.append(f"| `{name}` | {family} | {marks} |")
    missing = {c: sum(not has[c] for _, _, has in coverage_rows()) for c, _ in CONCERNS}
    lines.append("")
    lines.append(
        f"{len(coverage_rows())} ops; missing rules: "
        + ", ".join(f"{c} {n}" for c, n in missing.items())
        + "."
    )
    return "\n".join(lines)


def test_library_ops_have_inference_and_reference():
    lacking = []
    for name in LIBRARY_OPS:
        op = Op.get(f"relax.{name}")
        for concern, key in CONCERNS[:2]:
            if not op.has_attr(key):
                lacking.append(f"relax.{name}: {concern}")
    assert not lacking, lacking


def test_every_library_op_has_a_case():
    covered = set()
    for param in CASES:
        call, _, _ = op_cases.build(param.values[0])
        covered.add(call.op.name[len("relax.") :])
    missing = [name for name in LIBRARY_OPS if name not in covered]
    assert not missing, missing


def test_print_coverage_table():
    table = coverage_table()
    print()
    print(table)
    assert "| `relax.nn.conv2d` | nn |" in table


def write_doc(path=None):
    """Replace the table between the coverage markers of ``docs/arch/relax_ops.md``."""
    path = path or pathlib.Path(__file__).parents[3] / "docs" / "arch" / "relax_ops.md"
    text = path.read_text()
    begin, end = "<!-- coverage:begin -->", "<!-- coverage:end -->"
    head, rest = text.split(begin)
    _, tail = rest.split(end)
    path.write_text(f"{head}{begin}\n{coverage_table()}\n{end}{tail}")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write_doc()
    else:
        print(coverage_table())
