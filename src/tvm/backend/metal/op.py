"""Metal builtins as plain functions (``tvm.tirx.metal.op``, Apache TVM 0.27's spelling).

Each returns the same ``Call`` as its ``T.metal.*`` form: ``make_filled_simdgroup_matrix(d,
index, value, col=8, row=8)``, ``simdgroup_load/simdgroup_store(d, index, ptr, stride, col=8,
row=8, transpose_matrix=False)``, ``simdgroup_multiply_accumulate(d, index_d, a, index_a, b,
index_b, c, index_c)``. They are kept out of ``tvm.tirx`` and ``T`` (backend-only names). IR
and printing only: there is no Metal code generator.
"""

from ...tirx.intrin_namespaces import metal as _metal

__all__ = ["make_filled_simdgroup_matrix", "simdgroup_load", "simdgroup_multiply_accumulate",
           "simdgroup_store"]


def make_filled_simdgroup_matrix(d, index, value, col=8, row=8):
    """``T.metal.make_filled_simdgroup_matrix``: matrix ``index`` of ``d`` filled with
    ``value``."""
    return _metal.make_filled_simdgroup_matrix(d, index, value, col, row)


def simdgroup_load(d, index, ptr, stride, col=8, row=8, transpose_matrix=False):
    """``T.metal.simdgroup_load``: load matrix ``index`` of ``d`` from ``ptr``."""
    return _metal.simdgroup_load(d, index, ptr, stride, col, row, transpose_matrix)


def simdgroup_store(d, index, ptr, stride, col=8, row=8, transpose_matrix=False):
    """``T.metal.simdgroup_store``: store matrix ``index`` of ``d`` to ``ptr``."""
    return _metal.simdgroup_store(d, index, ptr, stride, col, row, transpose_matrix)


def simdgroup_multiply_accumulate(d, index_d, a, index_a, b, index_b, c, index_c):
    """``T.metal.simdgroup_multiply_accumulate``: ``d[index_d] = a[index_a] * b[index_b] +
    c[index_c]``."""
    return _metal.simdgroup_multiply_accumulate(d, index_d, a, index_a, b, index_b, c, index_c)
