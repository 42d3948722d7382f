"""``einsum``: a general Einstein summation as one te compute.

Every label of the output is a spatial axis; every other label is a reduction axis. Supports
explicit (``"ij,jk->ik"``) and implicit (``"ij,jk"``: output labels are the labels seen once,
sorted) forms, repeated labels within one operand (diagonals), and ``...`` for leading
broadcast axes.
"""

from __future__ import annotations

from .. import te
from ..tirx import generic as _g
from .broadcast import broadcast_shape
from .utils import const_like, get_const_int, is_const_int, reduce_axis

__all__ = ["einsum"]


def _parse(subscripts, operands):
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        inputs, output = spec.split("->")
        explicit = True
    else:
        inputs, output, explicit = spec, None, False
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: {subscripts!r} names {len(terms)} operands, got "
                         f"{len(operands)}")
    ell_shape = ()
    for term, t in zip(terms, operands):
        if "..." in term:
            n_ell = t.ndim - (len(term) - 3)
            if n_ell < 0:
                raise ValueError(f"einsum: term {term!r} has more labels than {t.ndim} dims")
            start = term.index("...")
            ell_shape = broadcast_shape(ell_shape, t.shape[start:start + n_ell], "einsum")
    expanded = []
    for term, t in zip(terms, operands):
        if "..." in term:
            before, after = term.split("...")
            n_ell = t.ndim - len(before) - len(after)
            # Ellipsis axes get labels "#0", "#1"... (right-aligned, as broadcasting).
            ell_labels = [f"#{k}" for k in range(len(ell_shape) - n_ell, len(ell_shape))]
            labels = list(before) + ell_labels + list(after)
        else:
            labels = list(term)
            if len(labels) != t.ndim:
                raise ValueError(f"einsum: term {term!r} has {len(labels)} labels for a "
                                 f"{t.ndim}-D operand")
        expanded.append(labels)
    ell = [f"#{k}" for k in range(len(ell_shape))]
    if explicit and "..." in output:
        before, after = output.split("...")
        out = list(before) + ell + list(after)
    elif explicit:
        out = list(output)
    else:
        counts: dict = {}
        for labels in expanded:
            for c in labels:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and not c.startswith("#"))
    return expanded, out, ell_shape


def einsum(subscripts, *operand):
    """Einstein summation over te tensors, as ``np.einsum`` (no optimize/order arguments).

    Examples
    --------
    >>> from tvm import te, topi
    >>> A = te.placeholder((2, 3), name="A")
    >>> B = te.placeholder((3, 4), name="B")
    >>> [int(s) for s in topi.einsum("ij,jk->ik", A, B).shape]
    [2, 4]
    """
    if len(operand) == 1 and isinstance(operand[0], (list, tuple)):
        operand = tuple(operand[0])
    expanded, out_labels, ell_shape = _parse(subscripts, operand)
    extents: dict = {}
    for k, label in enumerate(f"#{j}" for j in range(len(ell_shape))):
        extents[label] = ell_shape[k]
    for labels, t in zip(expanded, operand):
        for c, dim in zip(labels, t.shape):
            if c.startswith("#"):
                continue
            known = extents.get(c)
            if known is None or (is_const_int(known) and get_const_int(known) == 1):
                extents[c] = dim
            elif (is_const_int(dim) and is_const_int(known)
                  and get_const_int(dim) not in (1, get_const_int(known))):
                raise ValueError(f"einsum: label {c!r} has extents {known} and {dim}")
    for c in out_labels:
        if c not in extents:
            raise ValueError(f"einsum: output label {c!r} is not in any input")
    red_labels = [c for c in extents if c not in out_labels]
    raxes = {c: reduce_axis(extents[c], f"k_{c}") for c in red_labels}
    out_shape = tuple(extents[c] for c in out_labels)

    def body(*i):
        env = dict(zip(out_labels, i))
        env.update({c: ax.var for c, ax in raxes.items()})
        prod = None
        for labels, t in zip(expanded, operand):
            idx = []
            for c, dim in zip(labels, t.shape):
                v = env[c]
                # An extent-1 axis broadcasts against a longer one of the same label.
                if is_const_int(dim) and get_const_int(dim) == 1 and not (
                        is_const_int(extents[c]) and get_const_int(extents[c]) == 1):
                    v = const_like(0, v.dtype)
                if v.dtype != dim.dtype:
                    v = _g.cast(v, dim.dtype)
                idx.append(v)
            load = t(*idx)
            prod = load if prod is None else prod * load
        if not raxes:
            return prod
        return te.sum(prod, axis=list(raxes.values()))

    return te.compute(out_shape, body, name="T_einsum", tag="einsum")
