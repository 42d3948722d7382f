"""VMShapeLower: parameter checks, the shape heap, make_shape and the shape function."""

import tvm
from tvm import relax
from tvm.ir import Op
from tvm.relax.expr import Call, ExternFunc
from tvm.relax.ir.instrument import WellFormedInstrument
from tvm.script import ir as I
from tvm.script import relax as R


def _calls(func):
    out = []
    for block in func.body.blocks:
        for binding in block.bindings:
            value = binding.value
            if isinstance(value, Call):
                if isinstance(value.op, ExternFunc):
                    out.append(value.op.global_symbol)
                elif isinstance(value.op, Op):
                    out.append(value.op.name)
                else:
                    out.append(value.op.name_hint)
    return out


def _ints(call):
    return [a.value.value for a in call.args if isinstance(a, relax.PrimValue)]


def _packed(func, name):
    return [
        b.value
        for blk in func.body.blocks
        for b in blk.bindings
        if isinstance(b.value, Call)
        and isinstance(b.value.op, ExternFunc)
        and b.value.op.global_symbol == name
    ]


def test_static_shapes_use_a_null_heap_and_immediate_codes():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            storage = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
            alloc = R.vm.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
            return alloc

    after = relax.transform.VMShapeLower()(Before)
    func = after["main"]
    assert _calls(func)[:3] == [
        "relax.null_value",
        "vm.builtin.check_tensor_info",
        "vm.builtin.match_shape",
    ]
    (match,) = _packed(func, "vm.builtin.match_shape")[:1]
    # ndim 2, then (code 0 = immediate, value) per dim
    assert _ints(match) == [2, 0, 2, 0, 3]
    assert match.args[-1].value == (
        'ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((2, 3), dtype="float32")) '
    )
    assert "vm.builtin.make_shape" not in func.script()


def test_symbolic_shapes_store_load_and_compute_in_the_heap():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((4, 4), "float32")):
            with R.dataflow():
                a = R.matmul(x, y)
                b = R.exp(a)
                R.output(b)
            return b

    with tvm.transform.PassContext(opt_level=0, instruments=[WellFormedInstrument()]):
        mod = relax.pipeline.default_build_pipeline()(Before)
    func = mod["main"]
    calls = _calls(func)
    assert calls[0] == "relax.call_builtin_with_ctx"
    assert "shape_func" in calls
    heap_size = func.body.blocks[0].bindings[0].value.args[1].fields[0].value.value
    assert heap_size == 2  # n, then n * 16 (the byte size of an (n, 4) float32 tensor)
    first_match = _packed(func, "vm.builtin.match_shape")[0]
    assert _ints(first_match) == [2, 1, 0, 0, 4]  # store n in slot 0
    last_match = _packed(func, "vm.builtin.match_shape")[-1]
    assert _ints(last_match) == [2, 3, 0, 0, 4]  # the result: n must equal slot 0
    make_shapes = [_ints(c) for c in _packed(func, "vm.builtin.make_shape")]
    assert [1, 1, 1] in make_shapes  # the storage size: load slot 1
    assert [2, 1, 0, 0, 4] in make_shapes  # the tensor shape (n, 4)
    shape_func = mod["shape_func"].script()
    assert "H[T.int64(1)] = H[T.int64(0)] * T.int64(16)" in shape_func


def test_symbolic_tir_vars_become_make_prim_value():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n", 3), "float32")):
            with R.dataflow():
                y = R.cumsum(x, axis=None)
                R.output(y)
            return y

    with tvm.transform.PassContext(opt_level=0, instruments=[WellFormedInstrument()]):
        mod = relax.pipeline.default_build_pipeline()(Before)
    func = mod["main"]
    (prim,) = _packed(func, "vm.builtin.make_prim_value")
    # The cumsum kernel reads n as a scalar: load heap slot 0 (where n was stored).
    assert _ints(prim) == [1, 0]
    assert repr(prim.ty) == "T.int64"  # str is the bare dtype, as 0.27
    assert "R.call_tir" not in mod.script()


def test_shape_func_waits_for_variables_bound_by_match_cast():
    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tensor((4, 4), "float32"),
            b: R.Tensor((2,), "int64"),
            e: R.Tensor((2,), "int64"),
            s: R.Tensor((2,), "int64"),
        ):
            with R.dataflow():
                y = R.dynamic_strided_slice(x, b, e, s)
                R.output(y)
            return y

    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.get_default_pipeline(None)(Before)
    calls = _calls(mod["main"])
    bindings = [b for blk in mod["main"].body.blocks for b in blk.bindings]
    match_cast_at = next(i for i, b in enumerate(bindings) if isinstance(b, relax.MatchCast))
    # The storage size s0 * s1 * 4 needs s0 and s1, which the match_cast stores.
    assert calls.index("shape_func") >= match_cast_at
    assert "vm.builtin.tensor_to_shape" in mod.script()
    # The slicing kernel reads s0, s1 from its output buffer (as TVM, no extra arguments).
    assert calls.count("vm.builtin.make_prim_value") == 0


def test_tuple_shape_and_prim_parameters_are_checked():
    @I.ir_module
    class Before:
        @R.function
        def main(
            p: R.Tuple(R.Tensor(("n", 3), "float32"), R.Tensor((3,), "float32")),
            s: R.Shape(["m"]),
            c: R.Prim("bool"),
        ):
            x = p[0]
            return x

    func = relax.transform.VMShapeLower()(Before)["main"]
    calls = _calls(func)
    assert calls[:2] == ["relax.call_builtin_with_ctx", "vm.builtin.check_tuple_info"]
    assert calls.count("vm.builtin.check_tensor_info") == 2
    assert "vm.builtin.check_shape_info" in calls
    assert "vm.builtin.check_prim_value_info" in calls
    matches = [_ints(c) for c in _packed(func, "vm.builtin.match_shape")]
    # p[0] stores n (slot 0), p[1] is (3,), s stores m (slot 1), the result must equal n.
    assert matches == [[2, 1, 0, 0, 3], [1, 0, 3], [1, 1, 1], [2, 3, 0, 0, 3]]
