"""Trainium NKI instructions as plain functions (``tvm.tirx.trn.op``, Apache TVM 0.27's
spelling): ``nki_<name>(...)`` returns the same ``Call`` as ``T.nki.<name>(...)``. They are kept
out of ``tvm.tirx`` and ``T`` (backend-only names). IR and printing only: there is no Trainium
code generator.
"""

from ...tirx.intrin_namespaces import nki as _nki

__all__ = ["nki_activation", "nki_activation_reduce", "nki_affine_select",
           "nki_identity", "nki_load", "nki_matmul", "nki_memset", "nki_reciprocal",
           "nki_scalar_tensor_scalar", "nki_scalar_tensor_tensor", "nki_store",
           "nki_tensor_copy", "nki_tensorreduce", "nki_tensorscalar",
           "nki_tensorscalar_reduce", "nki_tensortensor"]


def nki_activation(result, data, opcode, bias=0.0, scale=1.0):
    """``T.nki.activation``."""
    return _nki.activation(result, data, opcode, bias, scale)


def nki_activation_reduce(reduce_res, act_res, data, opcode, reduce_opcode, bias=0.0, scale=1.0):
    """``T.nki.activation_reduce``."""
    return _nki.activation_reduce(reduce_res, act_res, data, opcode, reduce_opcode, bias, scale)


def nki_affine_select(result, pred, true_value, false_value):
    """``T.nki.affine_select``."""
    return _nki.affine_select(result, pred, true_value, false_value)


def nki_identity(result, size):
    """``T.nki.identity``."""
    return _nki.identity(result, size)


def nki_load(res, data):
    """``T.nki.load``."""
    return _nki.load(res, data)


def nki_matmul(res, lhs, rhs, accum=True):
    """``T.nki.matmul``."""
    return _nki.matmul(res, lhs, rhs, accum)


def nki_memset(result, value):
    """``T.nki.memset``."""
    return _nki.memset(result, value)


def nki_reciprocal(result, data):
    """``T.nki.reciprocal``."""
    return _nki.reciprocal(result, data)


def nki_scalar_tensor_scalar(result, data, operand0, operand1, opcode0, opcode1, reverse0=False,
                                 reverse1=False):
    """``T.nki.scalar_tensor_scalar``."""
    return _nki.scalar_tensor_scalar(result, data, operand0, operand1, opcode0, opcode1, reverse0,
                                      reverse1)


def nki_scalar_tensor_tensor(result, data, operand0, operand1, opcode0, opcode1, reverse0=False,
                                 reverse1=False):
    """``T.nki.scalar_tensor_tensor``."""
    return _nki.scalar_tensor_tensor(result, data, operand0, operand1, opcode0, opcode1, reverse0,
                                      reverse1)


def nki_store(res, data):
    """``T.nki.store``."""
    return _nki.store(res, data)


def nki_tensor_copy(res, data):
    """``T.nki.tensor_copy``."""
    return _nki.tensor_copy(res, data)


def nki_tensorreduce(result, data, opcode, negate, *axes):
    """``T.nki.tensorreduce``."""
    return _nki.tensorreduce(result, data, opcode, negate, *axes)


def nki_tensorscalar(result, operand0, operand1, opcode, reverse=False):
    """``T.nki.tensorscalar``."""
    return _nki.tensorscalar(result, operand0, operand1, opcode, reverse)


def nki_tensorscalar_reduce(reduce_res, tensorscalar_res, operand0, operand1, opcode,
                            reduce_opcode, reverse=False):
    """``T.nki.tensorscalar_reduce``."""
    return _nki.tensorscalar_reduce(reduce_res, tensorscalar_res, operand0, operand1, opcode,
                                    reduce_opcode, reverse)


def nki_tensortensor(result, operand0, operand1, opcode):
    """``T.nki.tensortensor``."""
    return _nki.tensortensor(result, operand0, operand1, opcode)
