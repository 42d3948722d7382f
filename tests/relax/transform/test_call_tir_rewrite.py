"""CallTIRRewrite: explicit output allocation for call_tir / call_dps_packed."""

from tvm import relax
from tvm.relax.expr import Call
from tvm.script import ir as I
from tvm.script import relax as R


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


from tvm.script import tirx as T
