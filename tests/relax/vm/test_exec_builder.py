"""relax.ExecBuilder with vm_build._vmcodegen / _vmlink: build a module that is already
lowered for the VM, with no pass and no implicit argument checks (as TVM's VM codegen)."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def _link(mod):
    builder = relax.ExecBuilder()
    rest = relax.vm_build._vmcodegen(builder, mod)
    assert all(not isinstance(f, relax.Function) for f in rest.functions.values())
    return relax.VirtualMachine(relax.vm_build._vmlink(builder, "llvm", rest), tvm.cpu())


def test_lowered_module_with_builtins_and_a_direct_primfunc_call():
    @I.ir_module
    class Mod:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            cls = Mod
            storage = R.vm.alloc_storage(R.shape([24]), R.prim_value(0), R.dtype("uint8"))
            y = R.vm.alloc_tensor(storage, R.prim_value(0), R.shape([2, 3]), R.dtype("float32"))
            _ = cls.double(x, y)  # defined below: its signature is known when main is parsed
            z = R.call_packed("vm.builtin.reshape", y, R.shape([3, 2]),
                              ty_args=R.Tensor((3, 2), "float32"))
            w = R.call_packed("vm.builtin.copy", z, ty_args=R.Tensor((3, 2), "float32"))
            return w

        @T.prim_func
        def double(A: T.Buffer((2, 3), "float32"), B: T.Buffer((2, 3), "float32")):
            for i, j in T.grid(2, 3):
                B[i, j] = A[i, j] * T.float32(2)

    assert [gv.name_hint for gv in Mod.functions] == ["main", "double"]  # source order kept
    x = np.arange(6, dtype="float32").reshape(2, 3)
    out = _link(Mod)["main"](tvm.runtime.tensor(x))
    np.testing.assert_array_equal(out.numpy(), (2 * x).reshape(3, 2))


def test_no_implicit_argument_checks_but_explicit_ones_raise():
    @I.ir_module
    class Mod:
        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32")):
            _ = R.call_packed("vm.builtin.check_tensor_info", x, 1, R.dtype("float32"), "",
                              ty_args=R.Tuple())
            return x

    vm = _link(Mod)
    # the annotation says (2,), but only the explicit check (rank 1, float32) runs
    assert vm["main"](tvm.runtime.tensor(np.zeros(5, "float32"))).shape == (5,)
    with pytest.raises(ValueError, match="ndim"):
        vm["main"](tvm.runtime.tensor(np.zeros((1, 1), "float32")))
    with pytest.raises(TypeError, match="expect a Tensor"):
        vm["main"]([])


def test_to_device_and_errors():
    @I.ir_module
    class Mod:
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            z = R.call_packed("vm.builtin.to_device", x, 1, 0, ty_args=R.Tensor((3,), "float32"))
            return z

    out = _link(Mod)["main"](tvm.runtime.tensor(np.ones(3, "float32")))
    assert out.device == tvm.cpu(0)
    with pytest.raises(ValueError, match="Unknown exec_mode"):
        relax.vm_build._vmcodegen(relax.ExecBuilder(), Mod, exec_mode="jit")
    with pytest.raises(ValueError, match="function scope"):
        relax.ExecBuilder().emit_call("f")


def test_kill_object_clears_the_variable_not_its_alias():
    import tvm.relax.testing.vm  # noqa: F401  (registers test.vm.check_if_defined)

    @I.ir_module
    class Mod:
        @R.function(pure=False)
        def main():
            check = R.ExternFunc("test.vm.check_if_defined")
            storage = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"))
            alias = storage
            before = check(storage)
            _ = R.vm.kill_object(storage)
            after = check(storage)
            alias_after = check(alias)
            return (before, after, alias_after)

    assert tuple(_link(Mod)["main"]()) == (True, False, True)
