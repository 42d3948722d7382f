"""free_vars, bound_vars, all_vars, all_global_vars, symbolic var analyses."""

from tvm import relax
from tvm.ir import GlobalVar
from tvm.relax import op
from tvm.relax.analysis import (
    all_global_vars,
    all_vars,
    bound_vars,
    defined_symbolic_vars,
    free_symbolic_vars,
    free_vars,
    used_vars,
)
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _func():
    n = TirVar("n", "int64")
    m = TirVar("m", "int64")
    x = relax.Var("x", T([n], "float32"))
    z = relax.Var("z", T([3], "float32"))  # free: not a parameter
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        y = bb.match_cast(x, T([m], "float32"))
        a = bb.emit(op.add(y, y))
        b = bb.emit(relax.Call(GlobalVar("g"), [a], sinfo_args=[T([3], "float32")]))
        bb.emit_func_output(relax.Tuple([b, z]))
    return bb.get()["main"], x, y, a, b, z, n, m


def test_free_bound_all():
    func, x, y, a, b, z, _n, _m = _func()
    assert free_vars(func) == [z]
    assert bound_vars(func) == [x, y, a, b]
    assert set(map(id, all_vars(func))) == set(map(id, [x, y, a, b, z]))
    assert free_vars(func.body) == [x, z]


def test_global_vars():
    func = _func()[0]
    assert [g.name_hint for g in all_global_vars(func)] == ["g"]


def test_symbolic_vars():
    func, *_, n, m = _func()
    assert defined_symbolic_vars(func) == [n, m]
    assert free_symbolic_vars(func) == []
    k = TirVar("k", "int64")
    s = relax.ShapeExpr([k])
    assert free_symbolic_vars(s) == [k]


def test_variables_inside_annotations_are_not_counted():
    # As in Apache TVM 0.27: free_vars/used_vars ignore variables used inside types.
    s = relax.Var("s", relax.ShapeType(ndim=1))
    x = relax.Var("x", T(ndim=1, dtype="float32"))
    y = relax.Var("y", T(s, "float32"))
    body = relax.SeqExpr([relax.BindingBlock([relax.MatchCast(y, x, T(s, "float32"))])], y)
    func = relax.Function([x], body, T(ndim=1, dtype="float32"))
    assert free_vars(func) == []
    assert used_vars(func) == [x, y]
