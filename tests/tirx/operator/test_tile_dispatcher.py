"""The tile-primitive dispatch table: registration, variant order, predicates, the failure
report (tvm.tirx.operator.tile_primitive.dispatcher)."""

import pytest

import tvm
from tvm.tirx import DispatchContext, ExecScope, PrimFunc, TilePrimitiveCall, decl_buffer
from tvm.tirx.operator.tile_primitive import dispatcher
from tvm.tirx.operator.tile_primitive.dispatcher import (
    ANY_TARGET,
    DispatchFail,
    TileDispatchError,
    fail,
    list_registered_schedules,
    predicate,
    register_dispatch,
    run_dispatch,
)
from tvm.tirx.stmt import Evaluate


@pytest.fixture(autouse=True)
def _restore_table():
    saved = {k: list(v) for k, v in dispatcher._DISPATCH_TABLE.items()}
    yield
    dispatcher._DISPATCH_TABLE.clear()
    dispatcher._DISPATCH_TABLE.update(saved)


def _func(tag):
    return PrimFunc([], Evaluate(tag))


def _call(op="permute_layout", scope="thread", dispatch=None):
    A = decl_buffer((8, 8), "float16", name="A", scope="shared")
    return TilePrimitiveCall(A[0:8, 0:8], A[0:8, 0:8], op=op, scope=scope, dispatch=dispatch)


def _ctx(scope="thread", target="cuda"):
    return DispatchContext(tvm.target.Target(target), ExecScope(scope))


def test_highest_priority_then_name_wins():
    register_dispatch("permute_layout", "cuda", variant="b", priority=1)(lambda c, x: _func(1))
    register_dispatch("permute_layout", "cuda", variant="a", priority=1)(lambda c, x: _func(2))
    register_dispatch("permute_layout", "cuda", variant="z", priority=5)(lambda c, x: _func(3))
    assert run_dispatch(_call(), _ctx()).body.value.value == 3
    assert list_registered_schedules()["tirx.tile.permute_layout"]["cuda"] == ["z", "a", "b"]


def test_forced_variant_and_unknown_name():
    register_dispatch("permute_layout", "cuda", variant="fast", priority=9)(
        lambda c, x: _func(1))
    register_dispatch("permute_layout", "cuda", variant="slow")(lambda c, x: _func(2))
    assert run_dispatch(_call(dispatch="slow"), _ctx()).body.value.value == 2
    with pytest.raises(TileDispatchError, match="no variant named 'nope' is registered"):
        run_dispatch(_call(dispatch="nope"), _ctx())


def test_generic_variants_apply_to_every_target_after_the_targets_own():
    register_dispatch("permute_layout", ANY_TARGET, variant="generic", priority=-100)(
        lambda c, x: _func(1))
    assert run_dispatch(_call(), _ctx(target="llvm")).body.value.value == 1
    register_dispatch("permute_layout", "llvm", variant="llvm_only")(lambda c, x: _func(2))
    assert run_dispatch(_call(), _ctx(target="llvm")).body.value.value == 2
    assert run_dispatch(_call(), _ctx(target="cuda")).body.value.value == 1


def test_predicate_forms_and_the_reason_table():
    def returns_false(call, ctx):
        return False

    def returns_reason(call, ctx, limit):
        return False, f"needs at most {limit}"

    def raises_fail(call, ctx):
        fail("operand in the wrong memory")

    def broken(call, ctx):
        raise KeyError("oops")

    for name, fn, kw in (("plain", returns_false, {}), ("tuple", returns_reason, {"limit": 4}),
                         ("raises", raises_fail, {}), ("broken", broken, {})):
        register_dispatch("permute_layout", "cuda", variant=f"v_{name}",
                          when=[predicate(name, fn, **kw)])(lambda c, x: _func(0))

    def declines(call, ctx):
        fail("tile too small")

    def throws(call, ctx):
        raise NotImplementedError("not written")

    register_dispatch("permute_layout", "cuda", variant="v_declines")(declines)
    register_dispatch("permute_layout", "cuda", variant="v_throws")(throws)
    register_dispatch("permute_layout", "cuda", variant="v_none")(lambda c, x: None)
    with pytest.raises(RuntimeError) as info:
        run_dispatch(_call(scope="warp"), _ctx("warp"))
    msg = str(info.value)
    assert msg.startswith("TIRx schedule dispatch failed: op=tirx.tile.permute_layout "
                          "target=cuda scope=warp")
    assert "operand 0: A[0:8, 0:8] scope=shared dtype=float16" in msg
    assert "| Variant" in msg and "| v_plain (prio=0)" in msg
    assert "rejected: tuple — needs at most 4" in msg
    assert "rejected: raises — operand in the wrong memory" in msg
    assert "rejected: broken — predicate raised KeyError" in msg
    assert "declined — tile too small" in msg
    assert "exception — NotImplementedError: not written" in msg
    assert "Traceback (most recent call last):" in msg
    assert "the implementation returned None" in msg
    assert "T.warp.permute_layout(A[0:8, 0:8])" in msg
    assert isinstance(info.value.__cause__, NotImplementedError)


def test_no_variant_for_op_and_target():
    with pytest.raises(TileDispatchError, match="no registered variants for this op/target"):
        run_dispatch(_call(op="binary_chain"), _ctx())  # an op with no CUDA variant


def test_registration_checks_its_arguments():
    with pytest.raises(ValueError, match="not a tile primitive"):
        register_dispatch("transpose", "cuda", variant="x")
    with pytest.raises(TypeError, match=r"when= takes predicate\(...\)"):
        register_dispatch("copy", "cuda", variant="x", when=[lambda c, x: True])
    with pytest.raises(ValueError, match="variant must be a non-empty str"):
        register_dispatch("copy", "cuda", variant="")


def test_reregistering_a_variant_replaces_it():
    register_dispatch("permute_layout", "cuda", variant="v")(lambda c, x: _func(1))
    register_dispatch("permute_layout", "cuda", variant="v")(lambda c, x: _func(2))
    assert list_registered_schedules()["tirx.tile.permute_layout"]["cuda"] == ["v"]
    assert run_dispatch(_call(), _ctx()).body.value.value == 2


def test_generic_variants_are_listed():
    table = list_registered_schedules()
    for op in ("fill", "memset", "zero", "copy", "add", "exp", "cast", "maximum", "select",
               "sum", "compose_op"):
        assert "default" in table[f"tirx.tile.{op}"][ANY_TARGET], op


def test_dispatch_fail_is_what_fail_raises():
    with pytest.raises(DispatchFail, match="because"):
        fail("because")
