"""``relax.build``'s default pipeline fuses (FuseOps/FuseTIR): an MLP compiles to fewer
kernels than the legalize-only pipeline and computes the same results."""

import numpy as np

import tvm
from tvm import relax
from tvm.relax.vm_build import default_relax_pipeline
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.tirx.function import PrimFunc


@I.ir_module
class MLP:
    @R.function
    def main(x: R.Tensor((64, 96), "float32"), w0: R.Tensor((96, 128), "float32"),
             b0: R.Tensor((128,), "float32"), w1: R.Tensor((128, 64), "float32"),
             b1: R.Tensor((64,), "float32")):
        with R.dataflow():
            h = R.nn.relu(R.add(R.matmul(x, w0), b0))
            y = R.add(R.matmul(h, w1), b1)
            R.output(y)
        return y


def _kernels(mod):
    return sorted(gv.name_hint for gv, f in mod.functions.items() if isinstance(f, PrimFunc))


def _run(executable, args):
    vm = relax.VirtualMachine(executable, tvm.cpu())
    return vm["main"](*args).numpy()


def _args():
    rng = np.random.default_rng(0)
    shapes = [(64, 96), (96, 128), (128,), (128, 64), (64,)]
    return [rng.standard_normal(s).astype("float32") for s in shapes]


def test_default_pipeline_fuses_matmul_epilogues():
    fused = _kernels(default_relax_pipeline()(MLP))
    unfused = _kernels(default_relax_pipeline(fuse=False)(MLP))
    assert len(unfused) == 5  # matmul, add, relu, matmul1, add1
    assert len(fused) == 2
    assert all(name.startswith("fused_matmul") for name in fused)


def test_default_build_matches_the_unfused_build():
    args = _args()
    x, w0, b0, w1, b1 = args
    fused = _run(relax.build(MLP, target="llvm"), args)
    unfused = _run(relax.build(MLP, target="llvm",
                               relax_pipeline=default_relax_pipeline(fuse=False)), args)
    # Same kernels' arithmetic in the same accumulation order: identical results.
    np.testing.assert_array_equal(fused, unfused)
    np.testing.assert_allclose(fused, np.maximum(x @ w0 + b0, 0) @ w1 + b1, rtol=1e-4,
                               atol=1e-4)
