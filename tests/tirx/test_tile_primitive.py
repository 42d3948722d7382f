"""The tile-primitive IR nodes: TilePrimitiveCall, DispatchContext, LambdaExpr (spec D.4)."""

import pickle

import pytest

import tvm
from tvm.ir import Op, assert_structural_equal, structural_equal
from tvm.tirx import (
    BufferStore,
    DispatchContext,
    ExecScope,
    LambdaExpr,
    TilePrimitiveCall,
    Var,
    decl_buffer,
)
from tvm.tirx.stmt_functor import StmtExprMutator, post_order_visit, substitute
from tvm.tirx.tile_primitive import TILE_PRIMITIVE_NAMES, get_tile_op


def _bufs():
    A = decl_buffer((64, 64), "float32", name="A")
    S = decl_buffer((64, 64), "float32", name="S", scope="shared")
    return A, S


def test_thirty_tile_primitives_and_compose_op_are_ops():
    assert len(TILE_PRIMITIVE_NAMES) == 31 and TILE_PRIMITIVE_NAMES[-1] == "compose_op"
    for name in TILE_PRIMITIVE_NAMES:
        assert Op.get("tirx.tile." + name) is get_tile_op(name)
    with pytest.raises(ValueError, match="not a tile primitive"):
        get_tile_op("transpose")


def test_call_fields_and_defaults():
    A, S = _bufs()
    call = TilePrimitiveCall(S[0:64, 0:64], A[0:64, 0:64], op="copy")
    assert call.op is Op.get("tirx.tile.copy") and call.name == "copy"
    assert call.workspace == {} and call.config == {} and call.dispatch is None
    assert call.scope.name == "thread"
    assert [r.buffer for r in call.regions()] == [S, A]
    fill = TilePrimitiveCall(S[0:64, 0:64], 1.5, op="fill", scope="cta", dispatch="v",
                             config={"hint": "x", "list": [1, 2]})
    assert fill.args[1].dtype == "float32" and fill.args[1].value == 1.5
    assert fill.config["list"] == (1, 2)
    assert fill.scope.name == "cta" and fill.dispatch == "v"


def test_call_rejects_bad_fields():
    A, _S = _bufs()
    with pytest.raises(ValueError, match=r"tirx.tile.\* op"):
        TilePrimitiveCall(A[0:1, 0:1], op=Op.get("tirx.exp"))
    with pytest.raises(TypeError, match="needs op="):
        TilePrimitiveCall(A[0:1, 0:1])
    with pytest.raises(TypeError, match="workspace must map names to Buffers"):
        TilePrimitiveCall(A[0:1, 0:1], 0.0, op="fill", workspace={"w": 3})
    with pytest.raises(TypeError, match="operand 1"):
        TilePrimitiveCall(A[0:1, 0:1], object(), op="fill")
    with pytest.raises(ValueError, match="Unknown scope kind"):
        TilePrimitiveCall(A[0:1, 0:1], 0.0, op="fill", scope="grid")


def test_structural_equality_and_pickle():
    _A, S = _bufs()
    ws = decl_buffer((16,), "float32", name="ws", scope="shared")

    def make(value):
        return TilePrimitiveCall(S[0:64, 0:64], value, op="fill", workspace={"w": ws},
                                 config={"hint": "h", "stages": 2}, dispatch="reg",
                                 scope=ExecScope("warpgroup"))

    assert structural_equal(make(1.0), make(1.0))
    assert not structural_equal(make(1.0), make(2.0))
    assert not structural_equal(make(1.0), make(1.0).replace(scope=ExecScope("cta")))
    assert not structural_equal(make(1.0), make(1.0).replace(dispatch="other"))
    restored = pickle.loads(pickle.dumps(make(1.0)))
    assert_structural_equal(restored, make(1.0), map_free_vars=True)
    assert restored.op is Op.get("tirx.tile.fill")


def test_replace_keeps_other_fields_and_checks_names():
    A, S = _bufs()
    call = TilePrimitiveCall(S[0:64, 0:64], A[0:64, 0:64], op="copy", dispatch="d",
                             config={"k": 1}, scope="cta")
    new = call.replace(dispatch=None)
    assert new.dispatch is None and new.scope.name == "cta" and new.config == {"k": 1}
    with pytest.raises(TypeError, match="unknown fields"):
        call.replace(bogus=1)


def test_lambda_expr_binds_its_variables():
    pred = LambdaExpr(lambda i, j: i < j)
    assert [v.name for v in pred.vars] == ["i", "j"]
    assert structural_equal(pred, LambdaExpr(lambda a, b: a < b))
    assert not structural_equal(pred, LambdaExpr(lambda a, b: b < a))
    x, y = Var("x", "int32"), Var("y", "int32")
    assert tvm.tirx.analysis.expr_deep_equal(pred.apply([x, y]), x < y)
    with pytest.raises(ValueError, match="2 variables applied to 1"):
        pred.apply([0])


def test_functors_visit_and_mutate_operands():
    A, S = _bufs()
    n = Var("n", "int32")
    call = TilePrimitiveCall(S[n:n + 8, 0:8], A[0:8, 0:8], op="copy")
    seen = []
    post_order_visit(call, lambda node: seen.append(node) if isinstance(node, Var) else None)
    assert any(v is n for v in seen)
    new = substitute(call, {n: 4})
    assert new.args[0].region[0].min.value == 4 and new.args[1] is call.args[1]

    class Same(StmtExprMutator):
        pass

    assert Same()(call) is call


def test_functors_reach_compose_op_members():
    A, S = _bufs()
    n = Var("n", "int32")
    inner = TilePrimitiveCall(S[0:8, 0:8], A[0:8, 0:8], n, op="add")
    group = TilePrimitiveCall(inner, op="compose_op")
    new = substitute(group, {n: 1})
    assert new.args[0].args[2].value == 1


def test_dispatch_context_side_statements_and_state():
    A, S = _bufs()
    ctx = DispatchContext(tvm.target.Target("cuda"), ExecScope("cta"))
    assert ctx.scope_kind == "cta" and ctx.is_cta and not ctx.is_warp
    assert ctx.is_cuda() and not ctx.is_trn() and ctx.is_target("cuda")
    store = BufferStore(S, 0.0, [0, 0])
    ctx.add_alloc_buffer(S)
    ctx.add_init_stmt(store)
    ctx.add_init_stmt(store, host=True)
    ctx.add_post_buffer_def_stmt(A, store)
    assert ctx.callbacks[DispatchContext.kPrivateAlloc] == [S]
    assert ctx.callbacks[DispatchContext.kDeviceInitStmt] == [store]
    assert ctx.callbacks[DispatchContext.kHostInitStmt] == [store]
    assert ctx.callbacks[DispatchContext.kPostBufferDefStmt] == {A: [store]}
    assert ctx.cache_get("k") is None
    ctx.cache_set("k", S)
    assert ctx.cache_get("k") is S
    with pytest.raises(TypeError, match="expects a Stmt"):
        ctx.add_init_stmt(1)


def test_typed_ops_name_their_operands():
    from tvm.tirx.operator.tile_primitive import ops

    A, S = _bufs()
    add = ops.Add(S[0:8, 0:8], A[0:8, 0:8], 2.0)
    assert add.op is Op.get("tirx.tile.add")
    assert add.output is add.args[0] and add.lhs is add.args[1]
    assert add.srcs == [add.args[1]] and add.dsts == [add.args[0]]
    neg = ops.ReduceNegate(S[0:8, 0:1], A[0:8, 0:8], (-1,), False, ops.get_tirx_op("max"))
    assert neg.reduce_op is Op.get("tirx.tile.max") and neg.reduce_axes == (-1,)
    assert len(ops.BinaryReduce(S[0:8, 0:8], S[0:8, 0:1], A[0:8, 0:8], 1.0,
                                ops.get_tirx_op("add"), ops.get_tirx_op("sum"),
                                (-1,)).workspace) == 0
