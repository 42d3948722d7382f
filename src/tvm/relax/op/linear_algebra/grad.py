"""``FPrimalGradient`` rules of the linear algebra family.

``matmul`` follows TVM 0.27 exactly: ``g @ T(b)`` and ``T(a) @ g`` (``T`` swaps the last two
axes), 1-D operands promoted with ``expand_dims`` and the results fitted back to the operands'
shapes (collapse-sum over broadcast batch dims, squeeze of a promoted 1-D ``b``).
"""

from __future__ import annotations

import string

from ...expr import ShapeExpr, Tuple, TupleGetItem
from ..binary import multiply
from ..create import eye
from ..grad.grad import fit_shape, register_gradient, shape_of
from ..linear_algebra import einsum, matmul
from ..manipulate import broadcast_to, expand_dims, permute_dims, squeeze
from .infer import parse_einsum


def _transpose(x, ndim):
    axes = list(range(ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return permute_dims(x, axes)


@register_gradient("relax.matmul")
def _matmul_grad(orig_var, orig_call, output_grad, ctx):
    a, b = orig_call.args
    a_dim, b_dim = a.ty.ndim, b.ty.ndim
    # As in TVM 0.27, the gradient matmuls compute in the operands' dtype (out_dtype=None).
    out_dtype = None
    g = output_grad
    if a_dim == 1 and b_dim == 1:
        return [fit_shape(ctx, multiply(g, b), a), fit_shape(ctx, multiply(g, a), b)]
    if a_dim == 1:
        g = ctx.emit(expand_dims(g, [-2]))
        a_grad = matmul(g, _transpose(b, b_dim), out_dtype)
        b_grad = matmul(expand_dims(a, [1]), g, out_dtype)
    elif b_dim == 1:
        g = ctx.emit(expand_dims(g, [-1]))
        a_grad = matmul(g, expand_dims(b, [0]), out_dtype)
        b_grad = squeeze(matmul(_transpose(a, a_dim), g, out_dtype), [-1])
    else:
        a_grad = matmul(g, _transpose(b, b_dim), out_dtype)
        b_grad = matmul(_transpose(a, a_dim), g, out_dtype)
    return [fit_shape(ctx, a_grad, a), fit_shape(ctx, b_grad, b)]


@register_gradient("relax.outer")
def _outer_grad(orig_var, orig_call, output_grad, ctx):
    # z = a b^T: dz/da = g @ b, dz/db = g^T @ a
    a, b = orig_call.args
    return [matmul(output_grad, b), matmul(permute_dims(output_grad, [1, 0]), a)]


def _onto_diagonals(grad, term, full_term, full_dims, dtype, terms):
    """``grad`` (subscripts ``term``, each letter once) placed on the diagonals of an operand
    with subscripts ``full_term``: each repeat of a letter gets a fresh letter tied to the
    first by an identity matrix (``einsum("i,ia->ia", g, eye)`` for ``"ii"``)."""
    used = set("".join(terms)) | set(term)
    fresh = (c for c in string.ascii_letters if c not in used)
    seen, out, eyes, eye_terms = set(), [], [], []
    for pos, letter in enumerate(full_term):
        if letter not in seen:
            seen.add(letter)
            out.append(letter)
            continue
        new = next(fresh)
        out.append(new)
        eyes.append(eye(full_dims[pos], dtype=dtype))
        eye_terms.append(letter + new)
    return einsum([grad, *eyes], f"{term},{','.join(eye_terms)}->{''.join(out)}")


@register_gradient("relax.einsum")
def _einsum_grad(orig_var, orig_call, output_grad, ctx):
    # The gradient of operand i contracts the output gradient with the other operands back to
    # operand i's subscript; letters only operand i has (summed away) are broadcast back.
    (operands,) = orig_call.args
    fields = operands.ty.fields
    exprs = [
        operands.fields[i] if isinstance(operands, Tuple) else TupleGetItem(operands, i)
        for i in range(len(fields))
    ]
    # Ellipses expand to explicit letters from the operands' ranks (known: shape_of below
    # needs the shapes anyway).
    parsed = parse_einsum(str(orig_call.attrs.subscripts), len(fields), [f.ndim for f in fields])
    if parsed is None:
        raise ValueError("einsum gradients of an ellipsis need operands of known rank")
    terms, output = parsed
    grads = []
    for i, full_term in enumerate(terms):
        # A letter repeated within the operand reads its diagonal: take the gradient of the
        # diagonal (one letter each), then place it back on the diagonal with identities.
        term = "".join(dict.fromkeys(full_term))
        others = [t for j, t in enumerate(terms) if j != i]
        other_exprs = [e for j, e in enumerate(exprs) if j != i]
        available = set(output) | set("".join(others))
        kept = "".join(c for c in term if c in available)
        if output:
            grad = einsum([output_grad, *other_exprs], f"{output},{','.join(others)}->{kept}"
                          if others else f"{output}->{kept}")  # fmt: skip
        elif others:
            grad = multiply(output_grad, einsum(other_exprs, f"{','.join(others)}->{kept}"))
        else:
            grad = output_grad
        if kept != term:
            missing = [k for k, c in enumerate(term) if c not in available]
            full_dims = shape_of(exprs[i]).values
            dims = ShapeExpr([full_dims[full_term.index(c)] for c in term])
            grad = broadcast_to(expand_dims(grad, missing) if kept else grad, dims)
        if term != full_term:
            full_dims = shape_of(exprs[i]).values
            grad = _onto_diagonals(grad, term, full_term, full_dims, exprs[i].ty.dtype, terms)
        # An ellipsis dim of extent 1 broadcast against a larger one sums back to extent 1.
        grads.append(fit_shape(ctx, grad, exprs[i]))
    return [Tuple(grads)]
