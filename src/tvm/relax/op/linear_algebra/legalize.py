"""Legalization rules of the linear_algebra family (``matmul``, ``einsum``, ``outer``).

``matmul`` is written in te here: NumPy semantics (1-D operands are promoted and the added
dim dropped, batch dims broadcast), a reduction named ``matmul`` as in TVM.
"""

from __future__ import annotations

from .... import te, tirx, topi
from ...transform.legalize_ops.common import reduce_axis, register_legalize


def _matmul_te(out_dtype):
    def matmul(a, b):
        a_shape, b_shape = list(a.shape), list(b.shape)
        a_vec, b_vec = len(a_shape) == 1, len(b_shape) == 1
        k_dim = a_shape[-1]
        rk = reduce_axis(k_dim, "k")
        a_batch = [] if a_vec else a_shape[:-2]
        b_batch = [] if b_vec else b_shape[:-2]
        nbatch = max(len(a_batch), len(b_batch))
        a_batch = [1] * (nbatch - len(a_batch)) + a_batch
        b_batch = [1] * (nbatch - len(b_batch)) + b_batch
        batch = [bd if _is_one(ad) else ad for ad, bd in zip(a_batch, b_batch)]
        out_shape = list(batch)
        if not a_vec:
            out_shape.append(a_shape[-2])
        if not b_vec:
            out_shape.append(b_shape[-1])
        dtype = out_dtype or a.dtype

        def index(tensor_batch, ndim_batch_own, idx_batch):
            # A broadcast batch dim (size 1 against a larger one) reads index 0; a dim of 1 on
            # both sides keeps the loop index (TVM's kernel); missing leading dims are dropped.
            own = tensor_batch[nbatch - ndim_batch_own :]
            out = batch[nbatch - ndim_batch_own :]
            picked = idx_batch[nbatch - ndim_batch_own :]
            return [
                tirx.const(0, "int64") if _is_one(d) and not _is_one(o) else i
                for d, o, i in zip(own, out, picked)
            ]

        def body(*idx):
            idx = list(idx)
            bidx = idx[:nbatch]
            rest = idx[nbatch:]
            ai = index(a_batch, 0 if a_vec else len(a.shape) - 2, bidx)
            bi = index(b_batch, 0 if b_vec else len(b.shape) - 2, bidx)
            a_idx = [rk] if a_vec else ai + [rest[0], rk]
            b_idx = [rk] if b_vec else bi + [rk, rest[-1]]
            return te.sum(a(*a_idx).astype(dtype) * b(*b_idx).astype(dtype), axis=rk)

        return te.compute(out_shape, body, name="matmul")

    return matmul


def _is_one(dim):
    return isinstance(dim, int) and dim == 1 or getattr(dim, "value", None) == 1


@register_legalize("relax.matmul")
def _matmul(bb, call):
    out_dtype = call.attrs.out_dtype or call.ty.dtype
    a, b = call.args
    unknown = [f"{arg.name_hint if hasattr(arg, 'name_hint') else arg} ({arg.ty})"
               for arg in (a, b) if str(arg.ty.dtype) in ("void", "")]
    if unknown or str(out_dtype) in ("void", ""):
        # TVM's kind (an AssertionError) and wording: the kernel needs concrete dtypes.
        raise AssertionError(
            "To legalize R.matmul into R.call_tir, the dtype of the arguments and of the result "
            f"must be known; unknown: {', '.join(unknown) or 'the result'}"
        )
    return bb.call_te(_matmul_te(out_dtype), a, b, primfunc_name_hint="matmul")


@register_legalize("relax.einsum")
def _einsum(bb, call):
    from ...transform.legalize_ops.common import tuple_fields

    operands = tuple_fields(call.args[0])
    return bb.call_te(topi.einsum, call.attrs.subscripts, *operands, primfunc_name_hint="einsum")


def _outer(a, b):
    return te.compute((a.shape[0], b.shape[0]), lambda i, j: a[i] * b[j], name="T_outer")


@register_legalize("relax.outer")
def _outer_rule(bb, call):
    return bb.call_te(_outer, *call.args, primfunc_name_hint="outer")
