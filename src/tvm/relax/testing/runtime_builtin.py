"""Codes of the VM shape builtins ``vm.builtin.match_shape`` and ``vm.builtin.make_shape``.

Each dimension passed to ``match_shape`` is preceded by a :class:`MatchShapeCode`; each one
passed to ``make_shape`` (and ``make_prim_value``) by a :class:`MakeShapeCode` (the numbering
of Apache TVM 0.27, which ``tvm.relax.vm.builtins`` follows).
"""

from enum import IntEnum

__all__ = ["MakeShapeCode", "MatchShapeCode"]


class MatchShapeCode(IntEnum):
    """What ``match_shape`` does with one dimension and the value after the code."""

    #: the dimension must equal the immediate value
    ASSERT_EQUAL_TO_IMM = 0
    #: store the dimension into the shape heap at the given slot
    STORE_TO_HEAP = 1
    #: no check (the value is ignored)
    NO_OP = 2
    #: the dimension must equal the shape heap's value at the given slot
    ASSERT_EQUAL_TO_LOAD = 3


class MakeShapeCode(IntEnum):
    """Where ``make_shape`` takes one dimension from."""

    #: the immediate value
    USE_IMM = 0
    #: the shape heap's value at the given slot
    LOAD_SHAPE = 1
