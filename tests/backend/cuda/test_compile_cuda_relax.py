"""Relax on the GPU: ``relax.build(mod, target="cuda")`` and ``relax.VirtualMachine(ex,
tvm.cuda())`` on the fake driver. The fake runs Python bodies for the kernels, so the VM's
device allocation, constants, argument copies and launch order are checked by the numbers.
"""

import shutil
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
    scale, add1, _ = fake_cuda.launches
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


def _fake_image_for(fake_driver_module, cuda_mod):
    """A fake image with the parameter sizes of every kernel of ``cuda_mod``."""
    sizes = {"handle": 8, "int64": 8, "float64": 8, "uint64": 8}
    return fake_driver_module.make_image({
        name: [sizes.get(t, 4) for t in info["arg_types"]]
        for name, info in cuda_mod.impl.function_info.items()})


def _mlp_module(batch=32):
    from tvm.relax.testing import nn

    class MLP(nn.Module):
        def __init__(self):
            self.l1 = nn.Linear(64, 128)
            self.l2 = nn.Linear(128, 10)

        def forward(self, x):
            return self.l2(nn.emit(relax.op.nn.relu(self.l1(x))))

    bb = relax.BlockBuilder()
    with bb.function("main"):
        model = MLP()
        x = nn.Placeholder((batch, 64), "float32", name="x")
        with bb.dataflow():
            out = bb.emit_output(model(x))
        bb.emit_func_output(out, [x, *model.parameters()])
    return bb.get()


def test_legalized_mlp_builds_compiles_and_launches(fake_cuda, fake_driver_module):
    pytest.importorskip("tvm.s_tir.dlight", reason="needs the default GPU schedules")
    ex = relax.build(_mlp_module(), target={"kind": "cuda", "arch": "sm_90a"})
    cuda_mod = ex.lib.imports[0]
    names = cuda_mod.function_names()
    assert names and all(name.endswith("_kernel") for name in names)
    source = cuda_mod.inspect_source()
    assert "__shared__" in source  # the matmul schedule tiles through shared memory
    if shutil.which("nvcc") is not None:
        assert cuda_mod.impl.binary()[:4] == b"\x7fELF"  # every kernel in one nvcc call
    cuda_mod.impl.set_binary(_fake_image_for(fake_driver_module, cuda_mod))
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(ex, dev)
    args = [np.ones((32, 64), "float32"), np.ones((64, 128), "float32"),
            np.ones((128,), "float32"), np.ones((128, 10), "float32"), np.ones((10,), "float32")]
    out = vm["main"](*[tvm.runtime.tensor(a, dev) for a in args])
    assert tuple(out.shape) == (32, 10) and out.device.dlpack_device_type() == 2
    launched = [launch["kernel"] for launch in fake_cuda.launches]
    assert sorted(set(launched)) == sorted(names) and len(launched) == len(names)
    for launch in fake_cuda.launches:
        block = launch["block"]
        assert 1 <= block[0] * block[1] * block[2] <= 1024


def test_get_default_pipeline_for_cuda_runs_on_the_device(fake_cuda, fake_driver_module):
    pytest.importorskip("tvm.s_tir.dlight", reason="needs the default GPU schedules")
    target = tvm.target.Target("cuda")
    mod = relax.get_default_pipeline(target)(_mlp_module(batch=8))
    prims = [f for f in mod.functions.values() if isinstance(f, tvm.tirx.PrimFunc)]
    assert prims and all(f.get_attr("tirx.is_scheduled") for f in prims)
    # The memory-planned VM form: storages and tensors through the device builtins.
    ex = relax.build(mod, target=target, relax_pipeline=None)
    cuda_mod = ex.lib.imports[0]
    cuda_mod.impl.set_binary(_fake_image_for(fake_driver_module, cuda_mod))
    dev = tvm.cuda(0)
    vm = relax.VirtualMachine(ex, dev)
    shapes = [(8, 64), (64, 128), (128,), (128, 10), (10,)]
    out = vm["main"](*[tvm.runtime.empty(s, "float32", dev) for s in shapes])
    assert tuple(out.shape) == (8, 10) and out.device.dlpack_device_type() == 2
    assert len(fake_cuda.launches) == len(cuda_mod.function_names())


def test_training_step_runs_on_the_device(fake_cuda, fake_driver_module):
    """train_digits' MLP step (loss, gradient, Adam) on the fake GPU, up to the launches."""
    pytest.importorskip("tvm.s_tir.dlight", reason="needs the default GPU schedules")
    from tvm.examples import train_digits
    from tvm.relax.training import SetupTrainer, Trainer
    from tvm.relax.training.loss import CrossEntropyLoss

    setup = SetupTrainer(CrossEntropyLoss(), train_digits.make_optimizer("adam", 0.01),
                         [relax.TensorType((32, 10), "float32"),
                          relax.TensorType((32,), "int64")])
    train_mod = setup(train_digits.build_backbone("mlp", 32, 64, False))
    ex = relax.build(train_mod, target="cuda")
    cuda_mod = ex.lib.imports[0]
    cuda_mod.impl.set_binary(_fake_image_for(fake_driver_module, cuda_mod))
    dev = tvm.cuda(0)
    trainer = Trainer(train_mod, relax.VirtualMachine(ex, dev), dev)
    trainer.xaiver_uniform_init_params(seed=0)
    loss = trainer.update(np.zeros((32, 64), "float32"), np.zeros(32, "int64"))
    assert loss.device.dlpack_device_type() == 2 and tuple(loss.shape) == ()
    launched = {launch["kernel"] for launch in fake_cuda.launches}
    assert launched <= set(cuda_mod.function_names()) and len(fake_cuda.launches) > 10
