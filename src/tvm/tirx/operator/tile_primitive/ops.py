"""Typed tile-primitive calls: one ``TilePrimitiveCall`` subclass per op, with named operands.

``Add(dst, lhs, rhs)`` is ``TilePrimitiveCall(dst, lhs, rhs, op=Op.get("tirx.tile.add"))``
with the accessors ``.output``, ``.lhs``, ``.rhs``; ``srcs`` and ``dsts`` list the source and
destination operands. The subclasses keep the ``tirx.TilePrimitiveCall`` type key (printing,
pickling and the dispatcher treat them as plain calls); structural equality, which compares
classes, tells a typed call from the same call built as a plain ``TilePrimitiveCall``.
"""

from __future__ import annotations

from ...stmt import BufferRegion
from ...tile_primitive import TilePrimitiveCall, get_tile_op

__all__ = ["TYPED_OPS", "get_tirx_op"]


def get_tirx_op(op_name: str):
    """The op ``tirx.tile.<op_name>``."""
    return get_tile_op(op_name)


class _Operand:
    """Descriptor reading operand ``index`` of a call (``None`` past the end)."""

    def __init__(self, index: int):
        self.index = index

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.args[self.index] if self.index < len(obj.args) else None


#: class name -> (op name, operand names in stored order, number of destinations).
_TABLE = {
    "Zero": ("zero", ("output", "input"), 1),
    "Sqrt": ("sqrt", ("output", "input", "bias", "scale"), 1),
    "Exp": ("exp", ("output", "input", "bias", "scale"), 1),
    "Exp2": ("exp2", ("output", "input", "bias", "scale"), 1),
    "Log2": ("log2", ("output", "input", "bias", "scale"), 1),
    "Reciprocal": ("reciprocal", ("output", "input"), 1),
    "SiLU": ("silu", ("output", "input"), 1),
    "Cast": ("cast", ("output", "input"), 1),
    "Fill": ("fill", ("output", "input"), 1),
    "Memset": ("memset", ("output", "input"), 1),
    "Add": ("add", ("output", "lhs", "rhs"), 1),
    "Sub": ("sub", ("output", "lhs", "rhs"), 1),
    "Mul": ("mul", ("output", "lhs", "rhs"), 1),
    "FDiv": ("fdiv", ("output", "lhs", "rhs"), 1),
    "Maximum": ("maximum", ("output", "lhs", "rhs"), 1),
    "Minimum": ("minimum", ("output", "lhs", "rhs"), 1),
    "FMA": ("fma", ("output", "input", "scale", "bias"), 1),
    "Copy": ("copy", ("dst", "src"), 1),
    "CopyAsync": ("copy_async", ("dst", "src"), 1),
    "PermuteLayout": ("permute_layout", ("dst", "src"), 1),
    "Gemm": ("gemm", ("D", "A", "B", "C", "transpose_A", "transpose_B", "alpha", "beta"), 1),
    "GemmAsync": ("gemm_async", ("C", "A", "B"), 1),
    "Sum": ("sum", ("output", "input", "reduce_axes", "accum"), 1),
    "Max": ("max", ("output", "input", "reduce_axes", "accum"), 1),
    "Min": ("min", ("output", "input", "reduce_axes", "accum"), 1),
    "BinaryReduce": ("binary_reduce", ("binary_output", "reduce_output", "binary_input1",
                                       "binary_input2", "binary_op", "reduce_op",
                                       "reduce_axes"), 2),
    "UnaryReduce": ("unary_reduce", ("unary_output", "reduce_output", "unary_input", "unary_op",
                                     "reduce_op", "bias", "scale", "reduce_axes"), 2),
    "BinaryChain": ("binary_chain", ("output", "data", "operand0", "operand1", "op0", "op1",
                                     "reverse1"), 1),
    "ReduceNegate": ("reduce_negate", ("output", "input", "reduce_axes", "accum", "reduce_op"),
                     1),
    "Select": ("select", ("dst", "true_value", "false_value", "pred"), 1),
    "ComposeOp": ("compose_op", (), 0),
}

#: op name -> typed class.
TYPED_OPS: dict = {}


def _make(cls_name: str, op_name: str, operands, n_dst: int):
    ns = {
        "type_key": TilePrimitiveCall.type_key,
        "default_op": get_tile_op(op_name),
        "operand_names": operands,
        "__doc__": f"``tirx.tile.{op_name}({', '.join(operands)})`` (see :mod:`{__name__}`).",
        "__module__": __name__,
    }
    for i, name in enumerate(operands):
        ns[name] = _Operand(i)

    def dsts(self):
        return list(self.args[:n_dst])

    def srcs(self):
        return [a for a in self.args[n_dst:] if isinstance(a, BufferRegion)]

    ns["dsts"] = property(dsts, doc="The destination operands.")
    ns["srcs"] = property(srcs, doc="The source buffer-region operands.")
    return type(cls_name, (TilePrimitiveCall,), ns)


for _cls, (_op, _names, _ndst) in _TABLE.items():
    globals()[_cls] = TYPED_OPS[_op] = _make(_cls, _op, _names, _ndst)
    __all__.append(_cls)
del _cls, _op, _names, _ndst
