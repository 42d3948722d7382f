"""RemovePurityChecking: pure functions (nested ones too) get ``relax.force_pure`` and plain
packed/closure calls; impure functions are untouched; the result still runs."""

import numpy as np

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Before:
    @R.function
    def base(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        return R.add(x, x)

    @R.function
    def main(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        y = R.call_pure_packed("vm.builtin.copy", x, ty_args=R.Tensor((2,), "int32"))
        closure = R.make_closure(Before.base, ())
        z = R.invoke_pure_closure(closure, (y,), ty_args=R.Tensor((2,), "int32"))
        return z

    @R.function(pure=False)
    def noisy() -> R.Tuple:
        R.print(format="impure")
        return R.tuple()


def test_pure_functions_are_marked_and_calls_made_plain():
    after = relax.transform.RemovePurityChecking()(Before)
    main = after["main"]
    assert main.attrs["relax.force_pure"]
    text = main.script()
    assert 'R.call_packed("vm.builtin.copy", x' in text
    assert "R.invoke_closure(closure, (y,)" in text
    assert "call_pure_packed" not in text and "invoke_pure_closure" not in text
    assert after["base"].attrs["relax.force_pure"]
    noisy = after["noisy"]
    assert noisy.attrs is None or "relax.force_pure" not in noisy.attrs
    assert relax.analysis.check_well_formed(after)


def test_result_runs_like_the_input():
    x = np.array([3, 4], "int32")
    after = relax.transform.RemovePurityChecking()(Before)
    for mod in (Before, after):
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
        np.testing.assert_array_equal(vm["main"](tvm.runtime.tensor(x)).numpy(), 2 * x)
