"""ExprVisitor / ExprMutator: traversal, identity on no change, rewriting, var remapping."""

import pytest

import tvm
from tvm import relax
from tvm.ir import Op
from tvm.relax import op
from tvm.relax.expr_functor import PyExprMutator, PyExprVisitor, mutator, visitor
from tvm.tirx.expr import Var as TirVar


def _t(shape, dtype="float32"):
    return relax.TensorType(shape, dtype)


def _build(n_adds=3):
    x = relax.Var("x", _t([3]))
    y = relax.Var("y", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            cur = x
            for _ in range(n_adds):
                cur = bb.emit(op.add(cur, y))
            out = bb.emit_output(op.multiply(cur, x))
        bb.emit_func_output(out)
    return bb.get()["main"]


def test_visitor_sees_everything():
    @visitor
    class Counter(PyExprVisitor):
        def __init__(self):
            self.calls = []
            self.defs = []

        def visit_call_(self, call):
            self.calls.append(call.op.name)
            super().visit_call_(call)

        def visit_var_def_(self, var):
            self.defs.append(var.name_hint)

        def visit_dataflow_var_def_(self, var):
            self.defs.append(var.name_hint)

    counter = Counter()
    counter.visit_expr(_build())
    assert counter.calls == ["relax.add"] * 3 + ["relax.multiply"]
    assert counter.defs == ["x", "y", "lv", "lv1", "lv2", "gv"]


def test_mutator_identity_when_nothing_changes():
    func = _build()
    assert relax.ExprMutator().visit_expr(func) is func


def test_mutator_rewrites_and_renormalizes():
    @mutator
    class AddToMul(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op is Op.get("relax.add"):
                return op.multiply(*call.args)
            return call

    func = _build()
    new = AddToMul().visit_expr(func)
    assert new is not func
    ops = [b.value.op.name for b in new.body.blocks[0].bindings]
    assert ops == ["relax.multiply"] * 4
    for binding in new.body.blocks[0].bindings:
        assert binding.value.ty is not None
    # The rewritten function is structurally what one would build by hand.
    x, y = relax.Var("x", _t([3])), relax.Var("y", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            cur = x
            for _ in range(3):
                cur = bb.emit(op.multiply(cur, y))
            out = bb.emit_output(op.multiply(cur, x))
        bb.emit_func_output(out)
    tvm.ir.assert_structural_equal(new, bb.get()["main"])


def test_type_change_remaps_vars():
    @mutator
    class WidenToSum(PyExprMutator):
        """Replace the first add by a sum (changes its type), uses must follow."""

        def __init__(self):
            super().__init__()
            self.done = False

        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op is Op.get("relax.add") and not self.done:
                self.done = True
                return op.sum(call.args[0], axis=[0], keepdims=True)
            return call

    func = _build(2)
    m = WidenToSum()
    new = m.visit_expr(func)
    bindings = new.body.blocks[0].bindings
    first_var = bindings[0].var
    assert first_var is not func.body.blocks[0].bindings[0].var
    tvm.ir.assert_structural_equal(first_var.ty, _t([1]))
    assert bindings[1].value.args[0] is first_var
    assert m.get_var_remap(func.body.blocks[0].bindings[0].var) is first_var
    tvm.ir.assert_structural_equal(bindings[1].var.ty, _t([3]))


def test_nested_emission_inside_mutator():
    @mutator
    class Expand(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op is Op.get("relax.multiply"):
                # A nested call: the builder binds the inner add first.
                return op.multiply(op.add(call.args[0], call.args[1]), call.args[1])
            return call

    new = Expand().visit_expr(_build(1))
    names = [b.value.op.name for b in new.body.blocks[0].bindings]
    assert names == ["relax.add", "relax.add", "relax.multiply"]
    assert isinstance(new.body.blocks[0].bindings[1].var, relax.DataflowVar)


def test_lookup_binding_and_var_remap_api():
    seen = {}

    @mutator
    class Look(PyExprMutator):
        def visit_var_binding_(self, binding):
            super().visit_var_binding_(binding)
            seen[binding.var.name_hint] = self.lookup_binding(binding.var)

    func = _build(1)
    Look().visit_expr(func)
    assert seen["lv"].op is Op.get("relax.add")
    m = relax.ExprMutator()
    a, b = relax.Var("a", _t([3])), relax.Var("b", _t([3]))
    m.set_var_remap(a, b)
    assert m.visit_expr(a) is b and m.get_var_remap(a) is b


def test_mutator_on_if_and_match_cast():
    n = TirVar("n", "int64")
    cond = relax.Var("c", relax.TensorType([], "bool"))
    x = relax.Var("x", relax.TensorType(ndim=1, dtype="float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [cond, x]):
        y = bb.match_cast(x, _t([n]))
        out = bb.emit(relax.If(cond, op.add(y, y), y))
        bb.emit_func_output(out)
    func = bb.get()["main"]
    assert relax.ExprMutator().visit_expr(func) is func

    @mutator
    class AddToMul(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op is Op.get("relax.add"):
                return op.multiply(*call.args)
            return call

    new = AddToMul().visit_expr(func)
    branch = new.body.blocks[0].bindings[1].value.true_branch
    assert branch.blocks[0].bindings[0].value.op is Op.get("relax.multiply")


def test_decorators_check_base_class():
    with pytest.raises(TypeError, match="PyExprMutator"):

        @mutator
        class NotAMutator:
            pass

    with pytest.raises(TypeError, match="PyExprVisitor"):

        @visitor
        class NotAVisitor:
            pass


def test_long_function_does_not_recurse_per_binding():
    func = _build(3000)
    assert relax.ExprMutator().visit_expr(func) is func
    relax.ExprVisitor().visit_expr(func)


def test_param_redefinition_remaps_uses():
    @mutator
    class RenameParams(PyExprMutator):
        def visit_var_def_(self, var):
            if var.name_hint == "x":
                return relax.Var("x_new", var.ty)
            return var

    func = _build(1)
    new = RenameParams().visit_expr(func)
    assert new.params[0].name_hint == "x_new"
    first = new.body.blocks[0].bindings[0].value
    # lv = add(x, y) now uses the new parameter.
    assert first.args[0] is new.params[0]
    tvm.ir.assert_structural_equal(new, func)


def test_typical_module_transform_pattern():
    # The way TVM users write module-level rewrites with a PyExprMutator.
    @mutator
    class AddToMulModule(PyExprMutator):
        def __init__(self, mod):
            super().__init__(mod)
            self.mod_ = mod

        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op is Op.get("relax.add"):
                return op.multiply(*call.args)
            return call

        def transform(self):
            for gv, func in self.mod_.functions_items():
                if isinstance(func, relax.Function):
                    self.builder_.update_func(gv, self.visit_expr(func))
            return self.builder_.get()

    mod = tvm.IRModule({"main": _build(2)})
    out = AddToMulModule(mod).transform()
    assert [b.value.op.name for b in out["main"].body.blocks[0].bindings] == ["relax.multiply"] * 3
    assert mod["main"].body.blocks[0].bindings[0].value.op.name == "relax.add"


def test_shape_var_in_annotation_follows_remap():
    s = relax.Var("s", relax.ShapeType(ndim=1))
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, s]):
        y = bb.match_cast(x, relax.TensorType(s, "float32"))
        bb.emit_func_output(y)
    func = bb.get()["main"]

    @mutator
    class RenameShape(PyExprMutator):
        def visit_var_def_(self, var):
            if var.name_hint == "s":
                return relax.Var("s2", var.ty)
            return var

    new = RenameShape().visit_expr(func)
    cast = new.body.blocks[0].bindings[0]
    assert cast.ty.shape is new.params[1]
    assert cast.var.ty.shape is new.params[1]


def test_visit_expr_post_order_uses_the_default_rule():
    @mutator
    class Rewrite(PyExprMutator):
        def visit_call_(self, call):
            call = self.visit_expr_post_order(call)  # children first, default rebuild
            if call.op is Op.get("relax.add"):
                return op.multiply(*call.args)
            return call

        def visit_var_(self, var):
            return var

    func = _build(2)
    new = Rewrite().visit_expr(func)
    assert [b.value.op.name for b in new.body.blocks[0].bindings] == ["relax.multiply"] * 3



def test_mutator_replaces_a_return_type_the_new_body_does_not_fit():
    # As TVM's ExprMutator: the declared return type stays while the body's type is a base of
    # it; a body of another shape replaces it.
    x = relax.Var("x", relax.TensorType([2, 3], "float32"))
    y = relax.Var("y", relax.TensorType([4], "float32"))
    func = relax.Function([x], relax.SeqExpr([], x), relax.TensorType([2, 3], "float32"))

    class ToY(relax.ExprMutator):
        def visit_seq_expr_(self, op):
            return relax.SeqExpr([], y)

    class ToRank(relax.ExprMutator):
        def visit_seq_expr_(self, op):
            z = relax.Var("z", relax.TensorType(None, "float32", ndim=2))
            return relax.SeqExpr([], z)

    assert str(ToY().visit_expr(func).ret_ty) == 'R.Tensor((4,), dtype="float32")'
    assert str(ToRank().visit_expr(func).ret_ty) == 'R.Tensor((2, 3), dtype="float32")'
