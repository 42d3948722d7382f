"""Every rejection of the Gradient pass (spec F.2): error kind and the words of its message."""

import pytest

import tvm
from tvm import relax, te
from tvm.error import InternalError
from tvm.script import ir as I
from tvm.script import relax as R


def _gradient_error(mod, *words, kind=InternalError, **kwargs):
    with pytest.raises(kind) as info:
        relax.transform.Gradient(kwargs.pop("func_name", "main"), **kwargs)(mod)
    for word in words:
        assert word in str(info.value), (word, str(info.value))
    return info.value


@I.ir_module
class Simple:
    @R.function
    def main(x: R.Tensor((3, 3), "float32"), k: R.Tensor((3, 3), "int64")):
        with R.dataflow():
            lv1 = R.sum(x)
            lv2 = R.add(x, x)
            R.output(lv1, lv2)
        return lv1

    @R.function
    def two(x: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            lv1 = R.sum(x)
            lv2 = R.sum(x, axis=[0])
            R.output(lv1, lv2)
        return (lv1, lv2)

    @R.function
    def non_scalar(x: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            gv = R.add(x, x)
            R.output(gv)
        return gv

    @R.function
    def int_target(k: R.Tensor((3, 3), "int64")):
        with R.dataflow():
            gv = R.sum(k)
            R.output(gv)
        return gv


def test_function_not_found():
    err = _gradient_error(
        Simple, 'Cannot find global var "main1"', kind=ValueError, func_name="main1"
    )
    assert "candidates are" in str(err)


def _copy_kernel():
    a = te.placeholder((3,), "float32", name="a")
    return a, te.compute((3,), lambda i: a[i], name="b")


def test_not_a_relax_function():
    a, b = _copy_kernel()
    mod = tvm.IRModule({"sum": te.create_prim_func([a, b])})
    _gradient_error(mod, "sum is not a Relax Function", func_name="sum")


def test_return_value_kind():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.sum(x)
                R.output(lv)
            return R.const(1.0, "float32")

    _gradient_error(Mod, "The return value of the function must be Var or Tuple")


def test_target_index_checks():
    _gradient_error(Simple, "target_index can only be 0", "specified is 1", target_index=1)
    _gradient_error(
        Simple,
        "specified target_index is 2, while the number of return values is 2",
        func_name="two",
        target_index=2,
    )
    # target_index 1 of "two" is not a scalar
    _gradient_error(Simple, "must be a float scalar", "lv2", func_name="two", target_index=1)


def test_target_not_var():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                gv = R.sum(x)
                R.output(gv)
            return ((gv, gv), gv)

    _gradient_error(Mod, "Target must be a Var", "(gv, gv)")


def test_target_not_float_scalar():
    err = _gradient_error(
        Simple,
        "The differentiation target must be a float scalar (0-dim Tensor)",
        'R.Tensor((3, 3), dtype="float32")',
        func_name="non_scalar",
    )
    # The kind is InternalError as in TVM 0.27, and also a ValueError (invalid IR).
    assert isinstance(err, ValueError) and isinstance(err, RuntimeError)
    _gradient_error(Simple, 'dtype="int64"', func_name="int_target")


def test_require_grads_checks():
    x, k = Simple["main"].params
    other = relax.Var("x0", relax.TensorType([3, 3], "float32"))
    _gradient_error(Simple, "There is no Var named x0 in the function main", require_grads=other)
    _gradient_error(Simple, "Var x appears more than once", require_grads=[x, x])
    _gradient_error(
        Simple,
        "Only Tensors of floating point dtype or Tuples of float Tensors can require gradients",
        'Var k is R.Tensor((3, 3), dtype="int64")',
        require_grads=[x, k],
    )
    with pytest.raises(TypeError, match="require_grads must hold relax.Var"):
        relax.transform.Gradient("main", require_grads=["x"])(Simple)


def test_op_without_gradient_names_op_and_file():
    """Every float op of the library has a rule now; an op registered here has none."""
    from tvm.ir.op import Op, register_op, register_op_attr

    name = "relax.test_grad_family.no_rule"
    register_op(name, 1, family="test")
    register_op_attr(name, "FInferType", lambda call, bb: call.args[0].ty)
    x = relax.Var("x", relax.TensorType([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit(relax.Call(Op.get(name), [x]))
            gv = bb.emit_output(relax.op.sum(lv))
        bb.emit_func_output(gv)
    err = _gradient_error(
        bb.get(),
        f"Attribute FPrimalGradient has not been registered for {name}",
        "src/tvm/relax/op/test/grad.py",
    )
    assert isinstance(err, TypeError)


def test_call_tir_rejected():
    x = relax.Var("x", relax.TensorType([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            lv = bb.emit_te(lambda a: te.compute((3,), lambda i: a[i] * 2.0, name="b"), x)
            gv = bb.emit_output(relax.op.sum(lv))
        bb.emit_func_output(gv)
    err = _gradient_error(bb.get(), "Differentiation of call_tir op without registering")
    assert isinstance(err, ValueError)


def test_match_cast_rejected():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.match_cast(x, R.Tensor((3,), "float32"))
                gv = R.sum(lv)
                R.output(gv)
            return gv

    err = _gradient_error(Mod, "Now only support VarBindingNode")
    assert isinstance(err, ValueError)


def test_bad_arguments():
    with pytest.raises(TypeError, match="function name as a str"):
        relax.transform.Gradient(1)
    with pytest.raises(TypeError, match="target_index must be an int"):
        relax.transform.Gradient("main", target_index="0")


def test_errors_are_enriched_with_the_pass_name():
    # The pass is a module pass named Gradient (opt_level 0).
    pass_ = relax.transform.Gradient("main")
    assert pass_.info.name == "Gradient" and pass_.info.opt_level == 0
    assert isinstance(pass_, tvm.ir.transform.ModulePass)
