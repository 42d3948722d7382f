"""relax.build in the driver: thin re-exports, one "default" pipeline, the target once."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.driver import relax_build
from tvm.ir import assert_structural_equal


def _mlp():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4, 8), "float32"))
    w = relax.Var("w", relax.TensorType((8, 3), "float32"))
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(relax.op.matmul(x, w))
            z = bb.emit(relax.op.nn.relu(y))
            out = bb.emit_output(z)
        bb.emit_func_output(out)
    return bb.get()


def test_relax_build_is_the_drivers():
    assert relax.vm_build._unify_loop_dtypes is relax_build._unify_loop_dtypes
    assert relax.vm_build.default_relax_pipeline is relax.pipeline.default_relax_pipeline
    with pytest.raises(AttributeError, match="'tvm.relax.vm_build' has no attribute 'nope'"):
        relax.vm_build.nope  # noqa: B018


def test_default_is_one_pipeline():
    mod = _mlp()
    by_name = relax.build(mod, "llvm", relax_pipeline="default")
    by_pass = relax.build(mod, "llvm", relax_pipeline=relax.get_pipeline("default"))
    assert_structural_equal(by_name.mod, by_pass.mod)
    assert_structural_equal(by_name.mod, relax.pipeline.default_relax_pipeline()(mod))
    x = np.random.rand(4, 8).astype("float32")
    w = np.random.rand(8, 3).astype("float32")
    vm = relax.VirtualMachine(by_name, tvm.cpu())
    np.testing.assert_allclose(vm["main"](x, w).numpy(), np.maximum(x @ w, 0), rtol=1e-5)


def test_target_is_normalised_once():
    ex = relax.build(_mlp(), {"kind": "llvm"})
    assert isinstance(ex.target, tvm.target.Target) and ex.target.kind.name == "llvm"
    with pytest.raises(ValueError, match="target kind 'metal' has no backend"):
        relax.build(_mlp(), "metal")
    # A dict target for a device kind is normalised too (the executable records it).
    assert relax.build(_scheduled_gpu_module(), {"kind": "cuda", "arch": "sm_90a"}) \
        .target.attrs["arch"] == "sm_90a"
    with pytest.raises(ValueError, match="Unknown pre-built pipeline nope"):
        relax.build(_mlp(), relax_pipeline="nope")


def _scheduled_gpu_module():
    from tvm.script import ir as I
    from tvm.script import relax as R
    from tvm.script import tirx as T

    @I.ir_module
    class Mod:
        @T.prim_func
        def double(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
            for i in T.thread_binding(64, thread="threadIdx.x"):
                B[i] = A[i] * T.float32(2)

        @R.function
        def main(x: R.Tensor((64,), "float32")):
            cls = Mod
            y = R.call_tir(cls.double, (x,), R.Tensor((64,), "float32"))
            return y

    return Mod
