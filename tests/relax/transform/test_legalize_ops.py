"""LegalizeOps: the IR TVM 0.27 produces (add, sum, matmul), rule overrides, errors."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import tvm
from tvm import relax, topi
from tvm.ir.op import Op
from tvm.relax.testing import evaluate
from tvm.relax.transform.legalize_ops.common import register_legalize
from tvm.script import ir as I
from tvm.script import relax as R

# Printed by Apache TVM 0.27 for ``LegalizeOps()(Before)`` of the test below.
TVM_EXPECTED = """\
# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add(x: T.Buffer((n, T.int64(3)), "float32"), T_add: T.Buffer((n, T.int64(3)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1 in T.grid(n, T.int64(3)):
            with T.sblock("T_add"):
                v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(x[v_ax0, v_ax1])
                T.writes(T_add[v_ax0, v_ax1])
                T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + T.float32(1.0)

    @T.prim_func(private=True, s_tir=True)
    def matmul(x: T.Buffer((n, T.int64(3)), "float32"), y: T.Buffer((T.int64(3), T.int64(4)), "float32"), matmul: T.Buffer((n, T.int64(4)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i0, i1, k in T.grid(n, T.int64(4), T.int64(3)):
            with T.sblock("matmul"):
                v_i0, v_i1, v_k = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v_i0, v_k], y[v_k, v_i1])
                T.writes(matmul[v_i0, v_i1])
                with T.init():
                    matmul[v_i0, v_i1] = T.float32(0.0)
                matmul[v_i0, v_i1] = matmul[v_i0, v_i1] + x[v_i0, v_k] * y[v_k, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def sum(a: T.Buffer((n, T.int64(3)), "float32"), a_red: T.Buffer((n, T.int64(1)), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for ax0, ax1, k1 in T.grid(n, T.int64(1), T.int64(3)):
            with T.sblock("a_red"):
                v_ax0, v_ax1, v_k1 = T.axis.remap("SSR", [ax0, ax1, k1])
                T.reads(a[v_ax0, v_k1])
                T.writes(a_red[v_ax0, v_ax1])
                with T.init():
                    a_red[v_ax0, v_ax1] = T.float32(0.0)
                a_red[v_ax0, v_ax1] = a_red[v_ax0, v_ax1] + a[v_ax0, v_k1]

    @R.function
    def main(x: R.Tensor((n, 3), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")) -> R.Tuple(R.Tensor((n, 1), dtype="float32"), R.Tensor((n, 4), dtype="float32")):
        cls = Module
        with R.dataflow():
            a = R.call_tir(cls.add, (x,), out_ty=R.Tensor((n, 3), dtype="float32"))
            b = R.call_tir(cls.sum, (a,), out_ty=R.Tensor((n, 1), dtype="float32"))
            c = R.call_tir(cls.matmul, (x, y), out_ty=R.Tensor((n, 4), dtype="float32"))
            R.output(b, c)
        return (b, c)
"""


def _normalize(text):
    """Drop two printer differences unrelated to legalization: the order of the
    ``T.prim_func`` keywords and a re-declaration of the module-level symbolic var ``n``."""
    text = text.replace(
        "@T.prim_func(s_tir=True, private=True)", "@T.prim_func(private=True, s_tir=True)"
    )
    return re.sub(r"\n        n = T\.int64\(\)", "", text).strip()


@I.ir_module
class AddSumMatmul:
    @R.function
    def main(x: R.Tensor(("n", 3), "float32"), y: R.Tensor((3, 4), "float32")):
        with R.dataflow():
            a = R.add(x, R.const(1.0, "float32"))
            b = R.sum(a, axis=[1], keepdims=True)
            c = R.matmul(x, y)
            R.output(b, c)
        return (b, c)


def test_add_sum_matmul_print_as_tvm():
    after = relax.transform.LegalizeOps()(AddSumMatmul)
    assert _normalize(after.script()) == _normalize(TVM_EXPECTED)


def test_add_sum_matmul_values_with_symbolic_n():
    after = relax.transform.LegalizeOps()(AddSumMatmul)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 3)).astype("float32")
    y = rng.standard_normal((3, 4)).astype("float32")
    b, c = evaluate(after, x, y)
    np.testing.assert_allclose(b, (x + 1).sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(c, x @ y, rtol=1e-5)


def test_input_module_is_not_mutated():
    before_text = AddSumMatmul.script()
    relax.transform.LegalizeOps()(AddSumMatmul)
    assert AddSumMatmul.script() == before_text
    assert len(AddSumMatmul.functions) == 1


def _single_op_module(make_call, *types):
    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", ty) for i, ty in enumerate(types)]
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(make_call(*params)))
        bb.emit_func_output(out)
    return bb.get()


F23 = relax.TensorType((2, 3), "float32")


def _call_tir_names(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items() if gv.name_hint != "main")


def test_customize_legalize_map_takes_precedence():
    mod = _single_op_module(relax.op.add, F23, F23)

    def add_as_subtract(bb, call):
        return bb.call_te(topi.subtract, *call.args, primfunc_name_hint="my_sub")

    after = relax.transform.LegalizeOps({"relax.add": add_as_subtract})(mod)
    assert _call_tir_names(after) == ["my_sub"]
    a, b = np.ones((2, 3), "float32"), np.full((2, 3), 3, "float32")
    np.testing.assert_allclose(evaluate(after, a, b), a - b)


def test_register_legalize_higher_level_overrides_default():
    mod = _single_op_module(relax.op.multiply, F23, F23)
    default = Op.get("relax.multiply").get_attr("FLegalize")

    def mul_as_add(bb, call):
        return bb.call_te(topi.add, *call.args, primfunc_name_hint="mul_as_add")

    register_legalize("relax.multiply", mul_as_add, level=11)
    try:
        after = relax.transform.LegalizeOps()(mod)
    finally:
        register_legalize("relax.multiply", default, level=12)
    assert _call_tir_names(after) == ["mul_as_add"]
    assert _call_tir_names(relax.transform.LegalizeOps()(mod)) == ["multiply"]


@pytest.fixture
def exp_without_rule():
    """relax.exp with its FLegalize rule removed for the test (restored afterwards)."""
    op = Op.get("relax.exp")
    rule = op.get_attr("FLegalize")
    op.reset_attr("FLegalize")
    try:
        yield
    finally:
        register_legalize("relax.exp", rule)


def test_op_without_rule_is_left_with_a_warning_naming_op_and_file(exp_without_rule):
    mod = _single_op_module(relax.op.exp, F23)
    with pytest.warns(UserWarning) as record:
        after = relax.transform.LegalizeOps()(mod)
    message = str(record[0].message)
    for word in ("relax.exp", "FLegalize", "unary/legalize.py", "keep_ops"):
        assert word in message, (word, message)
    assert "R.exp" in after.script()  # as TVM: the call is left as it is
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        relax.transform.LegalizeOps(enable_warning=False)(mod)


def test_reading_a_rule_before_any_pass_sees_the_defaults():
    # The default rules load on the first read of the FLegalize table (TVM has them at import).
    assert Op.get("relax.add").get_attr("FLegalize") is not None


def test_keep_ops_leaves_the_call(exp_without_rule):
    mod = _single_op_module(relax.op.exp, F23)
    after = relax.transform.LegalizeOps(keep_ops=["relax.exp"])(mod)
    assert "R.exp" in after.script()


def test_unknown_shape_is_left_with_a_warning():
    mod = _single_op_module(relax.op.exp, relax.TensorType(None, "float32", ndim=2))
    with pytest.warns(UserWarning, match="relax.exp is not legalized.*unknown shape"):
        after = relax.transform.LegalizeOps()(mod)
    assert "R.exp" in after.script()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        relax.transform.LegalizeOps(enable_warning=False)(mod)


def test_grad_markers_become_their_argument():
    bb = relax.BlockBuilder()
    x = relax.Var("x", F23)
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.op.grad.no_grad(x))
            lv = bb.emit(relax.op.grad.start_checkpoint(lv))
            out = bb.emit_output(relax.op.grad.end_checkpoint(lv))
        bb.emit_func_output(out)
    mod = bb.get()
    after = relax.transform.LegalizeOps()(mod)
    assert _call_tir_names(after) == []
    x = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(evaluate(after, x), x)


def test_nested_and_tuple_outputs():
    mod = _single_op_module(lambda x: relax.op.split(relax.op.exp(x), 3, axis=1), F23)
    after = relax.transform.LegalizeOps()(mod)
    assert _call_tir_names(after) == ["split", "tir_exp"]
    x = np.arange(6, dtype="float32").reshape(2, 3)
    parts = evaluate(after, x)
    for k, part in enumerate(parts):
        np.testing.assert_allclose(part, np.exp(x)[:, k : k + 1], rtol=1e-6)


def test_identical_kernels_are_shared():
    mod = _single_op_module(lambda x, y: relax.op.add(relax.op.add(x, y), y), F23, F23)
    after = relax.transform.LegalizeOps()(mod)
    assert _call_tir_names(after) == ["add"]


def test_every_library_op_has_a_rule_or_is_kept():
    from tvm.ir.op import list_op_names
    from tvm.relax.transform.legalize_ops import _KEPT_PREFIXES, KEPT_OPS
    from tvm.relax.transform.legalize_ops.common import RULE_FAMILIES, load_default_rules

    load_default_rules()
    # Only the library's families: other tests may register ops of their own.
    families = set(RULE_FAMILIES) | {"base"}
    missing = [
        name
        for name in list_op_names()
        if name.startswith("relax.")
        and "test" not in name  # ops registered by tests (relax.testing_evaluator_noref)
        and Op.get(name).family in families
        and Op.get(name).get_attr("FLegalize") is None
        and name not in KEPT_OPS
        and not name.startswith(_KEPT_PREFIXES)
    ]
    assert missing == []


def test_tensor_to_shape_and_back_become_runtime_builtins():
    @I.ir_module
    class Before:
        @R.function
        def main(t: R.Tensor((2,), "int64")):
            s = R.tensor_to_shape(t)
            u = R.shape_to_tensor(s)
            return u

    after = relax.transform.LegalizeOps()(Before)
    text = after.script()
    assert 'R.call_pure_packed("vm.builtin.tensor_to_shape", t' in text
    # A shape of unknown values goes to TVM's runtime builtin; known values make a kernel.
    assert 'R.call_pure_packed("relax.run.shape_to_tensor", s' in text
    assert str(after["main"].ret_ty) == 'R.Tensor((2,), dtype="int64")'
    out = tvm.relax.VirtualMachine(tvm.compile(Before), tvm.cpu())["main"](
        tvm.runtime.tensor(np.array([3, 5], "int64")))
    np.testing.assert_array_equal(out.numpy(), [3, 5])


def test_shape_to_tensor_of_known_values_is_a_kernel():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("m", 3), "float32")):
            return R.shape_to_tensor(R.shape_of(x))

    after = relax.transform.LegalizeOps()(Before)
    assert "shape_to_tensor" in [gv.name_hint for gv in after.get_global_vars()]
    out = evaluate(after, np.zeros((4, 3), "float32"))
    np.testing.assert_array_equal(np.asarray(out), [4, 3])


def _repeated_ops_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    y = relax.Var("y", relax.TensorType((2, 3), "float32"))
    z = relax.Var("z", relax.TensorType((3, 2), "float32"))
    with bb.function("main", [x, y, z]):
        with bb.dataflow():
            bb.emit(relax.op.multiply(x, x))  # one te input: x is both operands
            b = bb.emit(relax.op.multiply(x, y))
            c = bb.emit(relax.op.multiply(x, y))  # the kernel of the call above
            bb.emit(relax.op.multiply(y, x))  # other names: built again (equal kernel here)
            d = bb.emit(relax.op.multiply(b, b))
            e = bb.emit(relax.op.multiply(z, z))  # another shape: another kernel
            f = bb.emit(relax.op.sum(relax.op.add(c, d), axis=[0]))
            g = bb.emit(relax.op.sum(relax.op.add(c, d), axis=[1]))  # other attrs
            out = bb.emit_output(relax.Tuple([f, g, e]))
        bb.emit_func_output(out)
    return bb.get()


def test_repeated_calls_reuse_the_first_kernel_with_the_same_result(monkeypatch):
    """Calls of an op on the same variables (same names and types) and attributes build the te
    kernel once; the module is the one built without the memo (aliasing, names, attributes)."""
    from tvm.relax.transform.legalize_ops import _Legalizer

    mod = _repeated_ops_module()
    memo_text = relax.transform.LegalizeOps()(mod).script()
    monkeypatch.setattr(_Legalizer, "_reuse", lambda self, call, rule, key: None)
    plain_text = relax.transform.LegalizeOps()(mod).script()
    assert memo_text == plain_text
    assert re.findall(r"call_tir\(cls\.(\w+)", memo_text) == [
        "multiply", "multiply1", "multiply1", "multiply1", "multiply", "multiply2", "add", "sum",
        "add", "sum1",
    ]


def test_repeated_calls_run_the_rule_once():
    calls = []

    def counting_multiply(bb, call):
        calls.append(call)
        return bb.call_te(topi.multiply, *call.args, primfunc_name_hint="multiply")

    after = relax.transform.LegalizeOps({"relax.multiply": counting_multiply})(
        _repeated_ops_module())
    # x * x, x * y (the second x * y reuses it), y * x, b * b, z * z
    assert len(calls) == 5
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = x + 1
    z = x.reshape(3, 2)
    f, g, e = evaluate(after, x, y, z)
    c, d = x * y, (x * y) ** 2
    np.testing.assert_allclose(f, (c + d).sum(axis=0), rtol=1e-6)
    np.testing.assert_allclose(g, (c + d).sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(e, z * z, rtol=1e-6)


def test_repeated_calls_with_constants_and_shapes_reuse_with_the_same_result(monkeypatch):
    """Constant, shape and scalar arguments take part in the memo by value: equal ones reuse
    the first kernel, other values (another scalar is another kernel) build their own."""
    from tvm.relax.transform.legalize_ops import _Legalizer

    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    two = relax.const(2.0, "float32")
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(relax.op.multiply(two, x))
            b = bb.emit(relax.op.multiply(relax.const(2.0, "float32"), x))  # equal constant
            c = bb.emit(relax.op.multiply(relax.const(3.0, "float32"), x))  # another value
            m = relax.const(np.arange(6, dtype="float32").reshape(2, 3))
            d = bb.emit(relax.op.add(x, m))
            e = bb.emit(relax.op.add(x, relax.const(np.arange(6, dtype="float32").reshape(2, 3))))
            f = bb.emit(relax.op.add(x, relax.const(np.ones((2, 3), "float32"))))
            o1 = bb.emit(relax.op.ones(relax.ShapeExpr([2, 3]), "float32"))
            o2 = bb.emit(relax.op.ones(relax.ShapeExpr([2, 3]), "float32"))
            o3 = bb.emit(relax.op.ones(relax.ShapeExpr([3, 2]), "float32"))
            out = bb.emit_output(relax.Tuple([a, b, c, d, e, f, o1, o2, o3]))
        bb.emit_func_output(out)
    mod = bb.get()
    built = []
    real_call_te = relax.BlockBuilder.call_te

    def counting_call_te(self, func, *args, **kwargs):
        built.append(kwargs.get("primfunc_name_hint"))
        return real_call_te(self, func, *args, **kwargs)

    monkeypatch.setattr(relax.BlockBuilder, "call_te", counting_call_te)
    memo = relax.transform.LegalizeOps()(mod)
    assert len(built) == 6  # 2.0 * x, 3.0 * x, x + arange, x + ones, ones(2, 3), ones(3, 2)
    monkeypatch.setattr(_Legalizer, "_reuse", lambda self, call, rule, key: None)
    plain = relax.transform.LegalizeOps()(mod)
    assert memo.script() == plain.script()
    outs = evaluate(memo, np.arange(6, dtype="float32").reshape(2, 3))
    data = np.arange(6, dtype="float32").reshape(2, 3)
    expected = [2 * data, 2 * data, 3 * data, data + data, data + data, data + 1,
                np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 2))]
    for got, want in zip(outs, expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_like_ops_and_trilu_kernels_are_named_and_spelled_as_tvm():
    """``full_like``/``ones_like`` kernels carry the plain op's name (TVM's), and trilu's
    condition is simplified as TVM simplifies it (``v_i1 < v_i2`` for ``triu(k=1)``)."""

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), v: R.Tensor((), "float32")):
            a = R.full_like(x, v)
            b = R.ones_like(x)
            c = R.triu(x, k=1)
            return (a, b, c)

    mod = relax.transform.LegalizeOps()(Mod)
    names = sorted(gv.name_hint for gv in mod.get_global_vars())
    assert names == ["full", "main", "ones", "triu"]
    assert re.search(r"T\.Select\(v_\w+0 < v_\w+1, ", mod["triu"].script())
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = evaluate(mod, x, np.array(2.5, "float32"))
    np.testing.assert_array_equal(np.asarray(out[0]), np.full((2, 3), 2.5, "float32"))
    np.testing.assert_array_equal(np.asarray(out[2]), np.triu(x, 1))


def test_composite_rule_result_is_legalized_inside_out():
    name = "test_compat.matmul_bias"

    def infer(call, ctx):
        return call.args[2].ty

    def legalize(bb, call):
        a, w, b = call.args
        return relax.op.matmul(a, w) + b

    for key, value in (("FInferType", infer), ("FLegalize", legalize), ("FPurity", True)):
        tvm.ir.register_op_attr(name, key, value)  # declares the op, as TVM does
    try:
        a = relax.Var("a", relax.TensorType((2, 3), "float32"))
        w = relax.Var("w", relax.TensorType((3, 4), "float32"))
        b = relax.Var("b", relax.TensorType((2, 4), "float32"))
        bb = relax.BlockBuilder()
        with bb.function("main", [a, w, b]):
            bb.emit_func_output(bb.emit(relax.Call(Op.get(name), [a, w, b])))
        once = relax.transform.LegalizeOps()(bb.get())
        text = once.script()
        assert "R.matmul" not in text and text.count("R.call_tir") == 2
        tvm.ir.assert_structural_equal(relax.transform.LegalizeOps()(once), once)
    finally:
        for key in ("FInferType", "FLegalize", "FPurity"):
            Op.get(name).reset_attr(key)


def test_matmul_of_unknown_dtype_is_refused_with_tvms_assertion():
    a = relax.Var("a", relax.TensorType((2, 3), "void"))
    w = relax.Var("w", relax.TensorType((3, 4), "void"))
    bb = relax.BlockBuilder()
    with bb.function("main", [a, w]):
        bb.emit_func_output(bb.emit(relax.op.matmul(a, w)))
    with pytest.raises(AssertionError, match="To legalize R.matmul"):
        relax.transform.LegalizeOps()(bb.get())


def test_data_dependent_ops_are_marked_as_tvm():
    assert Op.get("relax.dynamic_strided_slice").get_attr("FDataDependent")
    assert Op.get("relax.full").get_attr("FDataDependent")
    assert Op.get("relax.strided_slice").get_attr("FDataDependent") is None


def test_matmul_batch_dims_of_one_on_both_sides_keep_the_loop_index():
    x = relax.Var("x", relax.TensorType((1, 1, 4, 5), "float32"))
    y = relax.Var("y", relax.TensorType((1, 1, 5, 7), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        bb.emit_func_output(bb.emit(relax.op.matmul(x, y)))
    mod = bb.get()
    kernel = relax.transform.LegalizeOps()(mod)["matmul"].script()
    assert "T.reads(x[v_i0, v_i1, v_i2, v_k], y[v_i0, v_i1, v_k, v_i3])" in kernel
    a = np.random.default_rng(0).standard_normal((1, 1, 4, 5)).astype("float32")
    b = np.random.default_rng(1).standard_normal((1, 1, 5, 7)).astype("float32")
    got = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](
        tvm.runtime.tensor(a), tvm.runtime.tensor(b))
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5)
