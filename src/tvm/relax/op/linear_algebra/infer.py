"""Type inference of ``relax.matmul`` (NumPy ``matmul`` semantics, batch broadcasting)."""

from __future__ import annotations

from ..infer_utils import (
    binary_dtype,
    broadcast_shapes,
    dim_text,
    is_one,
    known_shape,
    make_tensor_type,
    prove_equal,
    shape_text,
    tensor_args,
    text,
)


def infer_matmul(call, _bb=None):
    """1-D operands are promoted (then the added dim is dropped); batch dims broadcast."""
    lhs, rhs = tensor_args(call, 2)
    out_dtype = getattr(call.attrs, "out_dtype", None)
    if out_dtype is None or str(out_dtype) in ("", "void"):
        dtype = binary_dtype(call, lhs, rhs)
    else:
        dtype = str(out_dtype)
    vdevice = lhs.vdevice if lhs.vdevice is not None else rhs.vdevice
    if lhs.ndim == 0 or rhs.ndim == 0:
        side, arg, ty = ("LHS", call.args[0], lhs) if lhs.ndim == 0 else ("RHS", call.args[1], rhs)
        raise ValueError(
            f"Matmul operands must not be scalar.  However, the expression {text(call)} has a "
            f"{side} of {text(arg)} with type {text(ty)}, which is scalar (zero-dimensional) "
            "tensor."
        )
    if lhs.ndim == -1 or rhs.ndim == -1:
        return make_tensor_type(None, dtype, -1, vdevice)
    lhs_1d, rhs_1d = lhs.ndim == 1, rhs.ndim == 1
    l_ndim = 2 if lhs_1d else lhs.ndim
    r_ndim = 2 if rhs_1d else rhs.ndim
    out_ndim = max(l_ndim, r_ndim) - int(lhs_1d) - int(rhs_1d)
    lvals, rvals = known_shape(lhs), known_shape(rhs)
    if lvals is None or rvals is None:
        return make_tensor_type(None, dtype, out_ndim, vdevice)
    lfull = (None,) + tuple(lvals) if lhs_1d else tuple(lvals)
    rfull = tuple(rvals) + (None,) if rhs_1d else tuple(rvals)
    l_red, r_red = lfull[-1], rfull[-2]
    if prove_equal(l_red, r_red) is False:
        raise ValueError(
            "Matmul requires the reduction length of the operands to be equal.  However, "
            f"the LHS {text(call.args[0])} has shape {shape_text(lhs)}, while the RHS "
            f"{text(call.args[1])} has shape {shape_text(rhs)}.  The reduction dimensions "
            f"of {dim_text(l_red)} and {dim_text(r_red)} are not equal."
        )
    batch = broadcast_shapes(call, lfull[:-2], rfull[:-2])
    if batch is None:
        return make_tensor_type(None, dtype, out_ndim, vdevice)
    out = list(batch)
    if not lhs_1d:
        out.append(lfull[-2])
    if not rhs_1d:
        out.append(rfull[-1])
    return make_tensor_type(out, dtype, out_ndim, vdevice)


# --- the op library's rules: einsum, outer -----------------------------------------------------


def parse_einsum(subscripts: str, n_operands: int, ndims=None):
    """``(input subscripts, output subscript)`` of an einsum spec (implicit output sorted).

    An ellipsis (``...``) is expanded to fresh letters, given the operands' ``ndims``: it
    stands for the dims the letters do not name, aligned from the right across operands and
    broadcast (as NumPy). The implicit output puts the ellipsis dims first. ``ndims`` None
    (or an unknown ndim, -1, of an operand with an ellipsis) returns None.
    """
    spec = subscripts.replace(" ", "")
    if "->" in spec:
        lhs, out = spec.split("->")
    else:
        lhs = spec
        letters = lhs.replace(",", "").replace(".", "")
        single = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
        out = ("..." if "..." in lhs else "") + single
    inputs = lhs.split(",")
    if len(inputs) != n_operands:
        raise ValueError(
            f"einsum: the subscripts {subscripts!r} name {len(inputs)} operands, "
            f"but {n_operands} were given"
        )
    for sub in [*inputs, out]:
        if sub.replace("...", "", 1).count(".") or sub.count("...") > 1:
            raise ValueError(f"einsum: a subscript has a '.' that is not one ellipsis ('...'), "
                             f"got {subscripts!r}")
    if "..." not in spec:
        return inputs, out
    if ndims is None:
        return None
    used = set(spec)
    fresh = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    spans = []
    for sub, ndim in zip(inputs, ndims):
        if "..." not in sub:
            continue
        if ndim == -1:
            return None
        span = ndim - (len(sub) - 3)
        if span < 0:
            raise ValueError(
                f"einsum: operand subscript {sub!r} names more dims than the operand's "
                f"ndim {ndim}"
            )
        spans.append(span)
    width = max(spans, default=0)
    if "..." in out and "..." not in lhs:
        raise ValueError(f"einsum: the output has an ellipsis but no operand has one: "
                         f"{subscripts!r}")
    ell = "".join(fresh[:width])
    expanded = []
    for sub, ndim in zip(inputs, ndims):
        if "..." in sub:
            span = ndim - (len(sub) - 3)
            sub = sub.replace("...", ell[width - span:])
        expanded.append(sub)
    return expanded, out.replace("...", ell)


def infer_einsum(call, _bb=None):
    """Each output letter takes the extent its operands give it (they must agree)."""
    from ...ty import TensorType

    fields = getattr(call.args[0].ty, "fields", None)
    if fields is None or not all(isinstance(f, TensorType) for f in fields):
        raise TypeError(
            f"einsum expects a Tuple of Tensors, but {text(call.args[0])} has type "
            f"{text(call.args[0].ty)}"
        )
    dtypes = {f.dtype for f in fields if f.dtype != "void"}
    if len(dtypes) > 1:
        raise TypeError(
            f"einsum expects all operands to have the same dtype, got "
            f"{', '.join('T.' + d for d in sorted(dtypes))}"
        )
    dtype = dtypes.pop() if dtypes else "void"
    parsed = parse_einsum(call.attrs.subscripts, len(fields), [f.ndim for f in fields])
    if parsed is None:
        # An ellipsis over an operand of unknown rank: the output rank is unknown too.
        return make_tensor_type(None, dtype, -1)
    inputs, out = parsed
    extents = {}
    for sub, ty in zip(inputs, fields):
        if ty.ndim != -1 and ty.ndim != len(sub):
            raise ValueError(
                f"einsum: operand subscript {sub!r} has {len(sub)} letters but "
                f"the operand has ndim {ty.ndim}"
            )
        values = known_shape(ty)
        if values is None:
            continue
        for letter, dim in zip(sub, values):
            known = extents.get(letter)
            if (
                known is not None
                and not is_one(dim)
                and not is_one(known)
                and prove_equal(known, dim) is False
            ):
                raise ValueError(
                    f"einsum: subscript {letter!r} has extents "
                    f"{dim_text(known)} and {dim_text(dim)}"
                )
            if known is None or is_one(known):
                extents[letter] = dim
    if any(letter not in extents for letter in out):
        return make_tensor_type(None, dtype, len(out))
    return make_tensor_type([extents[c] for c in out], dtype, len(out))


def infer_outer(call, _bb=None):
    """``outer(x1, x2)`` of two 1-D tensors: shape ``(len(x1), len(x2))``."""
    lhs, rhs = tensor_args(call, 2)
    dtype = binary_dtype(call, lhs, rhs)
    if lhs.ndim not in (-1, 1) or rhs.ndim not in (-1, 1):
        raise ValueError(
            f"outer requires both inputs to be 1-D tensors, got ndim {lhs.ndim} and {rhs.ndim}"
        )
    lvals, rvals = known_shape(lhs), known_shape(rhs)
    if lvals is None or rvals is None:
        return make_tensor_type(None, dtype, 2)
    return make_tensor_type([lvals[0], rvals[0]], dtype, 2)
