"""NumPy reference semantics of ``unique`` (``FReference``), shared with the VM's
``relax.run.unique`` builtin."""

from __future__ import annotations

import numpy as np

from ..registry import register_reference


def unique_outputs(x, sorted_, return_index, return_inverse, return_counts, axis=None):
    """The outputs of ``R.unique`` as a list of arrays (values first).

    ``sorted_=False`` orders the unique values (and their counts) by first occurrence, and the
    inverse indices refer to that order.
    """
    x = np.asarray(x)
    if x.ndim == 0:
        x = x.reshape(1)
    values, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values = np.take(values, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    out = [values]
    if return_index:
        out.append(first.astype("int64"))
    if return_inverse:
        out.append(inverse.astype("int64"))
    if return_counts:
        out.append(counts.astype("int64"))
    return out


@register_reference("unique")
def _unique(_attrs, x, sorted_, return_index, return_inverse, return_counts, axis=None):
    out = unique_outputs(x, bool(sorted_), bool(return_index), bool(return_inverse),
                         bool(return_counts), None if axis is None else int(axis))
    return out[0] if len(out) == 1 else tuple(out)
