"""Property tests over random BlockBuilder programs (hypothesis).

A program is a list of steps over a growing pool of same-shaped tensors: each step emits
``add``/``multiply`` of two pool entries, a ``sum`` + ``broadcast_to`` round trip, or a
``permute_dims`` twice. Properties: normalizing and identity-mutating return the same
objects and the result is well-formed, building twice gives structurally equal (and equally hashed) functions regardless of
names, and swapping add/multiply twice gives back a structurally equal function.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax
from tvm.ir import Op
from tvm.relax import op

SHAPE = [2, 3]
STEP = st.tuples(
    st.sampled_from(["add", "multiply", "sum_bcast", "perm2"]),
    st.integers(0, 1000),
    st.integers(0, 1000),
)
PROGRAM = st.tuples(st.lists(STEP, min_size=1, max_size=25), st.booleans())


def _build(program, prefix=""):
    steps, use_dataflow = program
    x = relax.Var(prefix + "x", relax.TensorType(SHAPE, "float32"))
    y = relax.Var(prefix + "y", relax.TensorType(SHAPE, "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        pool = [x, y]

        def body():
            for kind, i, j in steps:
                a, b = pool[i % len(pool)], pool[j % len(pool)]
                if kind == "add":
                    value = op.add(a, b)
                elif kind == "multiply":
                    value = op.multiply(a, b)
                elif kind == "sum_bcast":
                    value = op.broadcast_to(op.sum(a, axis=[0], keepdims=True), SHAPE)
                else:
                    value = op.permute_dims(op.permute_dims(a))
                pool.append(bb.emit(value, name_hint=prefix + "v" if i % 3 == 0 else ""))
            return pool[-1]

        if use_dataflow:
            with bb.dataflow():
                out = bb.emit_output(body())
        else:
            out = body()
        bb.emit_func_output(out)
    return bb.get()["main"]


class _Swap(relax.PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if call.op is Op.get("relax.add"):
            return op.multiply(*call.args)
        if call.op is Op.get("relax.multiply"):
            return op.add(*call.args)
        return call


@settings(max_examples=40, deadline=None)
@given(PROGRAM)
def test_normal_form_is_a_fixpoint(program):
    func = _build(program)
    relax.analysis.well_formed(tvm.IRModule({"main": func}))  # raises on any violation
    assert relax.BlockBuilder().normalize(func) is func
    assert relax.ExprMutator().visit_expr(func) is func
    mod = tvm.IRModule({"main": func})
    assert relax.transform.Normalize()(mod)["main"] is func
    for block in func.body.blocks:
        for binding in block.bindings:
            assert binding.value.ty is not None
            if isinstance(binding.value, relax.Call):
                assert all(isinstance(a, (relax.Var, relax.ShapeExpr)) for a in binding.value.args)


@settings(max_examples=40, deadline=None)
@given(PROGRAM)
def test_rebuild_is_structurally_equal_regardless_of_names(program):
    a = _build(program)
    b = _build(program, prefix="renamed_")
    tvm.ir.assert_structural_equal(a, b)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)


@settings(max_examples=40, deadline=None)
@given(PROGRAM)
def test_swapping_twice_is_identity_up_to_structure(program):
    func = _build(program)
    twice = _Swap().visit_expr(_Swap().visit_expr(func))
    tvm.ir.assert_structural_equal(twice, func)
    has_arith = any(k in ("add", "multiply") for k, _, _ in program[0])
    if has_arith:
        assert not tvm.ir.structural_equal(_Swap().visit_expr(func), func)
