"""relax.pipeline: named pass lists, and the whole default pipeline on an MLP."""

import pytest

import tvm
from tvm import relax
from tvm.relax import pipeline
from tvm.relax.ir.instrument import WellFormedInstrument
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class MLP:
    @R.function
    def main(
        x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")
    ):
        with R.dataflow():
            a = R.matmul(x, w)
            c = R.add(a, b)
            d = R.nn.relu(c)
            R.output(d)
        return d


def _names(passes):
    return [p.info.name for p in passes]


def test_stage_lists_use_tvm_names():
    assert _names(pipeline.legalize_passes()) == [
        "LegalizeOps",
        "AnnotateTIROpPattern",
        "FoldConstant",
        "FuseOps",
        "FuseTIR",
        "CanonicalizeBindings",
        "DeadCodeElimination",
    ]
    assert _names(pipeline.dataflow_lower_passes()) == ["ToNonDataflow", "CallTIRRewrite"]
    assert _names(pipeline.finalize_passes()) == [
        "StaticPlanBlockMemory",
        "LowerAllocTensor",
        "KillAfterLastUse",
        "VMBuiltinLower",
        "VMShapeLower",
        "AttachGlobalSymbol",
    ]


def test_default_pipeline_fuses_and_lowers_to_the_vm():
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.get_default_pipeline(None)(MLP)
    names = sorted(g.name_hint for g in mod.get_global_vars())
    assert names == ["fused_matmul_add_relu", "main"]
    text = mod.script()
    assert 'R.vm.alloc_storage(R.shape([32]), 0, R.dtype("uint8")' in text
    assert "cls.fused_matmul_add_relu(x, w, b, alloc)" in text
    assert "R.call_tir" not in text and "R.builtin" not in text and "R.memory" not in text
    assert mod["fused_matmul_add_relu"].attrs["global_symbol"] == "fused_matmul_add_relu"


def test_default_build_pipeline_does_not_fuse():
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.pipeline.default_build_pipeline()(MLP)
    assert sorted(g.name_hint for g in mod.get_global_vars()) == ["add", "main", "matmul", "relu"]


def test_zero_pipeline_and_registry():
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.get_pipeline("zero")(MLP)
    assert "R.call_tir(cls.fused_matmul_add_relu" in mod.script()

    @pipeline.register_pipeline("test_only_identity")
    def _identity():
        return tvm.transform.Sequential([])

    try:
        assert relax.get_pipeline("test_only_identity")(MLP) is MLP
        with pytest.raises(ValueError, match="already registered"):
            pipeline.register_pipeline("test_only_identity")(_identity)
    finally:
        del pipeline.PIPELINE_MAP["test_only_identity"]
    with pytest.raises(ValueError, match="Unknown pre-built pipeline nope, candidates are.*zero"):
        relax.get_pipeline("nope")


def test_branches_are_lowered_too():
    @I.ir_module
    class Branchy:
        @R.function
        def main(x: R.Tensor(("n", 3), "float32"), c: R.Prim("bool")):
            y = R.exp(x)
            if c:
                z = R.negative(y)
                w = R.exp(z)
            else:
                w = R.add(y, y)
            return w

    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.get_default_pipeline(None)(Branchy)
    text = mod["main"].script()
    assert "R.builtin" not in text and "R.memory" not in text and "R.call_tir" not in text
    # Each branch allocates its own outputs, with shapes made from the heap.
    assert text.count("R.vm.alloc_storage") == 4
    assert text.count("vm.builtin.make_shape") == 8


@pytest.mark.parametrize("kind", ["c", "hexagon"])
@pytest.mark.parametrize(
    "stage",
    [
        pipeline.library_dispatch_passes,
        pipeline.legalize_passes,
        pipeline.dataflow_lower_passes,
        pipeline.finalize_passes,
        pipeline.get_default_pipeline,
    ],
)
def test_targets_without_a_pipeline_are_refused(kind, stage):
    with pytest.raises(ValueError, match=f"Target .*{kind}.* is not yet supported by"):
        stage(tvm.target.Target(kind))


@pytest.mark.parametrize("kind", ["llvm", "cuda", "vulkan", "webgpu"])
def test_cpu_and_gpu_targets_have_pipelines(kind):
    assert pipeline.get_default_pipeline(tvm.target.Target(kind)) is not None
    assert pipeline.legalize_passes(tvm.target.Target(kind))
