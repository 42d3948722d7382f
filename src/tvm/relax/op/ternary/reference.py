"""NumPy reference semantics of ``ewise_fma`` and ``where`` (``FReference``)."""

from __future__ import annotations

import numpy as np

from ..registry import register_reference


@register_reference("ewise_fma")
def _ewise_fma(_attrs, x1, x2, x3):
    return (x1 * x2 + x3).astype(x1.dtype, copy=False)


@register_reference("where")
def _where(_attrs, condition, x1, x2):
    return np.where(condition, x1, x2).astype(np.result_type(x1, x2), copy=False)
