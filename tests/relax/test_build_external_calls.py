"""relax.build keeps calls of external code whose result is unused (Apache TVM's build runs no
dead-code elimination): a packed function writing its output argument, a callback; unused
op results are still removed. Callbacks receive runtime tensors."""

import numpy as np

import tvm
import tvm.relax.testing.vm  # registers test.vm.identity
from tvm import relax
from tvm.relax.analysis import remove_all_unused
from tvm.relax.analysis.remove_unused import keep_external_calls
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class CopyInto:
    @R.function
    def foo(x: R.Tensor((3, 4), "float32"), y: R.Tensor((3, 4), "float32")):
        z = R.call_pure_packed(  # noqa: F841 - unused on purpose
            "test.vm.identity", x, y, ty_args=(R.Tensor(ndim=2, dtype="float32"))
        )
        unused = R.add(x, x)  # noqa: F841 - unused on purpose
        return y


def test_unused_packed_call_runs():
    x = np.arange(12, dtype="float32").reshape(3, 4)
    y = tvm.runtime.tensor(np.zeros((3, 4), "float32"))
    vm = relax.VirtualMachine(relax.build(CopyInto, "llvm"), tvm.cpu())
    vm["foo"](tvm.runtime.tensor(x), y)
    np.testing.assert_array_equal(y.numpy(), x)


def test_scope_keeps_external_calls_only():
    func = CopyInto["foo"]
    assert "test.vm.identity" not in remove_all_unused(func).script()
    with keep_external_calls():
        kept = remove_all_unused(func).script()
    assert "test.vm.identity" in kept and "R.add" not in kept
    assert "test.vm.identity" not in remove_all_unused(func).script()  # scope ended


@R.function
def with_callback(
    a: R.Tensor([4], "int32"), callback: R.Callable([R.Tensor([4], "int32")], R.Tuple([]))
):
    b = R.multiply(a, R.const(3))
    _ = callback(b)
    return R.tuple()


def test_pure_callback_with_unused_result_is_called_with_a_tensor():
    seen = []
    vm = relax.VirtualMachine(
        relax.build(tvm.IRModule.from_expr(with_callback), "llvm"), tvm.cpu()
    )
    vm["with_callback"](tvm.runtime.tensor(np.arange(4, dtype="int32")), seen.append)
    assert len(seen) == 1 and not isinstance(seen[0], np.ndarray)
    np.testing.assert_array_equal(seen[0].numpy(), np.arange(4) * 3)
