"""Attribute nodes of Relax ops (type keys ``relax.attrs.<Name>``, as in Apache TVM 0.27).

Op families add their attribute classes here, one declared node per class, so each prints as
``relax.attrs.MatmulAttrs(out_dtype=None)`` and compares structurally.
"""

from __future__ import annotations

from ...ir.attrs import Attrs

__all__ = ["Attrs", "InitAttrs", "MatmulAttrs", "PermuteDimsAttrs", "StatisticalAttrs"]


class MatmulAttrs(Attrs, type_key="relax.attrs.MatmulAttrs"):
    """``out_dtype``: the output dtype, or None for the input dtype."""

    out_dtype: object = None


class StatisticalAttrs(Attrs, type_key="relax.attrs.StatisticalAttrs"):
    """Reductions: ``axis`` (a tuple of ints, or None for all axes) and ``keepdims``."""

    axis: object = None
    keepdims: bool = False


class PermuteDimsAttrs(Attrs, type_key="relax.attrs.PermuteDimsAttrs"):
    """``axes``: the permutation, or None to reverse the dims."""

    axes: object = None


class InitAttrs(Attrs, type_key="relax.attrs.InitAttrs"):
    """Tensor creation (``ones``, ``zeros``, ``full``): the output ``dtype``."""

    dtype: object = None


# --- attribute classes of the op library (field order = TVM 0.27's printed order) -------------


class AstypeAttrs(Attrs, type_key="relax.attrs.AstypeAttrs"):
    """``astype``: the target ``dtype``."""

    dtype: object = None


class WrapParamAttrs(Attrs, type_key="relax.attrs.WrapParamAttrs"):
    """``wrap_param``: the ``dtype`` the parameter is cast to."""

    dtype: object = None


class ExpandDimsAttrs(Attrs, type_key="relax.attrs.ExpandDimsAttrs"):
    """``expand_dims``: the new ``axis`` positions."""

    axis: object = None


class SqueezeAttrs(Attrs, type_key="relax.attrs.SqueezeAttrs"):
    """``squeeze``: the ``axis`` to remove (None: every size-1 dim)."""

    axis: object = None


class ConcatAttrs(Attrs, type_key="relax.attrs.ConcatAttrs"):
    """``concat``: the ``axis`` (None: flatten then concatenate)."""

    axis: object = 0


class StackAttrs(Attrs, type_key="relax.attrs.StackAttrs"):
    """``stack``: the new ``axis``."""

    axis: object = 0


class SplitAttrs(Attrs, type_key="relax.attrs.SplitAttrs"):
    """``split``: a section count or the split ``indices_or_sections``, and the ``axis``."""

    indices_or_sections: object = None
    axis: int = 0


class RepeatAttrs(Attrs, type_key="relax.attrs.RepeatAttrs"):
    """``repeat``: ``repeats`` per element and the ``axis`` (None: flatten first)."""

    repeats: int = 1
    axis: object = None


class TileAttrs(Attrs, type_key="relax.attrs.TileAttrs"):
    """``tile``: ``repeats`` per dim."""

    repeats: object = None


class FlipAttrs(Attrs, type_key="relax.attrs.FlipAttrs"):
    """``flip``: the ``axis`` to reverse."""

    axis: int = 0


class GatherElementsAttrs(Attrs, type_key="relax.attrs.GatherElementsAttrs"):
    """``gather_elements``: the ``axis``."""

    axis: int = 0


class ScatterElementsAttrs(Attrs, type_key="relax.attrs.ScatterElementsAttrs"):
    """``scatter_elements``: the ``axis`` and the ``reduction`` (update/add/mul/mean/max/min)."""

    axis: int = 0
    reduction: str = "update"


class OneHotAttrs(Attrs, type_key="relax.attrs.OneHotAttrs"):
    """``one_hot``: the ``depth`` and the new ``axis``."""

    depth: int = 1
    axis: int = -1


class LayoutTransformAttrs(Attrs, type_key="relax.attrs.LayoutTransformAttrs"):
    """``layout_transform``: the ``index_map`` (a ``tirx.IndexMap``) and ``pad_value``."""

    index_map: object = None
    pad_value: object = None


class TakeAttrs(Attrs, type_key="relax.attrs.TakeAttrs"):
    """``take``: the ``axis`` (None: flattened input) and the out-of-range ``mode``."""

    axis: object = None
    mode: str = "fast"


class StridedSliceAttrs(Attrs, type_key="relax.attrs.StridedSliceAttrs"):
    """``strided_slice``: whether indices are ``assume_inbound``."""

    assume_inbound: bool = False


class EinsumAttrs(Attrs, type_key="relax.attrs.EinsumAttrs"):
    """``einsum``: the ``subscripts`` string."""

    subscripts: str = ""


class ScanopAttrs(Attrs, type_key="relax.attrs.ScanopAttrs"):
    """``cumsum``/``cumprod``: ``axis`` (None: flattened), output ``dtype``, ``exclusive``."""

    axis: object = None
    dtype: object = None
    exclusive: bool = False


class ArgmaxArgminAttrs(Attrs, type_key="relax.attrs.ArgmaxArgminAttrs"):
    """``argmax``/``argmin``: the ``axis`` (None: flattened) and ``keepdims``."""

    axis: object = None
    keepdims: bool = False


class SortAttrs(Attrs, type_key="relax.attrs.SortAttrs"):
    """``sort``: the ``axis`` and ``descending``."""

    axis: int = -1
    descending: bool = False


class ArgsortAttrs(Attrs, type_key="relax.attrs.ArgsortAttrs"):
    """``argsort``: the ``axis``, ``descending`` and the index ``dtype``."""

    axis: int = -1
    descending: bool = False
    dtype: object = "int32"


class TopKAttrs(Attrs, type_key="relax.attrs.TopKAttrs"):
    """``topk``: ``k``, ``axis``, ``ret_type`` (both/values/indices), ``largest``, ``dtype``."""

    k: int = 1
    axis: int = -1
    ret_type: str = "both"
    largest: bool = True
    dtype: object = "int32"


class CallTIRWithGradAttrs(Attrs, type_key="relax.attrs.CallTIRWithGradAttrs"):
    """``call_tir_with_grad``: the registered TE gradient's name and its keyword arguments."""

    te_grad_name: str = ""
    te_grad_kwargs: object = None


class QuantizeAttrs(Attrs, type_key="relax.attrs.QuantizeAttrs"):
    """``quantize``/``dequantize``: the parameters' ``axis`` and the ``out_dtype``."""

    axis: int = -1
    out_dtype: object = None


class CallTIRInplaceAttrs(Attrs, type_key="relax.attrs.CallTIRInplaceAttrs"):
    """``call_tir_inplace``: per output, the input it overwrites (-1: a new tensor)."""

    inplace_indices: object = None
