"""``te.extern``: outputs computed by a hand-written TIR statement.

``fcompute(ins, outs)`` receives one ``Buffer`` per input tensor and per output and returns the
statement that fills the outputs (loops, stores, ...). ``te.create_prim_func`` puts that
statement in an SBlock named after the operation. ``extern_primfunc`` does the same with the
body of a TIR ``PrimFunc``, its buffer parameters becoming the extern's buffers.
"""

from __future__ import annotations

from ..ir.expr import PrimExpr
from ..tirx.buffer import Buffer, decl_buffer
from ..tirx.function import PrimFunc
from ..tirx.stmt import BufferLoad, BufferStore, SBlock, SeqStmt, Stmt
from ..tirx.stmt_functor import post_order_visit
from .tensor import ExternOp, Tensor, _shape

__all__ = ["extern", "extern_primfunc"]


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
    # As in TVM, one output is returned as a Tensor even when its shape came in a list.
    return tensors[0] if len(tensors) == 1 else tensors


def _buffers(given, count, what, name):
    if given is None:
        return None
    given = [given] if isinstance(given, Buffer) else list(given)
    if len(given) != count:
        raise ValueError(f"extern {name}: {what} needs {count} buffers, got {len(given)}")
    return given


def extern_primfunc(input_tensors, primfunc, **kwargs):
    """Tensors computed by the body of a TIR ``PrimFunc``, inlined as an extern operation.

    The buffer parameters of ``primfunc`` (in parameter order) are split by how its body uses
    them: a buffer the body reads is an input, one it writes is an output. A buffer both read
    and written is updated in place and stays an input; when every written buffer is such a
    buffer, the last one becomes the (single) output instead. ``te.create_prim_func`` on the
    result puts the body in an SBlock, the input buffers bound to ``input_tensors``' buffers.

    Parameters
    ----------
    input_tensors : list of Tensor
        One tensor per input buffer of ``primfunc``, in parameter order, of the same shapes.
    primfunc : PrimFunc
        The function whose body computes the outputs.
    **kwargs
        Passed to :func:`extern` (``name``, ``tag``, ``attrs``...).

    Returns
    -------
    Tensor or list of Tensor
        The output tensor(s), as :func:`extern` returns them.

    Examples
    --------
    >>> from tvm import te
    >>> from tvm.script import tirx as T
    >>> @T.prim_func
    ... def double(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    ...     for i in range(4):
    ...         B[i] = A[i] * T.float32(2)
    >>> X = te.placeholder((4,), name="X")
    >>> Y = te.extern_primfunc([X], double)
    >>> Y.op.output_placeholders[0].name
    'B'
    """
    if not isinstance(primfunc, PrimFunc):
        raise TypeError(f"extern_primfunc expects a tirx.PrimFunc, got {type(primfunc).__name__}")
    reads, writes = _buffers_read_written(primfunc.body)
    ordered = [p for p in primfunc.params if isinstance(p, Buffer)]
    in_buffers = [b for b in ordered if id(b) in reads]
    out_buffers = [b for b in ordered if id(b) in writes]
    if not in_buffers:
        raise ValueError("extern_primfunc: the PrimFunc reads none of its buffer parameters "
                         "(it has no input buffers)")
    if not out_buffers:
        raise ValueError("extern_primfunc: the PrimFunc writes none of its buffer parameters "
                         "(it has no output buffers)")
    in_ids = {id(b) for b in in_buffers}
    outputs = [b for b in out_buffers if id(b) not in in_ids]
    inplace = [b for b in out_buffers if id(b) in in_ids]
    if not outputs:
        last = inplace[-1]
        in_buffers = [b for b in in_buffers if b is not last]
        outputs = [last]
    input_tensors = list(input_tensors)
    if len(input_tensors) != len(in_buffers):
        raise ValueError(
            f"extern_primfunc: {len(input_tensors)} input tensors given, but the PrimFunc has "
            f"{len(in_buffers)} input buffers ({', '.join(b.name for b in in_buffers)})"
        )
    for tensor, buf in zip(input_tensors, in_buffers):
        if len(tensor.shape) != len(buf.shape) or any(
            not _same_extent(a, b) for a, b in zip(tensor.shape, buf.shape)
        ):
            raise ValueError(
                f"extern_primfunc: input tensor {tensor.name} has shape {list(tensor.shape)}, "
                f"but the matching input buffer {buf.name} has shape {list(buf.shape)}; give "
                "the tensors in the order of the PrimFunc's input buffer parameters"
            )
    return extern(
        [b.shape for b in outputs],
        input_tensors,
        lambda ins, outs: primfunc.body,
        dtype=[b.dtype for b in outputs],
        in_buffers=in_buffers,
        out_buffers=outputs,
        **kwargs,
    )


def _buffers_read_written(body):
    """``(read ids, written ids)``: the buffers that ``body`` loads / stores, counting the
    read and write regions of its SBlocks."""
    reads, writes = set(), set()

    def visit(node):
        if isinstance(node, BufferLoad):
            reads.add(id(node.buffer))
        elif isinstance(node, BufferStore):
            writes.add(id(node.buffer))
        elif isinstance(node, SBlock):
            reads.update(id(r.buffer) for r in node.reads)
            writes.update(id(r.buffer) for r in node.writes)

    post_order_visit(body, visit)
    return reads, writes


def _same_extent(a, b) -> bool:
    av, bv = getattr(a, "value", a), getattr(b, "value", b)
    if isinstance(av, int) and isinstance(bv, int):
        return av == bv
    return a is b
