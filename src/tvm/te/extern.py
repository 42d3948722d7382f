"""``te.extern``: outputs computed by a hand-written TIR statement.

``fcompute(ins, outs)`` receives one ``Buffer`` per input tensor and per output and returns the
statement that fills the outputs (loops, stores, ...). ``te.create_prim_func`` puts that
statement in an SBlock named after the operation.
"""

from __future__ import annotations

from ..ir.expr import PrimExpr
from ..tirx.buffer import Buffer, decl_buffer
from ..tirx.stmt import SeqStmt, Stmt
from .tensor import ExternOp, Tensor, _shape

__all__ = ["extern"]


def extern(shape, inputs, fcompute, name="extern", dtype=None, in_buffers=None,
           out_buffers=None, tag="", attrs=None):
    """Tensors computed by the statement ``fcompute(ins, outs)``.

    Parameters
    ----------
    shape : tuple or list of tuples
        The output shape, or one shape per output.
    inputs : list of Tensor
        The input tensors.
    fcompute : callable
        ``fcompute(input_buffers, output_buffers) -> Stmt``.
    name : str
        The operation's (and single output buffer's) name.
    dtype : str or list of str, optional
        Output dtypes; default the first input's dtype (or ``float32``).
    in_buffers, out_buffers : Buffer or list of Buffer, optional
        Buffers to use instead of fresh ones.

    Returns
    -------
    Tensor or list of Tensor
        One tensor per output (a single tensor when there is one output).

    Examples
    --------
    >>> from tvm import te, tirx
    >>> A = te.placeholder((4,), name="A")
    >>> def double(ins, outs):
    ...     i = tirx.Var("i", "int32")
    ...     store = tirx.BufferStore(outs[0], ins[0][i] * 2.0, [i])
    ...     return tirx.For(i, 0, 4, tirx.ForKind.SERIAL, store)
    >>> B = te.extern((4,), [A], double, name="B")
    >>> B.op.output_placeholders[0].name
    'B'
    """
    multi = bool(shape) and isinstance(shape[0], (list, tuple))
    shapes = [_shape(s) for s in shape] if multi else [_shape(shape)]
    inputs = list(inputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"extern {name}: inputs must be te.Tensor, got {type(t).__name__}")
    if dtype is None:
        dtype = inputs[0].dtype if inputs else "float32"
    dtypes = list(dtype) if isinstance(dtype, (list, tuple)) else [dtype] * len(shapes)
    if len(dtypes) != len(shapes):
        raise ValueError(f"extern {name}: {len(shapes)} outputs but {len(dtypes)} dtypes")
    ins = _buffers(in_buffers, len(inputs), "in_buffers", name)
    if ins is None:
        ins = [decl_buffer(t.shape, t.dtype, t.op.name) for t in inputs]
    outs = _buffers(out_buffers, len(shapes), "out_buffers", name)
    if outs is None:
        outs = [
            decl_buffer(s, d, name if len(shapes) == 1 else f"{name}_v{i}")
            for i, (s, d) in enumerate(zip(shapes, dtypes))
        ]
    body = fcompute(ins, outs)
    if isinstance(body, (list, tuple)):
        body = SeqStmt.flatten(list(body))
    if isinstance(body, PrimExpr):
        body = SeqStmt.flatten(body)
    if not isinstance(body, Stmt):
        raise TypeError(f"extern {name}: fcompute must return a Stmt, got {type(body).__name__}")
    op = ExternOp(name, tag, dict(attrs or {}), tuple(inputs), tuple(ins), tuple(outs), body)
    tensors = [op.output(i) for i in range(len(outs))]
    return tensors if multi else tensors[0]


def _buffers(given, count, what, name):
    if given is None:
        return None
    given = [given] if isinstance(given, Buffer) else list(given)
    if len(given) != count:
        raise ValueError(f"extern {name}: {what} needs {count} buffers, got {len(given)}")
    return given
