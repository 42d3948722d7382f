"""NumPy reference semantics of ``astype``/``wrap_param`` (``FReference``).

Float to int casts truncate toward zero, as C (and TVM's ``Cast``) do.
"""

from __future__ import annotations

import numpy as np

from ..registry import reference_dtype, register_reference


def _cast(attrs, x):
    return np.asarray(x).astype(reference_dtype(attrs.dtype))


register_reference("astype")(_cast)
register_reference("wrap_param")(_cast)
