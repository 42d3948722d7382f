"""Attribute nodes of Relax ops (type keys ``relax.attrs.<Name>``, as in Apache TVM 0.27).

Op families add their attribute classes here, one declared node per class, so each prints as
``relax.attrs.MatmulAttrs(out_dtype=None)`` and compares structurally.
"""

from __future__ import annotations

from ...ir.attrs import Attrs

__all__ = ["MatmulAttrs", "StatisticalAttrs", "PermuteDimsAttrs", "InitAttrs", "Attrs"]


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
