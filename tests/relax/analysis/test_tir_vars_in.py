"""``tir_vars_in``: the symbolic TIR variables of a value, in pre-order; its fast exits for
static tensor types and literal tuples agree with the generic node walk."""

import pytest

from tvm import relax, tirx
from tvm.ffi.node import walk
from tvm.relax.analysis.type_analysis import tir_vars_in


def _by_walk(value):
    seen = {}
    for node in walk(value):
        if node._sequal_kind == "var" and hasattr(node, "dtype"):
            seen.setdefault(id(node), node)
    return list(seen.values())


n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
two = tirx.IntImm("int64", 2)


@pytest.mark.parametrize(
    "value",
    [
        relax.TensorType((2, 3), "float32"),
        relax.TensorType((n, 3), "float32"),
        relax.TensorType((m, n * 2, m), "float32"),
        relax.TensorType(ndim=2),
        relax.TensorType((2, 3), "float32", vdevice=relax.VDevice("llvm")),
        relax.TupleType([relax.TensorType((2,)), relax.TensorType((n,))]),
        relax.ShapeType([n, 4]),
        (two, two),
        (two, n),
        [two, m],
        (),
    ],
)
def test_tir_vars_in_matches_the_generic_walk(value):
    assert [id(v) for v in tir_vars_in(value)] == [id(v) for v in _by_walk(value)]
