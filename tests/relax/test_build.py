"""``tvm.compile`` / ``relax.build`` of Relax modules through the default pipeline (LegalizeOps
and whatever fusion passes exist), compared with the reference evaluator."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import evaluate
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Elementwise:
    @R.function
    def main(x: R.Tensor(("n", 8), "float32"), b: R.Tensor((8,), "float32")):
        with R.dataflow():
            y = R.add(x, b)
            z = R.nn.relu(y)
            w = R.multiply(z, x)
            R.output(w)
        return w


@I.ir_module
class Dense:
    @R.function
    def main(x: R.Tensor((4, 16), "float32"), w: R.Tensor((16, 8), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            R.output(y)
        return y


@pytest.fixture(scope="module")
def elementwise_exec():
    return tvm.compile(Elementwise, target="llvm")


def test_tvm_compile_of_a_relax_module_returns_an_executable(elementwise_exec):
    assert isinstance(elementwise_exec, relax.Executable)
    assert elementwise_exec.function_names == ["main"]
    assert "NumPy fallbacks: 0" in elementwise_exec.stats()


def test_compiled_module_matches_the_reference_evaluator(elementwise_exec):
    vm = relax.VirtualMachine(elementwise_exec, tvm.cpu())
    rng = np.random.default_rng(1)
    for n in (1, 6):
        x = rng.standard_normal((n, 8), dtype="float32")
        b = rng.standard_normal(8, dtype="float32")
        np.testing.assert_allclose(
            vm["main"](x, b).numpy(), evaluate(Elementwise, x, b), rtol=1e-6
        )


def test_relax_build_matches_tvm_compile(elementwise_exec):
    ex = relax.build(Elementwise, target="llvm")
    assert ex.as_python() == elementwise_exec.as_python()


def test_export_and_load_a_legalized_module(elementwise_exec, tmp_path):
    path = str(tmp_path / "elementwise.so")
    elementwise_exec.export_library(path)
    vm = relax.VirtualMachine(tvm.runtime.load_module(path), tvm.cpu())
    x = np.ones((2, 8), "float32")
    np.testing.assert_allclose(vm["main"](x, x[0]).numpy(), np.full((2, 8), 2.0, "float32"))


def test_without_a_pipeline_unlegalized_ops_run_their_numpy_reference():
    ex = relax.build(Elementwise, relax_pipeline=None)
    assert "relax.add" in ex.stats()
    vm = relax.VirtualMachine(ex, tvm.cpu())
    x = np.arange(16, dtype="float32").reshape(2, 8) - 4
    b = np.ones(8, "float32")
    np.testing.assert_allclose(vm["main"](x, b).numpy(), evaluate(Elementwise, x, b))
    with pytest.raises(ValueError, match="cannot be exported"):
        ex._program_text()


def test_matmul_compiles():
    vm = relax.VirtualMachine(tvm.compile(Dense), tvm.cpu())
    x = np.ones((4, 16), "float32")
    w = np.ones((16, 8), "float32")
    np.testing.assert_allclose(vm["main"](x, w).numpy(), x @ w)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"params": {"nope": np.zeros(1)}}, "has no parameter named 'nope'"),
        ({"exec_mode": "jit"}, "exec_mode"),
        ({"relax_pipeline": "no-such-pipeline"}, "(?i)unknown .*pipeline"),
    ],
)
def test_bad_build_arguments(kwargs, words):
    with pytest.raises(ValueError, match=words):
        relax.build(Elementwise, **kwargs)


def test_build_rejects_non_modules():
    with pytest.raises(TypeError, match="expects an IRModule"):
        relax.build(42)
