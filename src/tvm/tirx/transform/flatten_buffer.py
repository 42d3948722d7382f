"""``FlattenBuffer``: multi-dimensional buffer accesses become 1-D accesses with strides.

Every buffer used in the body (parameters' buffers, ``AllocBuffer``, ``DeclBuffer``) is
replaced by a 1-D view of the same ``data`` variable, and each access ``A[i, j]`` by
``A_flat[i * stride_0 + j * stride_1 + elem_offset]`` (row-major strides unless the buffer
declares its own). The function's ``buffer_map`` keeps the original N-D buffers, since they
describe the arguments the packed API checks; the flat views of those parameters are declared
(``DeclBuffer``) at the top of the body, as TVM does, so the result is well-formed. Requires: no ``SBlock`` left (run the s_tir
lowering first). ``axis_separators`` are not supported (a ``ValueError`` names the buffer).

Before::

    for i, j in T.grid(4, 8):
        B[i, j] = A[i, j] * T.float32(2)

After::

    A_1 = A.view(32)
    B_1 = B.view(32)
    for i, j in T.grid(4, 8):
        B_1[i * 8 + j] = A_1[i * 8 + j] * T.float32(2)
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..expr import IntImm
from ..function import PrimFunc
from ..stmt import BufferLoad, BufferStore, DeclBuffer, SBlock, SeqStmt
from ..stmt_functor import StmtExprMutator
from .common import PrimFuncPass

__all__ = ["FlattenBuffer", "flatten_buffer"]


class _Flattener(StmtExprMutator):
    def __init__(self):
        super().__init__()
        self._flat = {}  # id(buffer) -> (buffer, flat buffer)

    def flat(self, buffer):
        entry = self._flat.get(id(buffer))
        if entry is not None:
            return entry[1]
        if len(buffer.shape) == 1 and not buffer.strides and _zero(buffer.elem_offset):
            flat = buffer
        else:
            flat = buffer.get_flattened_buffer()
            index_dtype = flat.shape[0].dtype
            flat = flat.replace(elem_offset=IntImm(index_dtype, 0))
        self._flat[id(buffer)] = (buffer, flat)
        return flat

    def visit_buffer_def(self, buffer):
        return self.flat(buffer)

    def visit_buffer_use(self, buffer):
        return self.flat(buffer)

    def visit_buffer_load_(self, op: BufferLoad):
        indices = [self.visit_expr(i) for i in op.indices]
        flat = self.flat(op.buffer)
        if flat is op.buffer:
            return op if all(a is b for a, b in zip(indices, op.indices)) else BufferLoad(
                flat, indices, op.predicate)
        return BufferLoad(flat, op.buffer.offset_of(indices), op.predicate)

    def visit_buffer_store_(self, op: BufferStore):
        indices = [self.visit_expr(i) for i in op.indices]
        value = self.visit_expr(op.value)
        flat = self.flat(op.buffer)
        if flat is op.buffer:
            if value is op.value and all(a is b for a, b in zip(indices, op.indices)):
                return op
            return BufferStore(flat, value, indices, op.predicate)
        return BufferStore(flat, value, op.buffer.offset_of(indices), op.predicate)

    def visit_sblock_(self, op: SBlock):
        raise ValueError(
            f"FlattenBuffer: block '{op.name_hint}' is still present; lower SBlocks first "
            "(s_tir.transform.LowerInitBlock/ConvertBlocksToOpaque/LowerOpaqueBlock)"
        )


def _zero(expr) -> bool:
    return expr is None or (isinstance(expr, IntImm) and expr.value == 0)


def flatten_buffer(func: PrimFunc) -> PrimFunc:
    """Flatten the buffer accesses of one function (see the module docstring)."""
    for buf in func.buffer_map.values():
        if buf.axis_separators:
            raise ValueError(f"FlattenBuffer: buffer {buf.name} has axis_separators, which "
                             "are not supported yet")
    flattener = _Flattener()
    body = flattener(func.body)
    # The flat views of parameter buffers are new buffers: declare them (``DeclBuffer`` over
    # the parameter's data) in front of the body, so the result stays well-formed.
    decls = []
    for buf in func.buffer_map.values():
        entry = flattener._flat.get(id(buf))
        if entry is not None and entry[1] is not buf:
            decls.append(entry[1])
    if decls:
        body = SeqStmt.flatten([DeclBuffer(flat, flat.data) for flat in decls], body)
    return func if body is func.body else func.with_body(body)


def FlattenBuffer():
    """The pass object: ``tvm.tirx.transform.FlattenBuffer()(mod)``."""
    return PrimFuncPass(lambda f, m, c: flatten_buffer(f), PassInfo(0, "tirx.FlattenBuffer"))
