"""Tensor expressions: ``placeholder``, ``compute`` and the ``Tensor``/operation nodes.

A :class:`Tensor` is one output of an operation: a :class:`PlaceholderOp` (an input) or a
:class:`ComputeOp` (``out[i, j] = f(i, j)``). Indexing a tensor (``A[i, j]``) builds a
:class:`ProducerLoad` expression, which :func:`tvm.te.create_prim_func` turns into a buffer
load.
"""

from __future__ import annotations

import inspect
import numbers
from types import FunctionType
from typing import Any

from ..ffi.node import DEF, Node, field, walk
from ..ir.base import Scriptable
from ..ir.expr import PrimExpr, Range
from ..tirx.expr import FloatImm, IntImm, PrimExprWithOp, StringImm, Var
from ..tirx.generic import const
from ..tirx.stmt import IterVar

__all__ = [
    "ComputeOp",
    "ExternOp",
    "Operation",
    "PlaceholderOp",
    "ProducerLoad",
    "Tensor",
    "TensorSlice",
    "compute",
    "placeholder",
    "size_var",
    "var",
]


def _shape(shape) -> tuple:
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    out = []
    for dim in shape:
        if isinstance(dim, PrimExpr):
            out.append(dim)
        elif isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
            out.append(IntImm("int32", int(dim)))
        else:
            raise TypeError(f"a tensor shape needs ints or PrimExprs, got {dim!r}")
    return tuple(out)


class Operation(Scriptable, Node, type_key="te.Operation"):
    """Base of tensor operations."""

    def output(self, index: int) -> Tensor:
        """The ``index``-th output tensor."""
        if not 0 <= index < self.num_outputs:
            raise IndexError(f"{self.name} has {self.num_outputs} outputs, asked for {index}")
        return Tensor(self, index)

    @property
    def num_outputs(self) -> int:
        """How many output tensors the operation produces."""
        return 1

    @property
    def input_tensors(self) -> list:
        """The tensors the operation reads (none for a placeholder)."""
        return []


class PlaceholderOp(Operation, type_key="te.PlaceholderOp"):
    """An input tensor."""

    name: str
    tag: str
    attrs: object
    shape: tuple
    dtype: str


class ComputeOp(Operation, type_key="te.ComputeOp"):
    """``out[axis] = body`` for every point of ``axis`` (with optional reduction axes)."""

    name: str
    tag: str
    attrs: object
    axis: tuple = field(role=DEF)
    body: tuple

    @property
    def num_outputs(self) -> int:
        """How many outputs the compute produces (one per body expression)."""
        return len(self.body)

    @property
    def reduce_axis(self) -> tuple:
        """The reduction axes of the body (``te.reduce_axis``), empty if none."""
        first = self.body[0]
        return tuple(first.axis) if type(first).__name__ == "Reduce" else ()

    @property
    def input_tensors(self) -> list:
        """The tensors the body reads directly, in order of first read (as in TVM)."""
        return _tensors_read(self.body)

    @property
    def shape(self) -> tuple:
        """The output shape: the extents of the data-parallel axes."""
        return tuple(iv.dom.extent for iv in self.axis)


class ExternOp(Operation, type_key="te.ExternOp"):
    """Outputs computed by a hand-written statement ``body`` over placeholder buffers.

    ``body`` reads ``input_placeholders`` (one buffer per input tensor) and writes
    ``output_placeholders`` (one per output).
    """

    name: str
    tag: str
    attrs: object
    inputs: tuple
    input_placeholders: tuple
    output_placeholders: tuple
    body: object

    @property
    def num_outputs(self) -> int:
        """How many output tensors the extern call writes."""
        return len(self.output_placeholders)

    @property
    def input_tensors(self) -> list:
        """The tensors given to the extern call as inputs."""
        return list(self.inputs)


def _same_tensor(a, b) -> bool:
    return a.op is b.op and a.value_index == b.value_index


# Expression leaves that hold no tensor read: ``_tensors_read`` skips them without a look.
_LEAVES = frozenset((IntImm, FloatImm, StringImm, Var))


def _tensors_read(roots) -> list:
    """The tensors that ``ProducerLoad`` nodes under ``roots`` read, first read first.

    Pre-order, left to right. A load's ``producer`` is not entered (its own reads are not
    this computation's inputs) and a node seen before is not walked again (shared
    subexpressions of a DAG), which keeps the walk linear in the body's size.
    """
    found: list = []
    keys: set = set()

    def below(node):
        if type(node) in _LEAVES:
            return ()
        if isinstance(node, ProducerLoad):
            tensor = node.producer
            key = (id(tensor.op), tensor.value_index)
            if key not in keys:
                keys.add(key)
                found.append(tensor)
            return node.indices
        return None

    for _ in walk(list(roots), children=below, unique=True):
        pass
    return found


class Tensor(Scriptable, Node, type_key="te.Tensor"):
    """An output of an operation; ``A[i, j]`` reads it."""

    op: Operation
    value_index: int = 0

    @property
    def shape(self) -> tuple:
        """The tensor's shape, a tuple of ``PrimExpr`` extents."""
        if isinstance(self.op, ExternOp):
            return self.op.output_placeholders[self.value_index].shape
        return self.op.shape

    @property
    def dtype(self) -> str:
        """The element type (``"float32"``, ...)."""
        if isinstance(self.op, ComputeOp):
            return self.op.body[self.value_index].dtype
        if isinstance(self.op, ExternOp):
            return self.op.output_placeholders[self.value_index].dtype
        return self.op.dtype

    @property
    def name(self) -> str:
        """The name of the producing operation (``name.v1`` for its second output)."""
        op = self.op
        return op.name if op.num_outputs == 1 else f"{op.name}.v{self.value_index}"

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) < self.ndim:
            return TensorSlice(self, indices)
        if len(indices) != self.ndim:
            raise ValueError(
                f"tensor {self.name} has {self.ndim} dimensions, indexed with {len(indices)}"
            )
        return ProducerLoad(self, indices)

    def __call__(self, *indices):
        """``A(i, j)`` is ``A[i, j]``."""
        return self[tuple(indices)]

    # Tensors are compared by operation identity (as TVM's same_as), so they work as dict keys.
    def __hash__(self):
        return hash((id(self.op), self.value_index))

    def __eq__(self, other):
        return isinstance(other, Tensor) and _same_tensor(self, other)

    def __repr__(self):
        return f"Tensor(shape={list(self.shape)}, op.name={self.op.name})"


class TensorSlice:
    """A partly indexed tensor: ``A[i]`` of a 2-D tensor; ``A[i][j]`` completes the access."""

    __slots__ = ("indices", "tensor")

    def __init__(self, tensor, indices):
        self.tensor = tensor
        self.indices = tuple(indices)

    def __getitem__(self, indices):
        if not isinstance(indices, tuple):
            indices = (indices,)
        return self.tensor[self.indices + indices]

    @property
    def dtype(self):
        """The element type of the sliced tensor."""
        return self.tensor.dtype


class ProducerLoad(PrimExprWithOp, type_key="tirx.ProducerLoad"):
    """``producer[indices]``: a read of a te tensor (lowered to a ``BufferLoad``)."""

    producer: Tensor
    indices: tuple

    def __init__(self, producer, indices, span=None):
        idx = []
        for i in indices:
            if isinstance(i, IterVar):
                i = i.var
            elif isinstance(i, int) and not isinstance(i, bool):
                i = IntImm("int32", i)
            if not isinstance(i, PrimExpr):
                raise TypeError(f"tensor indices must be PrimExprs or ints, got {i!r}")
            idx.append(i)
        self.__init_fields__(producer, tuple(idx), span=span, dtype=producer.dtype)


def placeholder(shape, dtype=None, name="placeholder") -> Tensor:
    """An input tensor of ``shape`` and ``dtype`` (default ``float32``).

    Examples
    --------
    >>> from tvm import te
    >>> A = te.placeholder((3, 4), name="A")
    >>> A.dtype, len(A.shape)
    ('float32', 2)
    """
    op = PlaceholderOp(name, "", {}, _shape(shape), dtype or "float32")
    return Tensor(op, 0)


def _param_names(fcompute):
    """``(names of the parameters before any *args, whether there is *args)``."""
    code = getattr(fcompute, "__code__", None)
    if (
        type(fcompute) is FunctionType
        and not code.co_kwonlyargcount
        and not code.co_flags & inspect.CO_VARKEYWORDS
        and "__wrapped__" not in fcompute.__dict__
        and "__signature__" not in fcompute.__dict__
    ):
        # Why: te.compute runs once per kernel and inspect.signature was a third of its
        # time. A plain function without keyword parameters or signature overrides lists its
        # positional parameters first in co_varnames, as inspect.signature would.
        return list(code.co_varnames[: code.co_argcount]), bool(code.co_flags & inspect.CO_VARARGS)
    return _param_names_by_signature(fcompute)


def _param_names_by_signature(fcompute):
    """:func:`_param_names` through ``inspect.signature`` (any callable)."""
    names = []
    for p in inspect.signature(fcompute).parameters.values():
        if p.kind == inspect.Parameter.VAR_POSITIONAL:
            return names, True
        names.append(p.name)
    return names, False


def _arg_names(fcompute, ndim, varargs_names):
    names, varargs = _param_names(fcompute)
    if varargs:
        extra = ndim - len(names)
        if varargs_names is not None:
            names.extend(list(varargs_names)[:extra])
        else:
            start = len(names)  # fixed before extending (a generator would see it grow)
            names.extend(f"i{start + k}" for k in range(extra))
    if len(names) != ndim:
        raise ValueError(
            f"compute: fcompute takes {len(names)} arguments, but the shape has {ndim} "
            "dimensions"
        )
    return names


def compute(shape, fcompute, name="compute", tag="", attrs=None, varargs_names=None) -> Tensor:
    """A tensor whose element at ``indices`` is ``fcompute(*indices)``.

    The axis variables are named after ``fcompute``'s parameters. A body that is a reduction
    (``te.sum(..., axis=k)``) makes a reduction; a tuple of bodies makes several outputs, and
    a list of tensors is returned (as in TVM).

    Examples
    --------
    >>> from tvm import te
    >>> A = te.placeholder((3,), name="A")
    >>> B = te.compute((3,), lambda i: A[i] + 1.0, name="B")
    >>> B.op.axis[0].var.name
    'i'
    """
    shape = _shape(shape)
    names = _arg_names(fcompute, len(shape), varargs_names)
    axis = tuple(
        IterVar(Range.from_min_extent(IntImm(dim.dtype, 0), dim), Var(n, dim.dtype),
                IterVar.DataPar)
        for n, dim in zip(names, shape)
    )
    body = fcompute(*[iv.var for iv in axis])
    bodies = tuple(body) if isinstance(body, (list, tuple)) else (body,)
    converted = []
    for b in bodies:
        if isinstance(b, (int, float)) and not isinstance(b, bool):
            b = const(b)
        if not isinstance(b, PrimExpr):
            raise TypeError(f"compute {name}: fcompute must return PrimExprs, got {type(b)}")
        converted.append(b)
    reduces = [type(b).__name__ == "Reduce" for b in converted]
    if any(reduces) and not all(reduces):
        raise ValueError(f"compute {name}: reductions cannot be mixed with other bodies")
    op = ComputeOp(name, tag, dict(attrs or {}), axis, tuple(converted))
    if len(converted) > 1:
        return [Tensor(op, i) for i in range(len(converted))]
    return Tensor(op, 0)


def var(name: str = "tindex", dtype: str = "int32", span: Any = None) -> Var:
    """A new symbolic variable."""
    return Var(name, dtype, span=span)


def size_var(name: str = "size", dtype: str = "int32", span: Any = None) -> Var:
    """A new non-negative symbolic variable (a tensor extent)."""
    from ..tirx.expr import SizeVar

    return SizeVar(name, dtype, span=span)
