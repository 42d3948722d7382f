"""Named TIR lowering pipelines (``tvm.compile(..., tir_pipeline=name)``).

A pipeline is a function ``(target) -> tvm.transform.Pass`` (usually a ``Sequential``).
``PIPELINE_MAP`` holds them by name: ``"tirx"`` is the pipeline over ``tirx`` code
(low-level loops and buffers); ``"default"`` is the same here and is replaced by
``tvm.s_tir.transform`` with one that first lowers ``SBlock``s. The order follows TVM 0.27
(spec D.6) for the passes that exist in this implementation::

    StmtSimplify, FlattenBuffer, VectorizeLoop, UnrollLoop, StmtSimplify, StorageRewrite,
    AnnotateEntryFunc, SplitHostDevice, MakePackedAPI

followed by the host finalization :func:`finalize_host_passes` (``LowerIntrin``).

``"tirx"`` is the TIRx kernel pipeline (:func:`tirx_kernel_passes`): ``LowerTIRx`` first
(scope ids to launch bindings, layouts applied), then the D.6 order. On a function without
a device entry ``LowerTIRx`` and ``LowerTIRxOpaque`` change nothing that the classic passes
rely on, so plain TIR goes through it too.
"""

from __future__ import annotations

from ..ir.transform import Sequential
from . import transform as _t

__all__ = [
    "PIPELINE_MAP",
    "finalize_host_passes",
    "get_default_tir_pipeline",
    "get_tir_pipeline",
    "register_tir_pipeline",
    "tirx_kernel_passes",
    "tirx_passes",
]


def tirx_passes(target=None) -> list:
    """The passes of the ``tirx`` pipeline, in order (a list, so pipelines can extend it)."""
    return [
        _t.TilePrimitiveDispatch(target),  # tile primitives (Tx.*) first: later passes see loops
        _t.StmtSimplify(),
        _t.FlattenBuffer(),
        _t.VectorizeLoop(),
        _t.UnrollLoop(),
        _t.StmtSimplify(),
        _t.StorageRewrite(),
        _t.AnnotateEntryFunc(),
        _t.SplitHostDevice(),
        _t.MakePackedAPI(),
    ]


def tirx_kernel_passes(target=None) -> list:
    """The passes of the ``tirx`` pipeline (spec D.6 order). Passes pytvm does not have yet
    are left out where they would run, each named in a comment."""
    return [
        _t.LowerTIRx(target),
        _t.UnifyThreadBinding(),
        _t.StmtSimplify(),
        _t.LowerTIRxOpaque(),
        _t.FlattenBuffer(),
        # BF16ComputeLegalize: not implemented yet.
        # NarrowDataType(32): not implemented yet.
        _t.VectorizeLoop(),
        _t.UnrollLoop(),
        _t.StmtSimplify(),
        # CommonSubexprElim, FP8ComputeLegalize, VerifyMemory: not implemented yet.
        _t.AnnotateEntryFunc(),
        _t.SplitHostDevice(),
        _t.MakePackedAPI(),
        # FP8StorageLegalize, BF16StorageLegalize: not implemented yet.
    ]


def finalize_host_passes(target=None):
    """Passes run on host functions after the pipeline: intrinsic lowering."""
    return Sequential([_t.LowerIntrin()], name="tirx.finalize_host")


def _tirx_pipeline(target=None):
    return Sequential(tirx_passes(target), name="tirx")


def _tirx_kernel_pipeline(target=None):
    return Sequential(tirx_kernel_passes(target), name="tirx")


PIPELINE_MAP: dict = {"default": _tirx_pipeline, "tirx": _tirx_kernel_pipeline}


def register_tir_pipeline(name: str, pipeline, override: bool = True) -> None:
    """Register ``pipeline(target) -> Pass`` under ``name``."""
    if not callable(pipeline):
        raise TypeError(f"register_tir_pipeline: pipeline {name!r} must be callable")
    if name in PIPELINE_MAP and not override:
        raise ValueError(f"TIR pipeline {name!r} is already registered")
    PIPELINE_MAP[name] = pipeline


def get_tir_pipeline(name: str = "default", **kwargs):
    """The pipeline registered as ``name``: a function ``(target) -> Pass``."""
    if name not in PIPELINE_MAP:
        raise ValueError(
            f"Unknown TIR pipeline {name!r}; registered: {sorted(PIPELINE_MAP)}"
        )
    return PIPELINE_MAP[name]


def get_default_tir_pipeline(target=None):
    """The default pipeline for ``target``."""
    return get_tir_pipeline("default")
