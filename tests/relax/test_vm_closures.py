"""The VM runs lifted local functions and closures (relax.build runs LambdaLift)."""

import importlib.util
import pathlib

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


def _recursive_module():
    path = pathlib.Path(__file__).parent / "transform" / "test_lambda_lift.py"
    spec = importlib.util.spec_from_file_location("_lambda_lift_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.recursive_module()


@I.ir_module
class Closures:
    @R.function
    def main(
        x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")
    ) -> R.Tensor((2, 3), "float32"):
        @R.function
        def outer_func(
            c1: R.Tensor((2, 3), "float32"),
        ) -> R.Callable((R.Tensor((2, 3), "float32"),), R.Tensor((2, 3), "float32")):
            @R.function
            def inner_func(x1: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
                s: R.Tensor((2, 3), "float32") = R.add(x1, c1)
                return s

            return inner_func

        in_call = outer_func(x)
        res = in_call(y)
        return res

    @R.function
    def scale_by(x: R.Tensor((2, 3), "float32")):
        @R.function
        def scaled(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            return R.multiply(x, y)

        return scaled

    @R.function
    def apply_twice(x: R.Tensor((2, 3), "float32")):
        @R.function
        def double(a: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            return R.add(a, a)

        @R.function
        def twice(
            f: R.Callable((R.Tensor((2, 3), "float32"),), R.Tensor((2, 3), "float32")),
            a: R.Tensor((2, 3), "float32"),
        ) -> R.Tensor((2, 3), "float32"):
            b = f(a)
            c = f(b)
            return c

        r = twice(double, x)
        return (r, double)


X = np.arange(6, dtype="float32").reshape(2, 3)
Y = np.full((2, 3), 0.5, dtype="float32")


@pytest.fixture(scope="module")
def vm():
    return relax.VirtualMachine(relax.build(Closures, "llvm"), tvm.cpu())


def test_a_closure_is_built_returned_and_called(vm):
    np.testing.assert_allclose(vm["main"](X, Y).numpy(), X + Y)


def test_invoke_closure_on_a_returned_closure(vm):
    closure = vm["scale_by"](X)
    np.testing.assert_allclose(vm.invoke_closure(closure, Y).numpy(), X * Y)
    # The closure keeps its captured value: another call with another argument.
    np.testing.assert_allclose(vm.invoke_closure(closure, X).numpy(), X * X)
    assert "scale_by_scaled" in repr(closure)


def test_functions_passed_and_returned_as_values(vm):
    r, double = vm["apply_twice"](X)
    np.testing.assert_allclose(r.numpy(), 4 * X)
    np.testing.assert_allclose(vm.invoke_closure(double, X).numpy(), 2 * X)


def test_recursion_through_a_local_function_matches_the_oracle_result():
    # TVM 0.27 computes x + 10 * x for this loop (10 iterations adding x).
    vm = relax.VirtualMachine(relax.build(_recursive_module(), "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](X).numpy(), 11 * X)


def test_lifted_functions_are_in_the_compiled_module(vm):
    ex = relax.build(Closures, "llvm")
    names = set(ex.function_names)
    assert {"main_inner_func", "main_outer_func", "scale_by_scaled", "apply_twice_twice"} <= names
    assert "R.make_closure" in ex.mod.script()


def test_closures_survive_export(tmp_path):
    ex = relax.build(Closures, "llvm")
    path = str(tmp_path / "closures.so")
    try:
        ex.export_library(path)
    except (OSError, RuntimeError, ValueError) as err:  # no linker on this machine
        pytest.skip(f"export_library unavailable: {err}")
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    np.testing.assert_allclose(vm["main"](X, Y).numpy(), X + Y)


def test_invoke_closure_rejects_non_callables(vm):
    with pytest.raises(TypeError, match="invoke_closure expects a closure"):
        vm.invoke_closure(3, X)


def test_local_functions_calling_each_other_run():
    path = pathlib.Path(__file__).parent / "transform" / "test_lambda_lift.py"
    spec = importlib.util.spec_from_file_location("_lambda_lift_cases2", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vm = relax.VirtualMachine(relax.build(module.LocalCallsLocal, "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](X, Y).numpy(), ((X + X) * Y) ** 2, rtol=1e-6)


def test_captured_symbolic_variables_run():
    path = pathlib.Path(__file__).parent / "transform" / "test_lambda_lift.py"
    spec = importlib.util.spec_from_file_location("_lambda_lift_cases3", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    vm = relax.VirtualMachine(relax.build(module.SymbolicCapture, "llvm"), tvm.cpu())
    x = np.ones(5, "float32")
    y = np.arange(4, dtype="float32")
    (b, shape), (c, x_out, n_shape) = vm["main"](x, y)
    np.testing.assert_array_equal(b.numpy(), 2 * y)
    assert shape == (10,) and n_shape == (5,)
    np.testing.assert_array_equal(c.numpy(), y + 1)
    np.testing.assert_array_equal(x_out.numpy(), x)
