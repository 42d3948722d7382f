"""``tvm.contrib.cblas``: matrix products as ``te.extern`` operations.

TVM's version builds an extern op whose body is ``T.call_packed("tvm.contrib.cblas.matmul",
A, B, C, transa, transb)``, a call into a BLAS library linked into the runtime. pytvm links
no BLAS and its TIR has no DLTensor arguments for packed calls yet, so here the extern's body
is the matrix product written as a TIR loop nest (serial loops, ``C = 0`` then ``C += a * b``).
What TVM code observes is the same: one extern stage named ``C`` with the output shape and
dtype of the product; ``bb.emit_te(cblas.matmul, x, y)`` emits a ``call_tir`` of a PrimFunc
named ``matmul``; compiling and running it computes ``op(A) @ op(B)``. Only the speed of a
tuned BLAS is missing.
"""

from __future__ import annotations

from .. import te, tirx

__all__ = ["batch_matmul", "matmul"]


def _loop_var(name, extent):
    dtype = extent.dtype if hasattr(extent, "dtype") else "int32"
    return tirx.Var(name, dtype)


def _is_one(extent):
    return isinstance(extent, int) and extent == 1 or (
        isinstance(extent, tirx.IntImm) and extent.value == 1
    )


def _product_body(a_buf, b_buf, c_buf, transa, transb, batch=None):
    """``C[(b,) i, j] = sum_k op(A)[(b,) i, k] * op(B)[(b,) k, j]`` as serial loops."""
    off = 0 if batch is None else 1
    n, m = c_buf.shape[off], c_buf.shape[off + 1]
    k_extent = a_buf.shape[off] if transa else a_buf.shape[off + 1]
    i, j, k = _loop_var("i", n), _loop_var("j", m), _loop_var("k", k_extent)
    lead_c, lead_a, lead_b = [], [], []
    bvar = None
    if batch is not None:
        bvar = _loop_var("b", batch)
        lead_c = [bvar]
        # a batch dimension of extent 1 broadcasts against the other operand's
        lead_a = [tirx.const(0, bvar.dtype) if _is_one(a_buf.shape[0]) else bvar]
        lead_b = [tirx.const(0, bvar.dtype) if _is_one(b_buf.shape[0]) else bvar]
    a_idx = lead_a + ([k, i] if transa else [i, k])
    b_idx = lead_b + ([j, k] if transb else [k, j])
    c_idx = lead_c + [i, j]
    dtype = c_buf.dtype
    init = tirx.BufferStore(c_buf, tirx.const(0, dtype), c_idx)
    acc = tirx.BufferStore(
        c_buf,
        tirx.BufferLoad(c_buf, c_idx)
        + tirx.BufferLoad(a_buf, a_idx).astype(dtype) * tirx.BufferLoad(b_buf, b_idx).astype(dtype),
        c_idx,
    )
    serial = tirx.ForKind.SERIAL
    inner = tirx.SeqStmt([init, tirx.For(k, tirx.const(0, k.dtype), k_extent, serial, acc)])
    body = tirx.For(i, tirx.const(0, i.dtype), n, serial,
                    tirx.For(j, tirx.const(0, j.dtype), m, serial, inner))
    if bvar is not None:
        body = tirx.For(bvar, tirx.const(0, bvar.dtype), batch, serial, body)
    return body


def _check_rank(name, tensors, rank):
    for t in tensors:
        if not isinstance(t, te.Tensor):
            raise TypeError(f"cblas.{name}: operands must be te.Tensor, got {type(t).__name__}")
        if len(t.shape) != rank:
            raise ValueError(
                f"cblas.{name}: operands must be {rank}-D, got {t.op.name} of shape "
                f"{list(t.shape)}"
            )


def matmul(lhs, rhs, transa=False, transb=False, **kwargs):
    """The matrix product ``op(lhs) @ op(rhs)`` as an extern op named ``C``.

    Parameters
    ----------
    lhs, rhs : te.Tensor
        2-D operands.
    transa, transb : bool
        Whether to transpose ``lhs`` / ``rhs`` first.
    **kwargs
        Passed to :func:`tvm.te.extern` (``dtype``, ``tag``, ``attrs``...).

    Returns
    -------
    te.Tensor
        ``C`` of shape ``(n, m)``.
    """
    _check_rank("matmul", (lhs, rhs), 2)
    n = lhs.shape[1] if transa else lhs.shape[0]
    m = rhs.shape[0] if transb else rhs.shape[1]
    return te.extern(
        (n, m),
        [lhs, rhs],
        lambda ins, outs: _product_body(ins[0], ins[1], outs[0], transa, transb),
        name="C",
        **kwargs,
    )


def batch_matmul(lhs, rhs, transa=False, transb=False, iterative=False, **kwargs):
    """The batched product ``op(lhs[b]) @ op(rhs[b])`` as an extern op named ``C``.

    A batch dimension of extent 1 broadcasts. ``iterative`` (TVM: call BLAS once per batch
    instead of the batched routine) does not change the result and is accepted for
    compatibility.

    Returns
    -------
    te.Tensor
        ``C`` of shape ``(max(b_lhs, b_rhs), n, m)``.
    """
    del iterative  # same loop nest either way
    _check_rank("batch_matmul", (lhs, rhs), 3)
    if _is_one(lhs.shape[0]):
        b = rhs.shape[0]
    elif _is_one(rhs.shape[0]):
        b = lhs.shape[0]
    else:
        b = te.max(lhs.shape[0], rhs.shape[0])
    n = lhs.shape[2] if transa else lhs.shape[1]
    m = rhs.shape[1] if transb else rhs.shape[2]
    return te.extern(
        (b, n, m),
        [lhs, rhs],
        lambda ins, outs: _product_body(ins[0], ins[1], outs[0], transa, transb, batch=b),
        name="C",
        **kwargs,
    )
