"""CallTIRRewrite: explicit output allocation for call_tir / call_dps_packed."""

import tvm
from tvm import relax
from tvm.relax.expr import Call
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_call_dps_packed_single_and_tuple_outputs():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.call_dps_packed("my_exp", (x,), out_ty=R.Tensor((2, 3), "float32"))
            z = R.call_dps_packed(
                "my_split", (y,), out_ty=[R.Tensor((2, 1), "float32"), R.Tensor((2, 2), "float32")]
            )
            return z

    after = relax.transform.CallTIRRewrite()(Before)
    assert after["main"].attrs["relax.force_pure"]
    assert after.script().count("R.builtin.alloc_tensor") == 3
    after_calls = [
        b.value
        for blk in after["main"].body.blocks
        for b in blk.bindings
        if isinstance(b.value, Call) and isinstance(b.value.op, relax.ExternFunc)
    ]
    # The packed function receives its inputs then one allocation per output.
    assert [c.op.global_symbol for c in after_calls] == ["my_exp", "my_split"]
    assert [len(c.args) for c in after_calls] == [2, 3]
    assert [str(a) for a in after_calls[1].args[1:]] == ["alloc1", "alloc2"]
    body = after["main"].body
    assert isinstance(body.body, relax.Var)
    final = [b for blk in body.blocks for b in blk.bindings][-1]
    assert isinstance(final.value, relax.Tuple) and final.var.name_hint == "z"


def test_call_tir_becomes_direct_call_with_tir_vars_last():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            with R.dataflow():
                y = R.cumsum(R.reshape(x, R.shape([n])))
                R.output(y)
            return y

    legal = relax.transform.LegalizeOps()(Before)
    lowered = relax.transform.CallTIRRewrite()(relax.transform.ToNonDataflow()(legal))
    text = lowered["main"].script()
    assert "R.call_tir" not in text
    # reshape, the flattening reshape of cumsum(axis=None), cumsum: three allocations.
    assert text.count("R.builtin.alloc_tensor(R.shape([n])") == 3
    assert "cumsum(" in text and "reshape(" in text


def test_call_dps_packed_with_nested_tuple_output_is_flattened_then_rebuilt():
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    leaves = [relax.TensorType((2, 3), "float32"), relax.TensorType((4,), "int32"),
              relax.TensorType((5,), "float16")]
    out_ty = tvm.ir.TupleType([leaves[0], tvm.ir.TupleType(leaves[1:])])
    call = relax.Call(tvm.ir.Op.get("relax.call_dps_packed"),
                      [relax.ExternFunc("my.nested"), relax.Tuple([x])], ty_args=[out_ty])
    bb = relax.BlockBuilder()
    with bb.function("main", [x], attrs={"relax.force_pure": True}):
        bb.emit_func_output(bb.emit(call))
    func = relax.transform.CallTIRRewrite()(bb.get())["main"]
    bindings = func.body.blocks[0].bindings
    allocs = [b.var for b in bindings[:3]]
    assert [b.value.op.name for b in bindings[:3]] == ["relax.builtin.alloc_tensor"] * 3
    assert [a.same_as(b) for a, b in zip(bindings[3].value.args[1:], allocs)] == [True] * 3
    rebuilt = bindings[4].value
    assert rebuilt.fields[0].same_as(allocs[0])
    assert rebuilt.fields[1].fields[1].same_as(allocs[2])


def test_impure_function_gets_no_force_pure():
    @I.ir_module
    class Impure:
        @T.prim_func(private=True)
        def copy(a: T.Buffer((2,), "float32"), b: T.Buffer((2,), "float32")):
            for i in range(2):
                b[i] = a[i]

        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32")):
            R.print(format="side effect")
            y = R.call_tir(Impure.copy, (x,), out_ty=R.Tensor((2,), "float32"))
            return y

    after = relax.transform.CallTIRRewrite()(Impure)
    attrs = after["main"].attrs
    assert attrs is None or "relax.force_pure" not in attrs
    assert relax.analysis.check_well_formed(after)
