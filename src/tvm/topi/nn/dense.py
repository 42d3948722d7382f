"""``dense``, ``matmul`` and ``batch_matmul``.

``matmul`` follows NumPy's ``matmul`` (as Relax's ``matmul``): 1-D operands are promoted and
the added axis removed, leading (batch) axes broadcast; ``transpose_a``/``transpose_b`` swap the
last two axes of an operand first. ``out_dtype`` casts the operands before multiplying.
"""

from __future__ import annotations

from ... import te
from ...tirx import generic as _g
from ..broadcast import add, broadcast_index_of_shape, broadcast_shape
from ..utils import reduce_axis

__all__ = ["batch_matmul", "dense", "matmul"]


def _load_as(t, idx, dtype):
    v = t(*idx)
    return v if v.dtype == dtype else _g.cast(v, dtype)


def matmul(tensor_a, tensor_b, bias=None, out_dtype=None, transpose_a=False,
           transpose_b=False, auto_scheduler_rewritten_layout="",
           meta_schedule_original_shape=None):
    """``op(a) @ op(b) (+ bias)`` with NumPy ``matmul`` rules (see the module docstring)."""
    a, b = tensor_a, tensor_b
    out_dtype = str(out_dtype) if out_dtype not in (None, "", "void") else a.dtype
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must have at least 1 dimension")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    # Logical (batch..., m, k) and (batch..., k, n) views as index maps.
    a_m = None if a_vec else (a.ndim - 1 if transpose_a else a.ndim - 2)
    a_k = a.ndim - 1 if a_vec else (a.ndim - 2 if transpose_a else a.ndim - 1)
    b_k = 0 if b_vec else (b.ndim - 1 if transpose_b else b.ndim - 2)
    b_n = None if b_vec else (b.ndim - 2 if transpose_b else b.ndim - 1)
    a_batch = list(a.shape[:-2]) if not a_vec else []
    b_batch = list(b.shape[:-2]) if not b_vec else []
    batch = broadcast_shape(a_batch, b_batch, "matmul")
    k_extent = a.shape[a_k]
    k_b = b.shape[b_k]
    if _static(k_extent) and _static(k_b) and int(k_extent) != int(k_b):
        raise ValueError(f"matmul: reduction extents differ ({int(k_extent)} vs {int(k_b)}) "
                         f"for shapes {list(a.shape)} and {list(b.shape)}")
    shape = list(batch)
    if a_m is not None:
        shape.append(a.shape[a_m])
    if b_n is not None:
        shape.append(b.shape[b_n])
    k = reduce_axis(k_extent, "k")
    nb = len(batch)

    def body(*i):
        bi = i[:nb]
        rest = list(i[nb:])
        m = rest.pop(0) if a_m is not None else None
        n = rest.pop(0) if b_n is not None else None
        a_idx = list(broadcast_index_of_shape(a_batch, batch, bi)) if a_batch else []
        if a_vec:
            a_idx = [k.var]
        else:
            a_idx += [k.var, m] if transpose_a else [m, k.var]
        b_idx = list(broadcast_index_of_shape(b_batch, batch, bi)) if b_batch else []
        if b_vec:
            b_idx = [k.var]
        else:
            b_idx += [n, k.var] if transpose_b else [k.var, n]
        return te.sum(_load_as(a, a_idx, out_dtype) * _load_as(b, b_idx, out_dtype), axis=[k])

    name = f"T_matmul_{'T' if transpose_a else 'N'}{'T' if transpose_b else 'N'}"
    out = te.compute(tuple(shape), body, name=name, tag="matmul")
    if bias is not None:
        out = add(out, bias)  # the bias broadcasts over the output
    return out


def _static(dim) -> bool:
    return hasattr(dim, "value")


def dense(data, weight, bias=None, out_dtype=None, auto_scheduler_rewritten_layout="",
          meta_schedule_original_shape=None):
    """``data @ weight.T (+ bias)`` for 2-D ``data`` (batch, in) and ``weight`` (out, in)."""
    if data.ndim != 2 or weight.ndim != 2:
        raise ValueError(f"dense expects 2-D data and weight, got {data.ndim}-D and "
                         f"{weight.ndim}-D")
    return matmul(data, weight, bias, out_dtype, transpose_a=False, transpose_b=True)


def batch_matmul(tensor_a, tensor_b, oshape=None, out_dtype=None, transpose_a=False,
                 transpose_b=True, auto_scheduler_rewritten_layout="",
                 meta_schedule_original_shape=None):
    """Batched ``op(a) @ op(b)`` of 3-D tensors (``b`` transposed by default, as TVM).

    Limitation: ``oshape`` must be ``None`` (the output shape is inferred).
    """
    if oshape is not None:
        raise ValueError("batch_matmul: oshape is not supported (the shape is inferred)")
    if tensor_a.ndim != 3 or tensor_b.ndim != 3:
        raise ValueError(f"batch_matmul expects 3-D tensors, got {tensor_a.ndim}-D and "
                         f"{tensor_b.ndim}-D")
    return matmul(tensor_a, tensor_b, None, out_dtype, transpose_a, transpose_b)
