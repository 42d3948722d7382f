"""``TrnNaiveAllocator``: give every on-chip buffer of a Trainium kernel an address.

Each ``T.alloc_buffer`` in scope ``trn.sbuf`` (or ``shared*``) without ``allocated_addr``
gets one, bump-allocated in program order from the end of the highest buffer that already
has an address (0 when none has). Sizes are per partition for SBUF: the elements of the
buffer divided by its partition extent (the ``P`` axis size of its layout, or its first
dimension without a layout) times the element size; shared buffers count all their bytes.
Buffers of other scopes are left alone, and nothing is ever freed or reused.
"""

from __future__ import annotations

import functools
import operator

from ....ir.transform import PassInfo
from ....runtime.data_type import dtype_info
from ....tirx.expr import IntImm
from ....tirx.stmt import AllocBuffer
from ....tirx.stmt_functor import post_order_visit
from ....tirx.transform.common import BufferReplacer, PrimFuncPass

__all__ = ["TrnNaiveAllocator", "sbuf_bytes_per_partition"]


def _const(value, buffer, what):
    if isinstance(value, IntImm):
        return value.value
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(f"TrnNaiveAllocator: buffer {buffer.name} has a non-constant {what} "
                     f"({value}); cannot place it")


def sbuf_bytes_per_partition(buffer):
    """The bytes ``buffer`` takes in each partition (SBUF) or in all (shared scopes); None
    for a scope this allocator does not place."""
    scope = buffer.scope()
    shape = [_const(s, buffer, "shape") for s in buffer.shape]
    count = functools.reduce(operator.mul, shape, 1)
    if scope == "trn.sbuf":
        if buffer.layout is None:
            partitions = shape[0] if shape else 1
        else:
            partitions = _const(buffer.layout.size("P"), buffer, "partition extent")
        count //= max(partitions, 1)
    elif not scope.startswith("shared"):
        return None
    info = dtype_info(buffer.dtype)
    return count * max(info.bits * info.lanes // 8, 1)


def _address(buffer):
    addr = buffer.allocated_addr
    if isinstance(addr, (list, tuple)):
        addr = addr[-1] if addr else None
    return None if addr is None else _const(addr, buffer, "allocated_addr")


def _allocate(func):
    allocs = []  # in program order (an AllocBuffer has no body: post order is program order)
    post_order_visit(func.body, lambda n: allocs.append(n) if isinstance(n, AllocBuffer)
                     else None)
    start = 0
    for node in allocs:
        size, addr = sbuf_bytes_per_partition(node.buffer), _address(node.buffer)
        if size is not None and addr is not None:
            start = max(start, addr + size)
    replace = {}
    for node in allocs:
        buf = node.buffer
        size = sbuf_bytes_per_partition(buf)
        if size is None or _address(buf) is not None:
            continue
        replace[buf] = buf.replace(allocated_addr=(IntImm("int32", start),))
        start += size
    if not replace:
        return func
    return func.with_body(BufferReplacer(buffer_map=replace)(func.body))


class TrnNaiveAllocator(PrimFuncPass):
    """``TrnNaiveAllocator()``: the pass assigning ``allocated_addr`` to the unplaced SBUF /
    shared buffers of every PrimFunc (see the module doc)."""

    def __init__(self):
        super().__init__(lambda func, mod, ctx: _allocate(func),
                         PassInfo(0, "TrnNaiveAllocator"))
