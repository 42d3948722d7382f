"""Allocation pools of a CUDA kernel: ``T.SMEMPool()`` (shared memory) and ``TMEMPool``
(Blackwell tensor memory), bump allocators that run while the kernel is parsed.

``pool = T.SMEMPool()`` allocates the dynamic shared memory buffer ``pool_buf``
(``T.alloc_buffer((0,), "uint8", scope="shared.dyn")``); each ``pool.alloc(shape, dtype)``
declares a buffer over it at the next free byte (``T.decl_buffer(..., data=pool_buf.data,
elem_offset=...)``), and ``pool.commit()`` records the high-water mark as
``T.attr({"tirx.dyn_smem_bytes": T.int64(n)})``.

``tm = TMEMPool(pool)`` keeps the TMEM address in a shared ``uint32`` taken from ``pool``;
``tm.alloc(shape)`` declares TMEM buffers at increasing columns (``allocated_addr=col``),
``tm.commit()`` emits ``tcgen05.alloc`` from one warp and ``tm.dealloc()`` the matching
``relinquish_alloc_permit`` + ``tcgen05.dealloc``.
"""

from __future__ import annotations

import functools
import operator

from tvm.runtime.data_type import DataType
from tvm.script import tirx as T
from tvm.script.ir_builder import tirx as B
from tvm.script.parser.tirx.entry import meta_class
from tvm.tirx import stmt as _stmt
from tvm.tirx.expr import IntImm
from tvm.tirx.layout import (
    S,
    SwizzleMode,
    TCol,
    TileLayout,
    TLane,
    mma_shared_layout,
    tmem_datapath_layout,
    tmem_mma_operand_layout,
)

__all__ = ["SMEMPool", "TMEMPool"]

_UNSET = object()

#: Row width in bytes of one swizzle atom (8 rows tall).
_ATOM_BYTES = {SwizzleMode.SWIZZLE_32B_ATOM: 32, SwizzleMode.SWIZZLE_64B_ATOM: 64,
               SwizzleMode.SWIZZLE_128B_ATOM: 128}
_ATOM_ROWS = 8


def _elements(shape) -> int:
    return functools.reduce(operator.mul, [int(s) for s in shape], 1)


def _fitting_swizzle(row_bytes) -> str:
    """The widest swizzle whose atom row divides ``row_bytes``."""
    for atom, name in ((128, "SWIZZLE_128B_ATOM"), (64, "SWIZZLE_64B_ATOM"),
                       (32, "SWIZZLE_32B_ATOM")):
        if row_bytes >= atom and row_bytes % atom == 0:
            return name
    return "SWIZZLE_NONE"


def _validate_mma_alloc_shape(shape, dtype, swizzle_mode) -> None:
    """Check that an MMA operand of ``shape``/``dtype`` can be laid out with
    ``swizzle_mode``: rank >= 2, rows (``shape[-1] * bits``) a multiple of the atom width,
    ``shape[-2]`` a multiple of 8. Symbolic dims are not checked. ValueError otherwise,
    naming a swizzle that fits and the width that would."""
    mode = SwizzleMode(int(swizzle_mode))
    if mode == SwizzleMode.SWIZZLE_NONE:
        return
    if len(shape) < 2:
        raise ValueError(f"alloc_tcgen05_mma_AB shape={tuple(shape)} has fewer than 2 "
                         "dimensions; a swizzled MMA layout tiles the last two dims (rows, "
                         "cols). Use swizzle_mode='none' for a 1-D allocation.")
    rows, cols = shape[-2], shape[-1]
    if not (isinstance(rows, int) and isinstance(cols, int)):
        return
    bits = DataType(dtype).bits
    atom = _ATOM_BYTES[mode]
    row_bits = cols * bits
    if row_bits < atom * 8 or row_bits % (atom * 8):
        row_bytes = row_bits // 8 if row_bits % 8 == 0 else row_bits / 8
        need = -(-atom * 8 // bits)
        raise ValueError(
            f"alloc_tcgen05_mma_AB shape={tuple(shape)} with dtype={dtype!r} produces "
            f"{row_bytes}B rows, which do not fit the {atom}B swizzle atom of {mode.name}. "
            f"Use swizzle_mode=SwizzleMode.{_fitting_swizzle(int(row_bits // 8))}, or widen "
            f"shape[-1] to a multiple of {need} elements (>= {atom}B of {dtype}).")
    if rows < _ATOM_ROWS or rows % _ATOM_ROWS:
        raise ValueError(
            f"alloc_tcgen05_mma_AB shape={tuple(shape)} has shape[-2]={rows}, but the "
            f"{mode.name} atom needs shape[-2] to be a positive multiple of {_ATOM_ROWS}. "
            f"Use swizzle_mode='none', or widen shape[-2] to a multiple of {_ATOM_ROWS}.")


@meta_class
class SMEMPool:
    """``T.SMEMPool(ptr=None)``: a bump allocator over dynamic shared memory.

    Without ``ptr`` the pool allocates its own ``shared.dyn`` buffer (field ``buf``) and
    ``commit()`` records its size; with ``ptr`` (a data variable) the caller owns the memory
    and ``commit()`` does nothing.
    """

    def __init__(self, ptr=_UNSET):
        if ptr is _UNSET or ptr is None:
            self.buf = B.alloc_buffer([0], "uint8", scope="shared.dyn")
            self.ptr = self.buf.data
            self._owns_buffer = True
        else:
            self.ptr = ptr
            self._owns_buffer = False
        self.offset = 0
        self.max_offset = 0

    def alloc(self, shape, dtype="float32", strides=None, scope="shared.dyn", align=0,
              layout="default"):
        """Declare a ``shape``/``dtype`` buffer at the next free byte (rounded up to
        ``align`` bytes when ``align > 0``)."""
        if isinstance(shape, int):
            shape = (shape,)
        if align > 0:
            self.offset = (self.offset + align - 1) // align * align
        bits = DataType(dtype).bits
        if (self.offset * 8) % bits:
            raise ValueError(f"SMEMPool.alloc: byte offset {self.offset} is not a whole number "
                             f"of {dtype} elements; pass align=")
        buf = B.decl_buffer(shape, dtype, data=self.ptr, strides=strides,
                            elem_offset=self.offset * 8 // bits, scope=scope,
                            align=align if align > 0 else -1, layout=layout)
        # Bump in bits, rounded up to bytes, so sub-byte dtypes still advance.
        self.offset += (_elements(shape) * bits + 7) // 8
        if self._owns_buffer:
            self.max_offset = max(self.max_offset, self.offset)
        return buf

    def alloc_tcgen05_mma_AB(self, shape, dtype="float16", swizzle_mode="auto", align=1024):
        """Declare an MMA A/B operand tile with the swizzled shared layout of
        ``mma_shared_layout`` (``swizzle_mode``: ``"auto"`` = 128B, ``"none"`` or a
        ``SwizzleMode``)."""
        if isinstance(swizzle_mode, str):
            if swizzle_mode == "auto":
                swizzle_mode = SwizzleMode.SWIZZLE_128B_ATOM
            elif swizzle_mode == "none":
                swizzle_mode = SwizzleMode.SWIZZLE_NONE
            else:
                raise ValueError(f"SMEMPool.alloc_tcgen05_mma_AB: swizzle_mode must be 'auto', "
                                 f"'none' or a SwizzleMode, got {swizzle_mode!r}")
        shape = tuple(int(s) for s in shape)
        _validate_mma_alloc_shape(shape, dtype, swizzle_mode)
        layout = mma_shared_layout(dtype, swizzle_mode, shape)
        return self.alloc(shape, dtype, align=align, layout=layout)

    def move_base_to(self, offset):
        """Continue allocating at byte ``offset`` (reusing or skipping memory)."""
        self.offset = int(offset)
        if self._owns_buffer:
            self.max_offset = max(self.max_offset, self.offset)

    def commit(self, size=None):
        """Record the pool size (``size`` or the high-water mark) as
        ``T.attr({"tirx.dyn_smem_bytes": T.int64(n)})``; call it after the allocations."""
        if not self._owns_buffer:
            return
        total = self.max_offset if size is None else int(size)
        if total < self.max_offset:
            raise ValueError(f"SMEMPool.commit: size {total} is smaller than the pool's "
                             f"high-water mark {self.max_offset}")
        B.add_to_parent(_stmt.AttrStmt(IntImm("int32", 0), "tirx.dyn_smem_bytes",
                                       IntImm("int64", total), _stmt.Evaluate(IntImm("int32",
                                                                                       0))))


def _default_tmem_layout(rows, cols):
    if rows == 128:
        return tmem_datapath_layout("D", rows, cols)
    return TileLayout(S[(rows, cols):(1 @ TLane, 1 @ TCol)])


@meta_class
class TMEMPool:
    """``TMEMPool(pool, total_cols=512, *, cta_group=1, alloc_warp=0, dealloc_warp=None,
    tmem_addr=None, sync_after_alloc=True)``: a bump allocator over TMEM columns.

    The TMEM address lives in a ``uint32`` of ``pool`` (field ``_addr_buf``) unless
    ``tmem_addr`` is given.
    """

    def __init__(self, pool, total_cols=512, *, cta_group=1, alloc_warp=0, dealloc_warp=None,
                 tmem_addr=None, sync_after_alloc=True):
        if total_cols not in (32, 64, 128, 256, 512):
            raise ValueError(f"TMEMPool: total_cols must be a power of 2 in [32, 512], got "
                             f"{total_cols}")
        self.pool = pool
        self.total_cols = total_cols
        self.cta_group = cta_group
        self.alloc_warp = alloc_warp
        self.dealloc_warp = alloc_warp if dealloc_warp is None else dealloc_warp
        self.sync_after_alloc = sync_after_alloc
        self.offset = 0
        self.max_offset = 0
        self._committed = False
        self._deallocated = False
        self._addr_buf = pool.alloc([1], "uint32", align=4) if tmem_addr is None else tmem_addr

    @property
    def addr(self):
        """The TMEM address (the pool's ``uint32`` element)."""
        try:
            return self._addr_buf[0]
        except TypeError:
            return self._addr_buf

    def _columns(self, shape, dtype, cols, layout):
        if cols is not None:
            return int(cols)
        bits = DataType(dtype).bits
        if layout is not None:
            tcol_bits = int(layout.span("TCol")) * bits
            if tcol_bits % 32:
                raise ValueError(f"TMEMPool.alloc: the layout's TCol span is {tcol_bits} bits, "
                                 "not whole 32-bit columns")
            return tcol_bits // 32
        if len(shape) != 2:
            raise ValueError("TMEMPool.alloc: a buffer that is not 2-D needs cols= or layout=")
        total = _elements(shape) * bits
        rows = int(shape[0])
        if total % (32 * rows):
            raise ValueError(f"TMEMPool.alloc: cannot infer the columns of shape={shape}, "
                             f"dtype={dtype!r}; pass cols=")
        return total // (32 * rows)

    def alloc(self, shape, dtype="float32", *, layout=None, cols=None):
        """Declare a TMEM buffer at the next free column (``allocated_addr=col``); the
        layout defaults to datapath D (128 rows) or rows on lanes, columns on columns."""
        shape = tuple(int(s) for s in shape)
        columns = self._columns(shape, dtype, cols, layout)
        start = self.offset
        if start + columns > self.total_cols:
            raise ValueError(f"TMEMPool.alloc: TMEM overflow, columns {start}..{start + columns}"
                             f" exceed {self.total_cols}")
        if layout is None:
            if len(shape) != 2:
                raise ValueError("TMEMPool.alloc: a buffer that is not 2-D needs layout=")
            layout = _default_tmem_layout(*shape)
        buf = B.decl_buffer(shape, dtype, scope="tmem", allocated_addr=start, layout=layout)
        self.offset = start + columns
        self.max_offset = max(self.max_offset, self.offset)
        return buf

    def alloc_sf(self, shape, dtype, *, sf_per_mma, sf_reuse=1):
        """Block-scaled scale-factor buffers are not supported yet: their TMEM layout
        (``sf_tmem_layout``) belongs to the tcgen05 block-scaled gemm, not implemented."""
        raise ValueError("TMEMPool.alloc_sf is not supported yet: the block-scaled tcgen05 "
                         "scale-factor layout is not implemented")

    def alloc_tcgen05_mma_A(self, shape, dtype="bfloat16", *, M, cta_group, ws=False,
                            sparse=False, cols=None):
        """A TMEM A operand laid out by ``tmem_mma_operand_layout("A", ...)`` (``M`` is the
        instruction's M)."""
        layout = tmem_mma_operand_layout("A", shape, dtype, M=M, cta_group=cta_group, ws=ws,
                                         sparse=sparse)
        return self.alloc(shape, dtype, layout=layout, cols=cols)

    def alloc_tcgen05_mma_D(self, shape, dtype="float32", *, M, cta_group, ws=False,
                            sparse=False, group=None, cols=None):
        """A TMEM accumulator laid out by ``tmem_mma_operand_layout("D", ...)``."""
        layout = tmem_mma_operand_layout("D", shape, dtype, M=M, cta_group=cta_group, ws=ws,
                                         sparse=sparse, group=group)
        return self.alloc(shape, dtype, layout=layout, cols=cols)

    alloc_tcgen05_mma_C = alloc_tcgen05_mma_D

    def move_base_to(self, col):
        """Continue allocating at column ``col``."""
        self.offset = int(col)
        self.max_offset = max(self.max_offset, self.offset)

    def _on_warp(self, warp, emit):
        var = B.warp_id()
        with B.If(var == warp), B.Then():
            emit()

    def commit(self):
        """Emit ``tcgen05.alloc`` of ``total_cols`` columns from warp ``alloc_warp`` (then a
        ``warp_sync`` unless ``sync_after_alloc=False``)."""
        if self._committed:
            raise ValueError("TMEMPool.commit() can only be called once")

        def emit():
            B.evaluate(T.ptx[f"tcgen05.alloc.cta_group::{self.cta_group}.sync.aligned."
                             "shared::cta.b32"](T.address_of(self.addr),
                                                T.uint32(self.total_cols)))
            if self.sync_after_alloc:
                B.evaluate(T.cuda.warp_sync())

        self._on_warp(self.alloc_warp, emit)
        self._committed = True

    def dealloc(self):
        """Emit ``relinquish_alloc_permit`` and ``tcgen05.dealloc`` from ``dealloc_warp``."""
        if not self._committed:
            raise ValueError("TMEMPool.dealloc() called before commit()")
        if self._deallocated:
            raise ValueError("TMEMPool.dealloc() can only be called once")
        self._deallocated = True

        def emit():
            group = f"cta_group::{self.cta_group}"
            B.evaluate(T.ptx[f"tcgen05.relinquish_alloc_permit.{group}.sync.aligned"]())
            B.evaluate(T.ptx[f"tcgen05.dealloc.{group}.sync.aligned.b32"](
                self.addr, T.uint32(self.total_cols)))

        self._on_warp(self.dealloc_warp, emit)
