"""relax.build(params=..., system_lib=...) and relax.transform.BindParams."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Linear:
    @R.function
    def main(
        x: R.Tensor(("n", 3), "float32"), w: R.Tensor(("k", 4), "float32"), b: R.Tensor((4,), "float32")
    ):
        a = R.matmul(x, w)
        c = R.add(a, b)
        return c


W = np.arange(12, dtype="float32").reshape(3, 4) / 10
B = np.arange(4, dtype="float32")
X = np.ones((2, 3), "float32")


def test_bind_params_prints_as_tvm():
    out = relax.transform.BindParams("main", {"w": tvm.runtime.tensor(W), "b": B})(Linear)
    text = out.script()
    # As TVM 0.27 prints it: the bound parameters are gone, k became 3.
    assert 'def main(x: R.Tensor((n, 3), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):' in text
    assert 'R.matmul(x, metadata["ir.GenericConst"][0], out_dtype=None)' in text
    assert 'R.add(a, metadata["ir.GenericConst"][1])' in text
    np.testing.assert_array_equal(out["main"].body.blocks[0].bindings[0].value.args[1].data.numpy(), W)
    # The input module is unchanged.
    assert [p.name_hint for p in Linear["main"].params] == ["x", "w", "b"]


def test_bind_by_var():
    w_var = Linear["main"].params[1]
    out = relax.transform.BindParams("main", {w_var: W})(Linear)
    assert [p.name_hint for p in out["main"].params] == ["x", "b"]


@pytest.mark.parametrize(
    ("func", "params", "words"),
    [
        ("main", {"zz": W}, "has no parameter named 'zz'; its parameters are ('x', 'w', 'b')"),
        ("main", {"w": np.ones((2, 2), "float32")}, "cannot take an array of shape (2, 2)"),
        ("main", {"w": W.astype("float64")}, "cannot take an array of dtype float64"),
        ("main", {"b": np.ones(5, "float32")}, "cannot take an array of shape (5,)"),
        ("nope", {"w": W}, "no function 'nope'"),
    ],
)
def test_bind_params_errors(func, params, words):
    with pytest.raises(ValueError) as err:
        relax.transform.BindParams(func, params)(Linear)
    assert words in str(err.value)


def test_symbolic_vars_must_agree_between_bound_params():
    @I.ir_module
    class Two:
        @R.function
        def main(a: R.Tensor(("k",), "float32"), b: R.Tensor(("k",), "float32")):
            c = R.add(a, b)
            return c

    with pytest.raises(ValueError, match="k is 3 from another parameter but 4 here"):
        relax.transform.BindParams("main", {"a": np.ones(3, "float32"), "b": np.ones(4, "float32")})(Two)


def test_build_keeps_params_unbound_as_tvm_does():
    # TVM 0.27 checks params= but does not bind them: main still takes (x, w, b).
    ex = relax.build(Linear, "llvm", params={"w": W, "b": tvm.runtime.tensor(B)})
    assert sorted(ex.params) == ["b", "w"]
    np.testing.assert_array_equal(ex.params["w"].numpy(), W)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    np.testing.assert_allclose(vm["main"](X, 2 * W, B).numpy(), X @ (2 * W) + B, rtol=1e-6)
    with pytest.raises(TypeError, match="missing 2 required positional arguments: 'w_' and 'b_'"):
        vm["main"](X)
    with pytest.raises(TypeError, match="params must be a dict"):
        relax.build(Linear, "llvm", params=[W])
    with pytest.raises(ValueError, match="has no parameter named 'v'"):
        relax.build(Linear, "llvm", params={"v": W})


def test_bind_params_then_build_folds_them():
    bound = relax.transform.BindParams("main", {"w": W, "b": B})(Linear)
    vm = relax.VirtualMachine(relax.build(bound, "llvm"), tvm.cpu())
    np.testing.assert_allclose(vm["main"](X).numpy(), X @ W + B, rtol=1e-6)


def test_system_lib_builds_a_working_executable(tmp_path):
    ex = relax.build(Linear, "llvm", system_lib=True)
    assert ex.system_lib
    vm = relax.VirtualMachine(ex, tvm.cpu())
    np.testing.assert_allclose(vm["main"](X, W, B).numpy(), X @ W + B, rtol=1e-6)
    assert not relax.build(Linear, "llvm").system_lib
