"""Relax compilation pipelines (``tvm.relax.pipeline``), as named lists of passes.

Each stage is a function returning a list, so a reader sees the whole pipeline and a user can
splice their own passes in::

    passes = legalize_passes(target) + dataflow_lower_passes(target) + finalize_passes(target)
    mod = tvm.transform.Sequential(passes)(mod)

``"default"`` is :func:`default_relax_pipeline`: what ``relax.build`` and ``tvm.compile`` run
by default (``relax.build(mod, relax_pipeline="default")`` is
``relax.build(mod, relax_pipeline=relax.get_pipeline("default"))``): legalization and fusion,
leaving the dataflow form that the VM's code generator plans memory for itself.
``get_default_pipeline(target)`` = library dispatch + legalization and fusion + dataflow
lowering + finalization (memory planning and VM lowering), as in Apache TVM 0.27.
``default_build_pipeline()`` (``"default_build"``) is the same without fusion, and
``zero_pipeline()`` only legalizes and fuses. Apache TVM maps ``"default"`` to
``default_build_pipeline``; here the VM runs both, and the fused form is the faster one.
``"default"`` also runs ``RewriteDataflowReshape`` after fusion (the VM's view of
``R.reshape`` replaces the reshape kernels' copies); the build pipelines do not yet (their
memory planning does not know views). TVM passes not implemented here (DispatchSampling,
DispatchSortScan, RewriteCUDAGraph, ComputePrimValue) are omitted: none changes the result on
the CPU. ``RemovePurityChecking`` exists (``relax.transform``) but is not in the
pipelines: the VM runs pure and plain packed calls alike. The build pipelines keep unused calls
of external code (see ``_sequential``), and refuse target kinds other than ``llvm`` and the GPUs
(TVM's "... is not yet supported ..." ValueError).
"""

from __future__ import annotations

from ..ir import transform as _ir_transform
from . import transform
from .analysis.remove_unused import keep_external_calls

__all__ = [
    "FUSION_PASSES",
    "PIPELINE_MAP",
    "dataflow_lower_passes",
    "default_build_pipeline",
    "default_relax_pipeline",
    "finalize_passes",
    "get_default_pipeline",
    "get_pipeline",
    "legalize_passes",
    "library_dispatch_passes",
    "register_pipeline",
    "zero_pipeline",
]


def _check_target(target, stage: str) -> None:
    """Raise TVM's ValueError when ``target`` has no pipeline here.

    ``llvm`` (CPU) and the GPU targets (kind ``cuda``, ``rocm``, ``metal`` ... or a target whose
    keys include ``gpu``) have one; ``None`` means the CPU. Other kinds (``c``, ``hexagon``)
    need the module lowered and built by hand, as in Apache TVM.
    """
    if target is None:
        return
    from ..target import Target  # lazy: only when a target is given

    target = target if isinstance(target, Target) else Target(target)
    if target.kind.name == "llvm" or "gpu" in tuple(target.keys):
        return
    if stage == "default pipeline":
        raise ValueError(
            f"Target {target} is not yet supported by default pipeline. "
            "Please lower and build the IRModule manually."
        )
    raise ValueError(f"Target {target} is not yet supported by {stage} passes.")


def library_dispatch_passes(target=None) -> list:
    """Passes dispatching ops to vendor libraries: none for the CPU targets here.

    Raises
    ------
    ValueError
        For a target kind other than ``llvm`` or a GPU ("... is not yet supported ...").
    """
    _check_target(target, "library dispatch")
    return []


def legalize_passes(target=None, *, enable_warning: bool = True) -> list:
    """High-level ops to ``call_tir``, then fusion of the kernels; for a GPU target, the
    default GPU schedules of the kernels (``tvm.s_tir.dlight``), as in Apache TVM."""
    _check_target(target, "legalize")
    passes = [
        transform.LegalizeOps(enable_warning=enable_warning),
        transform.AnnotateTIROpPattern(),
        transform.FoldConstant(),
        transform.FuseOps(),
        transform.FuseTIR(),
    ]
    if _is_gpu_target(target):
        passes.append(_gpu_default_schedule(target))
    return passes + [transform.CanonicalizeBindings(), transform.DeadCodeElimination()]


def _is_gpu_target(target) -> bool:
    if target is None:
        return False
    from ..target import Target  # lazy: only when a target is given

    target = target if isinstance(target, Target) else Target(target)
    return "gpu" in tuple(target.keys)


def _gpu_default_schedule(target):
    """A module pass scheduling the unscheduled PrimFuncs with the default GPU rules."""

    def run(mod, ctx):
        try:
            # Lazy: s_tir's dlight (the GPU rules) loads only for GPU pipelines.
            from ..s_tir.dlight.base import apply_gpu_default_schedule  # noqa: F401
        except ImportError as err:
            raise ValueError(
                "relax.get_default_pipeline: default GPU schedules are not available in this "
                "build (tvm.s_tir.dlight is missing)"
            ) from err
        from ..s_tir.default_schedule import apply_default_schedule

        return apply_default_schedule(mod, target)

    return _ir_transform.module_pass(run, opt_level=0, name="relax.GPUDefaultSchedule")


def dataflow_lower_passes(target=None) -> list:
    """Leave dataflow form: explicit output allocation of every kernel call."""
    _check_target(target, "dataflow lowering")
    return [
        transform.ToNonDataflow(),
        transform.CallTIRRewrite(),
    ]


def finalize_passes(target=None) -> list:
    """Memory planning, then the VM-level lowering of memory and shapes."""
    _check_target(target, "finalization")
    return [
        transform.StaticPlanBlockMemory(),
        transform.LowerAllocTensor(),
        transform.KillAfterLastUse(),
        transform.VMBuiltinLower(),
        transform.VMShapeLower(),
        transform.AttachGlobalSymbol(),
    ]


def _sequential(passes, name):
    """``passes`` in order, as one module pass that keeps unused calls of external code.

    pytvm's cleanup passes (``CanonicalizeBindings``, ``FoldConstant``,
    ``DeadCodeElimination``) drop unused bindings; Apache TVM's build pipelines run none of
    them, so a packed function or callback called for its effect still runs there. The
    pipelines here run under :func:`tvm.relax.analysis.keep_external_calls` to keep those.
    """
    seq = _ir_transform.Sequential(passes, opt_level=0, name=name)

    def run(mod, _ctx):
        with keep_external_calls():
            return seq(mod)

    return _ir_transform.module_pass(run, opt_level=0, name=name)


def zero_pipeline(*, enable_warning: bool = False):
    """Legalize and fuse (no memory planning): the optimizations before ``relax.build``."""
    return _sequential(legalize_passes(enable_warning=enable_warning), "zero_pipeline")


def default_build_pipeline():
    """Legalize (no fusion), lower dataflow, plan memory and lower to the VM."""
    passes = (
        library_dispatch_passes()
        + [transform.LegalizeOps()]
        + dataflow_lower_passes()
        + finalize_passes()
    )
    return _sequential(passes, "default_build_pipeline")


def get_default_pipeline(target=None):
    """The whole pipeline for ``target``: dispatch, legalize and fuse, lower, finalize.

    Raises
    ------
    ValueError
        For a target kind other than ``llvm`` or a GPU ("... is not yet supported by default
        pipeline ...").
    """
    _check_target(target, "default pipeline")
    passes = (
        library_dispatch_passes(target)
        + legalize_passes(target)
        + dataflow_lower_passes(target)
        + finalize_passes(target)
    )
    return _sequential(passes, "default_pipeline")


# Passes of the default pipeline, by name in tvm.relax.transform, in order. A pass that does
# not exist yet is skipped (the build still works on modules that need no such pass).
# The fusion passes (FUSION_PASSES) run after LegalizeOps: the default CPU schedule runs a
# fused matmul's elementwise epilogue (bias add, relu) on each tile of the tiled matmul and
# row-fuses the other nests of a fused function (see s_tir/default_schedule.py).
_DEFAULT_PASSES = (
    "LegalizeOps",
    # Resolves aliases and tuple round trips (the trainer's ``(grads...)[i]``), so that FuseOps
    # sees a gradient matmul feeding its optimizer update directly and fuses them.
    "CanonicalizeBindings",
    # Reshape kernels become R.reshape, which the VM runs as a view of its input (no copy).
    "RewriteDataflowReshape",
    "FoldConstant",
    "DeadCodeElimination",
)
#: The fusion passes, run after legalization unless ``default_relax_pipeline(fuse=False)``.
FUSION_PASSES = ("AnnotateTIROpPattern", "FuseOps", "FuseTIR")


def default_relax_pipeline(fuse: bool = True):
    """The ``"default"`` pipeline (``relax.build``'s), as a ``tvm.transform.Sequential``.

    ``LegalizeOps``, ``CanonicalizeBindings``, then (with ``fuse``, the default) the fusion
    passes ``FUSION_PASSES``, then ``RewriteDataflowReshape`` (reshape kernels become views),
    ``FoldConstant`` and ``DeadCodeElimination``;
    ``fuse=False`` gives the legalize-only pipeline.
    """
    names = list(_DEFAULT_PASSES)
    if fuse:
        names[2:2] = FUSION_PASSES
    passes = [getattr(transform, name)() for name in names if hasattr(transform, name)]
    return _sequential(passes, "relax.build.default")


PIPELINE_MAP = {
    "zero": zero_pipeline,
    "default": default_relax_pipeline,
    "default_build": default_build_pipeline,
}


def register_pipeline(name: str):
    """Decorator registering a pipeline factory under ``name`` (for ``get_pipeline``)."""

    def _register(func):
        if name in PIPELINE_MAP:
            raise ValueError(f"Pipeline {name!r} is already registered")
        PIPELINE_MAP[name] = func
        return func

    return _register


def get_pipeline(name: str = "zero", **kwargs):
    """The pipeline registered as ``name``, built with ``kwargs``."""
    if name not in PIPELINE_MAP:
        raise ValueError(f"Unknown pre-built pipeline {name}, candidates are {list(PIPELINE_MAP)}")
    return PIPELINE_MAP[name](**kwargs)
