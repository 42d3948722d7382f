"""relax.transform.function_pass / dataflowblock_pass on functions and classes."""

import pytest

import tvm
from tvm import relax
from tvm.ir import Op
from tvm.relax import op

T = relax.TensorType


def _mod():
    x = relax.Var("x", T([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(op.add(x, x))
            gv = bb.emit_output(op.add(lv, x))
        bb.emit_func_output(gv)
    y = relax.Var("y", T([3], "float32"))  # a Var is a parameter of one function only
    with bb.function("second", [y]):
        bb.emit_func_output(bb.emit(op.multiply(y, y)))
    return bb.get()


class _AddToMul(relax.PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if call.op is Op.get("relax.add"):
            return op.multiply(*call.args)
        return call


def _ops(func):
    return [
        b.value.op.name
        for blk in func.body.blocks
        for b in blk.bindings
        if isinstance(b.value, relax.Call)
    ]


def test_function_pass_on_function():
    seen = []

    @relax.transform.function_pass(opt_level=0)
    def rewrite(func, mod, ctx):
        seen.append(func)
        return _AddToMul(mod).visit_expr(func)

    assert rewrite.info.name == "rewrite"
    mod = _mod()
    out = rewrite(mod)
    assert len(seen) == 2
    assert _ops(out["main"]) == ["relax.multiply", "relax.multiply"]
    assert out["second"] is mod["second"]  # unchanged functions are kept
    assert _ops(mod["main"]) == ["relax.add", "relax.add"]  # the input is not mutated


def test_function_pass_on_class():
    @relax.transform.function_pass(opt_level=0, name="Counted")
    class Counted:
        def __init__(self):
            self.count = 0

        def transform_function(self, func, mod, ctx):
            self.count += 1
            return func

    p = Counted()
    mod = _mod()
    assert p(mod) is mod  # nothing changed: the same module
    assert p.count == 2 and p.info.name == "Counted"


def test_function_pass_must_return_function():
    bad = relax.transform.function_pass(lambda f, m, c: None, opt_level=0, name="Bad")
    with pytest.raises(TypeError, match="Function pass Bad must return a relax.Function for"):
        bad(_mod())
    with pytest.raises(ValueError, match="opt_level"):
        relax.transform.function_pass(lambda f, m, c: f)
    with pytest.raises(TypeError, match="transform_function"):

        @relax.transform.function_pass(opt_level=0)
        class NoMethod:
            pass


def test_dataflowblock_pass_function_and_class():
    blocks = []

    @relax.transform.dataflowblock_pass(opt_level=0)
    def collect(block, mod, ctx):
        blocks.append(block)
        return block

    mod = _mod()
    assert collect(mod) is mod
    assert len(blocks) == 1 and isinstance(blocks[0], relax.DataflowBlock)

    @relax.transform.dataflowblock_pass(opt_level=0, name="SwapOps")
    class SwapOps:
        def transform_dataflowblock(self, block, mod, ctx):
            new = []
            for b in block.bindings:
                value = b.value
                if isinstance(value, relax.Call) and value.op is Op.get("relax.add"):
                    value = op.multiply(*value.args)
                new.append(relax.VarBinding(b.var, value))
            return relax.DataflowBlock(new)

    out = SwapOps()(mod)
    assert _ops(out["main"]) == ["relax.multiply", "relax.multiply"]
    assert out["main"].body.blocks[0].bindings[0].value.ty is not None
    assert out["second"] is mod["second"]

    bad = relax.transform.dataflowblock_pass(lambda b, m, c: 3, opt_level=0, name="BadBlock")
    with pytest.raises(TypeError, match="BadBlock must return a DataflowBlock"):
        bad(mod)


def test_relax_passes_in_sequential_and_context():
    log = []

    @relax.transform.function_pass(opt_level=3, name="High")
    def high(func, mod, ctx):
        log.append("High")
        return func

    seq = tvm.transform.Sequential([relax.transform.Normalize(), high])
    seq(_mod())
    assert log == []
    with tvm.transform.PassContext(opt_level=3):
        seq(_mod())
    assert log == ["High", "High"]  # once per Relax function
