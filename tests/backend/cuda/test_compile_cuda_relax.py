"""Relax on the GPU: ``relax.build(mod, target="cuda")`` and ``relax.VirtualMachine(ex,
tvm.cuda())`` on the fake driver. The fake runs Python bodies for the kernels, so the VM's
device allocation, constants, argument copies and launch order are checked by the numbers.
"""

import struct

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

N = 256


@I.ir_module
class Scheduled:
    @T.prim_func
    def scale(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
        for i in T.thread_binding(256, thread="threadIdx.x"):
            B[i] = A[i] * T.float32(2)

    @T.prim_func
    def add(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"),
            C: T.Buffer((256,), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]

    @R.function
    def main(x: R.Tensor((256,), "float32"), w: R.Tensor((256,), "float32")):
        cls = Scheduled
        y = R.call_tir(cls.scale, (x,), R.Tensor((256,), "float32"))
        z = R.call_tir(cls.add, (y, w), R.Tensor((256,), "float32"))
        b = R.call_tir(cls.add, (z, R.const(np.full(256, 0.5, "float32"))),
                       R.Tensor((256,), "float32"))
        return b


def _ptrs(launch, count):
    return [struct.unpack("<Q", p)[0] for p in launch["params"][:count]]


def _install_bodies(fake):
    def scale(fake, launch):
        a, b = _ptrs(launch, 2)
        fake.write(b, (np.frombuffer(fake.read(a, 4 * N), "float32") * 2).tobytes())

    def add(fake, launch):
        a, b, c = _ptrs(launch, 3)
        x = np.frombuffer(fake.read(a, 4 * N), "float32")
        y = np.frombuffer(fake.read(b, 4 * N), "float32")
        fake.write(c, (x + y).tobytes())

    fake.kernels.update(scale_kernel=scale, add_kernel=add)


@pytest.fixture
def executable(fake_driver_module):
    ex = relax.build(Scheduled, target="cuda")
    (cuda_mod,) = ex.lib.imports
    assert sorted(cuda_mod.function_names()) == ["add_kernel", "scale_kernel"]
    cuda_mod.impl.set_binary(fake_driver_module.make_image(
        {"scale_kernel": [8, 8], "add_kernel": [8, 8, 8]}))
    return ex


def test_relax_vm_on_cuda_device(fake_cuda, executable):
    _install_bodies(fake_cuda)
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(executable, dev)
    x_np = np.arange(N, dtype="float32")
    w_np = np.ones(N, dtype="float32")
    x, w = tvm.runtime.tensor(x_np, dev), tvm.runtime.tensor(w_np, dev)
    out = vm["main"](x, w)
    assert out.device.dlpack_device_type() == 2
    np.testing.assert_allclose(out.numpy(), x_np * 2 + w_np + 0.5)
    assert [launch["kernel"] for launch in fake_cuda.launches] == \
        ["scale_kernel", "add_kernel", "add_kernel"]
    scale, add1, add2 = fake_cuda.launches
    assert _ptrs(scale, 1) == [x.data_ptr()]
    assert _ptrs(add1, 2)[1] == w.data_ptr()
    assert add1["grid"] == (2, 1, 1) and add1["block"] == (128, 1, 1)
    # Every kernel pointer is device memory the VM allocated (the fake rejects host ones).
    for launch in fake_cuda.launches:
        for address in _ptrs(launch, 2):
            assert fake_cuda.read(address, 4)


def test_host_arguments_are_copied_to_the_device(fake_cuda, executable):
    _install_bodies(fake_cuda)
    vm = relax.VirtualMachine(executable, tvm.cuda(0))
    x_np = np.full(N, 3.0, "float32")
    out = vm["main"](x_np, tvm.runtime.tensor(np.zeros(N, "float32")))
    np.testing.assert_allclose(out.numpy(), np.full(N, 6.5, "float32"))


def test_cuda_executable_needs_a_cuda_device(executable):
    with pytest.raises(ValueError, match="built for target 'cuda'"):
        relax.VirtualMachine(executable, tvm.cpu())
