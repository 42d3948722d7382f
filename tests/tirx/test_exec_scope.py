"""``tvm.tirx.ExecScope`` and ``ScopeIdDef``: the scopes of a TIRx kernel and their ids."""

import pytest

from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.tirx.exec_scope import SCOPE_BINDINGS, ExecScope, ScopeIdDef


@pytest.mark.parametrize("name", ["cluster", "cta", "warpgroup", "warp", "thread"])
def test_exec_scope_names(name):
    scope = ExecScope(name)
    assert isinstance(scope, tirx.ExecScope) and scope.name == name


@pytest.mark.parametrize("name", ["kernel", "world", "cta_pair", "block", ""])
def test_exec_scope_rejects_other_names(name):
    with pytest.raises(ValueError, match="Unknown scope kind name"):
        ExecScope(name)


def test_scope_id_def_fields():
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    d = ScopeIdDef([x, y], [8, 10], "kernel", "cta")
    assert d.def_ids == (x, y)
    assert [e.value for e in d.extents] == [8, 10]
    assert (d.parent, d.cur) == ("kernel", "cta")
    assert SCOPE_BINDINGS[d.scope] == ("kernel", "cta")
    assert d.preferred_extents is None and d.fused_extent() == 80


def test_scope_id_def_deferred():
    d = ScopeIdDef([tirx.Var("", "int32")], None, "kernel", "cta")
    assert d.extents is None and d.fused_extent() is None
    with pytest.raises(ValueError, match="Deferred ScopeIdDef.*must define exactly one Var"):
        ScopeIdDef([tirx.Var("", "int32"), tirx.Var("", "int32")], None, "kernel", "cta")


def test_scope_id_def_errors():
    v = tirx.Var("v", "int32")
    with pytest.raises(ValueError, match="no scope id of scope 'warp' inside scope 'thread'"):
        ScopeIdDef([v], [4], "thread", "warp")
    with pytest.raises(ValueError, match="1 Vars but 2 extents"):
        ScopeIdDef([v], [4, 2], "cta", "warp")
    with pytest.raises(ValueError, match="preferred extents are only allowed on cluster->cta"):
        ScopeIdDef([v], [4], "kernel", "cta", preferred_extents=[8])
    with pytest.raises(TypeError, match="must be tirx.Vars"):
        ScopeIdDef(["v"], [4], "cta", "warp")


def test_scope_id_def_stmt_structural_equality_is_alpha():
    def make(name):
        v = tirx.Var(name, "int32")
        stmt = tirx.ScopeIdDefStmt(ScopeIdDef([v], [128], "cta", "thread"))
        return tirx.SeqStmt([stmt, tirx.Evaluate(v + 1)])

    assert_structural_equal(make("a"), make("b"))
    with pytest.raises(TypeError, match="expects a ScopeIdDef"):
        tirx.ScopeIdDefStmt("not a def")
