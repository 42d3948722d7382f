"""relax.ExecBuilder's instruction-level API (src/tvm/relax/vm/bytecode.py, exec_builder.py):
assemble bytecode, run it on relax.VirtualMachine, print it in TVM's text formats."""

import numpy as np
import pytest
import tvm_ffi

import tvm
import tvm.relax.testing.vm  # registers test.vm.*
from tvm import relax


def _vec(*values):
    return tvm.runtime.tensor(np.array(values, dtype="float64"))


def test_call_and_return_numbers():
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(1)], dst=ib.r(2))
        ib.emit_call("test.vm.mul", args=[ib.r(2), ib.r(1)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    out = vm["func0"](_vec(1, 2), _vec(3, 4))
    np.testing.assert_allclose(out.numpy(), [12.0, 24.0])


def test_if_goto_and_immediates():
    ib = relax.ExecBuilder()
    with ib.function("main", num_inputs=2):
        ib.emit_if(ib.r(0), 3)
        ib.emit_call("test.vm.add_scalar", args=[ib.r(1), ib.imm(-10)], dst=ib.r(2))
        ib.emit_goto(2)
        ib.emit_call("test.vm.add_scalar", args=[ib.r(1), ib.convert_constant(5)], dst=ib.r(2))
        ib.emit_ret(ib.r(2))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    assert vm["main"](1, 7) == -3
    assert vm["main"](0, 7) == 12


def test_vm_function_call_closure_and_storage():
    ib = relax.ExecBuilder()
    with ib.function("sub", num_inputs=3):
        ib.emit_call("test.vm.mul", args=[ib.r(0), ib.r(1)], dst=ib.r(3))
        ib.emit_call("test.vm.add", args=[ib.r(3), ib.r(2)], dst=ib.r(4))
        ib.emit_ret(ib.r(4))
    with ib.function("main", num_inputs=2):
        ib.emit_call("sub", args=[ib.r(0), ib.r(1), ib.r(1)], dst=ib.r(2))
        ib.emit_call("vm.builtin.make_closure", args=[ib.f("sub"), ib.r(2)], dst=ib.r(3))
        ib.emit_ret(ib.r(3))
    with ib.function("alloc", num_inputs=0):
        ib.emit_call("vm.builtin.alloc_storage", args=[
            ib.vm_state(), (16,), ib.imm(0), tvm.DataType("uint8"), ib.convert_constant("global"),
        ], dst=ib.r(0))
        ib.emit_call("vm.builtin.alloc_tensor",
                     args=[ib.r(0), ib.imm(0), (2, 2), tvm.DataType("float32")], dst=ib.r(1))
        ib.emit_ret(ib.r(1))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    clo = vm["main"](_vec(2, 3), _vec(1, 1))  # captured: 2*1+1 = [3, 4]
    res = vm.invoke_closure(clo, _vec(10, 10), _vec(1, 2))  # 3*10+1, 4*10+2
    np.testing.assert_allclose(res.numpy(), [31.0, 42.0])
    assert vm["alloc"]().shape == (2, 2)


def test_as_text_and_as_python_formats():
    # Both strings checked against Apache TVM 0.27's output for the same program.
    ib = relax.ExecBuilder()
    with ib.function("func0", num_inputs=2):
        ib.emit_if(ib.r(0), 3)
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.imm(-3), ib.convert_constant("s")],
                     dst=ib.r(100))
        ib.emit_goto(2)
        ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(100)], dst=ib.r(50))
        ib.emit_call("test.vm.mul", args=[ib.r(1), ib.vm_state()])
        ib.emit_ret(ib.r(50))
    ex = ib.get()
    assert ex.as_text() == (
        "@func0:\n"
        "  If    %0, 3\n"
        "  call  test.vm.add      in: %0, i-3, c[0] dst: %2\n"
        "  goto  2\n"
        "  call  test.vm.mul      in: %1, %2       dst: %3\n"
        "  call  test.vm.mul      in: %1, %vm      dst: %void\n"
        "  ret   %3\n\n"
        "@test.vm.add packed_func;\n\n"
        "@test.vm.mul packed_func;\n\n"
    )
    assert ex.as_python().splitlines()[:3] == [
        "ib = rx.Builder()",
        'with ib.function("func0", num_inputs=2):',
        "    ib.emit_if(ib.r(0), 3)",
    ]
    assert '    ib.emit_call("test.vm.mul", args=[ib.r(1), ib.r(vm)])' in ex.as_python()


def test_constants_are_shared():
    ib = relax.ExecBuilder()
    with ib.function("f", num_inputs=1):
        assert ib.convert_constant("a") == ib.convert_constant("a")
        assert ib.convert_constant(tvm_ffi.Shape([1, 2])) == ib.convert_constant(
            tvm_ffi.Shape([1, 2]))
        assert ib.convert_constant(tvm_ffi.Shape([1, 3])) != ib.convert_constant(
            tvm_ffi.Shape([1, 2]))
        assert ib.convert_constant("float32") != ib.convert_constant(tvm.DataType("float32"))
        ib.emit_ret(ib.r(0))


def test_errors():
    ib = relax.ExecBuilder()
    with pytest.raises(ValueError, match="function scope"):
        ib.emit_ret(ib.r(0))
    with pytest.raises(ValueError, match="not declared"):
        ib.f("nowhere")
    with ib.function("f", num_inputs=1):
        ib.emit_call("test.vm.add", args=[ib.r(0), ib.r(5)], dst=ib.r(5))
        ib.emit_ret(ib.r(5))
    with pytest.raises(RuntimeError, match=r"r\(5\).*never defined"):
        ib.get()
    ib = relax.ExecBuilder()
    with ib.function("f", num_inputs=1):
        ib.emit_ret(ib.r(0))
    vm = relax.VirtualMachine(ib.get(), tvm.cpu())
    with pytest.raises(TypeError, match="takes 1 arguments"):
        vm["f"]()
    with pytest.raises(ValueError, match="not supported yet"):
        ib.get().export_library("/tmp/never.so")
