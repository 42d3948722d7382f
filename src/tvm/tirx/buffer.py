"""``Buffer``: a typed, shaped view of memory, and ``decl_buffer`` to make one.

A buffer's memory is its ``data`` variable, whose type annotation is
``PointerType(PrimType(dtype), scope)``; the storage scope (``"global"``, ``"shared"``,
``"local"``...) is read from that pointer type. Indexing a buffer (``buf[i, j]``) builds a
``BufferLoad``.

Structural equality compares a buffer by its fields (``data``, dtype, shape, ...), not by its
name. Where a buffer is *defined* (a PrimFunc's ``buffer_map``, ``AllocBuffer``,
``DeclBuffer``, an SBlock's ``alloc_buffers``/``match_buffers``), its data and shape variables
are definition sites.
"""

from __future__ import annotations

import numbers
import weakref

from ..ffi.node import IGNORE, Node, field
from ..ir.base import Scriptable
from ..ir.expr import PrimExpr, Range
from ..ir.type import PointerType, PrimType
from .expr import IntImm, Var

__all__ = ["NO_LAYOUT", "Buffer", "BufferType", "BufferTypeView", "NoLayout",
           "buffer_data_pointer_type", "decl_buffer", "is_buffer_var"]

#: Hooks that declare a derived view (``A.local()``, ``A.sub[...]``...). Each takes the new
#: buffer and returns the buffer to use, or None to leave it to the next hook. The TVMScript
#: builder registers one that emits the view's ``DeclBuffer`` while a function is built.
VIEW_DECLARERS: list = []

#: The buffer each derived view was made from (``B`` for ``B.local()``), by identity; the
#: printer writes a view as a method call on it. Not part of the IR: a view rebuilt by a pass
#: has no entry, and prints as a view of the buffer that first defined its data.
VIEW_PARENTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class BufferType:
    """Buffer kinds: a default buffer, or one whose size-1 dims broadcast (``auto_broadcast``)."""

    DEFAULT = 1
    AUTO_BROADCAST = 2


#: ``Buffer.rearrange``'s "no pattern given positionally" marker.
_PATTERN_UNSET = object()

#: Alignment (bytes) of buffers whose alignment is not given, as TVM's ``kAllocAlignment``.
DEFAULT_ALIGNMENT = 64


def _as_index(value, dtype="int32"):
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"buffer shapes and strides must be ints or PrimExprs, got {value!r}")
    return IntImm(dtype, int(value))


class NoLayout(Node, type_key="tirx.NoLayout"):
    """The layout of a buffer declared with an explicit ``layout=None``: *no* layout.

    Apache TVM 0.27 gives every other buffer a layout (the row-major default when none is
    written, stored here as ``Buffer.layout = None``) and prints this one as ``layout=None``.
    Such a buffer has no thread/storage structure: ``.local()`` cannot infer a shape from it.
    """

    def __init__(self):
        self.__init_fields__()

    def __repr__(self):
        return "NO_LAYOUT"


#: The one :class:`NoLayout` value.
NO_LAYOUT = NoLayout()


class BufferTypeView:
    """``Buffer.ty``: the type fields of a buffer (dtype, shape, strides, offset, alignment,
    storage scope), read through to the buffer."""

    __slots__ = ("_buffer",)

    def __init__(self, buffer):
        self._buffer = buffer

    dtype = property(lambda self: self._buffer.dtype)
    shape = property(lambda self: self._buffer.shape)
    strides = property(lambda self: self._buffer.strides)
    elem_offset = property(lambda self: self._buffer.elem_offset)
    data_alignment = property(lambda self: self._buffer.data_alignment)
    offset_factor = property(lambda self: self._buffer.offset_factor)
    allocated_addr = property(lambda self: self._buffer.allocated_addr)

    @property
    def layout(self):
        """The layout as Apache TVM 0.27 reports it: the row-major ``TileLayout`` of the shape
        for a buffer declared without one (stored as ``Buffer.layout = None``), None for a
        buffer declared with ``layout=None`` or of rank 0, else the buffer's own layout."""
        return effective_layout(self._buffer)

    @property
    def storage_scope(self) -> str:
        return self._buffer.scope()

    def __repr__(self):
        return f"BufferType({self._buffer.dtype}, shape={list(self._buffer.shape)})"


def effective_layout(buffer):
    """The layout ``buffer`` is laid out by, as Apache TVM 0.27's ``Buffer.layout`` reads:
    its own layout; the row-major ``TileLayout(S[shape])`` when it was declared without one
    (pytvm stores that default as ``Buffer.layout = None``); None when it was declared with
    ``layout=None`` (:data:`NO_LAYOUT`) or has rank 0 (0.27 gives scalars no layout)."""
    layout = buffer.layout
    if isinstance(layout, NoLayout):
        return None
    if layout is None:
        if not buffer.shape:
            return None
        from .layout.buffer_layout import default_layout  # lazy: layout imports arith/numpy

        return default_layout(buffer.shape)
    return layout


def _as_allocated_addr(value):
    """``allocated_addr=`` as stored: None, or a tuple of PrimExprs (Apache TVM 0.27 keeps an
    array: TMEM has one address, Trainium may name one per partition group)."""
    if value is None:
        return None
    if isinstance(value, (list, tuple)) or type(value).__name__ == "Array":
        if not value:
            return None
        return tuple(_as_addr_expr(v) for v in value)
    return (_as_addr_expr(value),)


def _as_addr_expr(value):
    if isinstance(value, PrimExpr):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"allocated_addr must be an int, a PrimExpr or a list of them, "
                        f"got {value!r}")
    return IntImm("int32", int(value))


def is_buffer_var(obj) -> bool:
    """Whether ``obj`` is a buffer (Apache TVM names buffers "buffer vars")."""
    return isinstance(obj, Buffer)


def buffer_data_pointer_type(buffer) -> PointerType:
    """The type of ``buffer``'s data pointer: ``PointerType(PrimType(dtype), scope)``
    (``T.handle("int4x4", "global")``), e.g. for a ``Var`` that is to become its data."""
    if not is_buffer_var(buffer):
        raise TypeError(f"buffer_data_pointer_type expects a tirx.Buffer, got "
                        f"{type(buffer).__name__}")
    return PointerType(PrimType(buffer.dtype), buffer.scope())


class Buffer(Scriptable, Node, type_key="tirx.Buffer"):
    """A multi-dimensional view of memory.

    Use :func:`decl_buffer` to make one. ``buf[i, j]`` builds a ``BufferLoad``; slices build a
    ``BufferRegion``.
    """

    data: Var
    dtype: str
    shape: tuple
    strides: tuple = ()
    elem_offset: object = None
    name: str = field("buffer", role=IGNORE)
    data_alignment: int = DEFAULT_ALIGNMENT
    offset_factor: int = 1
    buffer_type: int = BufferType.DEFAULT
    axis_separators: tuple = ()
    #: TIRx: the buffer's layout over hardware axes (a ``tvm.tirx.layout`` Layout); None is the
    #: default row-major layout, :data:`NO_LAYOUT` an explicit ``layout=None`` (no layout).
    layout: object = None
    #: TIRx: the address(es) the memory was allocated at, a tuple of PrimExprs (one TMEM
    #: address), or None. Apache TVM 0.27 keeps an array too (empty when unset).
    allocated_addr: object = None
    span: object = field(None, role=IGNORE, kw_only=True)

    def __init__(self, data, dtype, shape, strides=(), elem_offset=None, name="buffer",
                 data_alignment=DEFAULT_ALIGNMENT, offset_factor=1,
                 buffer_type=BufferType.DEFAULT, axis_separators=(), layout=None,
                 allocated_addr=None, span=None):
        self.__init_fields__(data, dtype, shape, strides, elem_offset, name, data_alignment,
                             offset_factor, buffer_type, axis_separators, layout,
                             _as_allocated_addr(allocated_addr), span=span)

    # --- queries ------------------------------------------------------------------------------
    @property
    def ty(self) -> BufferTypeView:
        """The buffer's type fields (``A.ty.dtype``, ``A.ty.shape``), as Apache TVM's
        ``Buffer.ty``; here a read-only view of this buffer's own fields."""
        return BufferTypeView(self)

    def scope(self) -> str:
        """The storage scope, from the data pointer's type (``"global"`` when unset)."""
        ty = getattr(self.data, "type_annotation", None)
        scope = getattr(ty, "storage_scope", "") if ty is not None else ""
        return scope or "global"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self):
        return f"Buffer({self.name}, {self.dtype}, shape={list(self.shape)})"

    # --- access builders ----------------------------------------------------------------------
    def __getitem__(self, indices):
        # Lazy: stmt.py imports this module's users; BufferLoad/BufferRegion live there.
        from .stmt import BufferLoad, BufferRegion

        if not isinstance(indices, tuple):
            indices = (indices,)
        if any(isinstance(i, slice) for i in indices):
            ranges = []
            for dim, idx in enumerate(indices):
                if isinstance(idx, slice):
                    if idx.step not in (None, 1):
                        raise ValueError("buffer region slices must have step 1")
                    start = _as_index(0 if idx.start is None else idx.start)
                    stop = self.shape[dim] if idx.stop is None else _as_index(idx.stop)
                    ranges.append(Range.from_min_extent(start, stop - start))
                else:
                    idx = _as_index(idx)
                    ranges.append(Range.from_min_extent(idx, IntImm(idx.dtype, 1)))
            return BufferRegion(self, ranges)
        if len(indices) < len(self.shape):
            # ``A[i]`` of a 2-D buffer is the region ``A[i, 0:m]`` (as in TVM).
            return self[tuple(indices) + (slice(None),) * (len(self.shape) - len(indices))]
        return BufferLoad(self, list(indices))

    def vload(self, begin, dtype=None, predicate=None):
        """Load the element at ``begin`` (scalar loads only; vector loads are not supported)."""
        from .stmt import BufferLoad

        if dtype is not None and dtype != self.dtype:
            raise ValueError(
                f"Buffer.vload of {self.name}: only scalar loads of the buffer dtype "
                f"{self.dtype} are supported, got dtype {dtype}"
            )
        begin = begin if isinstance(begin, (list, tuple)) else [begin]
        return BufferLoad(self, list(begin), predicate)

    def vstore(self, begin, value, predicate=None):
        """Store ``value`` at ``begin`` (scalar stores only)."""
        from .stmt import BufferStore

        begin = begin if isinstance(begin, (list, tuple)) else [begin]
        return BufferStore(self, value, list(begin), predicate)

    def elem_offset_of(self, indices, inner=True) -> PrimExpr:
        """The element offset of ``self[indices]``, the layout applied:
        ``T.buffer_offset(A[i, j])``, which ``LowerTIRx`` resolves to the flat index.
        ``inner=False`` adds the buffer's own ``elem_offset``."""
        from .op import buffer_offset  # op imports this module's users
        from .stmt import BufferLoad

        if not isinstance(indices, (list, tuple)):
            indices = [indices]
        off = buffer_offset(BufferLoad(self, list(indices)))
        return off if inner or self.elem_offset is None else self.elem_offset + off

    def access_ptr(self, access_mask, ptr_type="handle", content_lanes=1, offset=0,
                   extent=None) -> PrimExpr:
        """``tvm_access_ptr`` to the buffer's elements from ``offset`` (for external calls).

        Parameters
        ----------
        access_mask : str or int
            ``"r"``, ``"w"``, ``"rw"`` or the bit mask (1 read, 2 write).
        ptr_type : str
            Accepted for API compatibility; the call is always typed ``handle`` here.
        content_lanes : int
            Vector lanes per element: the element type becomes ``dtype x lanes`` and the offset
            and extent count vectors.
        offset : PrimExpr or int
            Elements from the start of the buffer (added to ``elem_offset``).
        extent : PrimExpr or int, optional
            Elements covered; by default from ``offset`` to the end of the buffer.

        Raises
        ------
        ValueError
            If ``access_mask`` is a string with letters other than ``r`` and ``w``.
        """
        from .op_wmma import tvm_access_ptr, type_annotation  # op modules import this one

        if isinstance(access_mask, str):
            mask = 0
            for letter in access_mask:
                if letter not in "rw":
                    raise ValueError(
                        f"Buffer.access_ptr of {self.name}: access_mask {access_mask!r} may "
                        "only contain 'r' and 'w'"
                    )
                mask |= 1 if letter == "r" else 2
            access_mask = mask
        del ptr_type
        index_dtype = self.elem_offset.dtype if self.elem_offset is not None else "int32"
        offset = _as_index(offset, index_dtype) if not isinstance(offset, PrimExpr) else offset
        if not self.shape:
            full = IntImm(index_dtype, 1)
        elif self.strides and len(self.strides) == len(self.shape):
            full = self.strides[0] * self.shape[0] - offset
        else:
            full = self.shape[0]
            for dim in self.shape[1:]:
                full = full * dim
            full = full - offset
        elem_offset = (self.elem_offset if self.elem_offset is not None
                       else IntImm(index_dtype, 0)) + offset
        elem_type = self.dtype
        if content_lanes > 1:
            elem_type = f"{self.dtype}x{content_lanes}"
            full = full // content_lanes
            elem_offset = elem_offset // content_lanes
        if extent is not None:
            full = extent
        return tvm_access_ptr(type_annotation(elem_type), self.data, elem_offset, full,
                              IntImm("int32", access_mask))

    def ptr_to(self, indices) -> PrimExpr:
        """The address of the element at ``indices`` (``T.address_of(self[indices])``), a
        pointer to the element dtype in the buffer's scope."""
        from .op import address_of  # op.py imports this module

        indices = list(indices) if isinstance(indices, (list, tuple)) else [indices]
        return address_of(self[tuple(indices)])

    # --- derived views (tvm/tirx/_buffer_view.py) ----------------------------------------------
    def view(self, *args, layout=None) -> Buffer:
        """A view of the same memory: ``A.view(8, 8)`` (same elements, new shape; one ``-1``
        is inferred), ``A.view(8, 8, layout=L)`` (new layout), or ``A.view("float32")``
        (the same bytes as another dtype: the last dimension and the layout rescale)."""
        from . import _buffer_view  # lazy: it imports the layout package

        return _buffer_view.view(self, *args, layout=layout)

    def local(self, *shape, layout=None) -> Buffer:
        """The calling thread's elements of a buffer laid out over threads, as a local buffer
        over the same registers. Without a shape it covers the physical storage span of the
        layout's storage part; with one, the shape's size must equal that span; with
        ``layout=`` the shape defaults to that layout's size."""
        from . import _buffer_view  # lazy: it imports the layout package

        return _buffer_view.local(self, *shape, layout=layout)

    def permute(self, *dims) -> Buffer:
        """The view whose dimension ``i`` is dimension ``dims[i]`` of this buffer."""
        from . import _buffer_view  # lazy: it imports the layout package

        return _buffer_view.permute(self, *dims)

    def rearrange(self, pattern=_PATTERN_UNSET, /, **sizes) -> Buffer:
        """An einops-style view of the same memory: ``A.rearrange("(o i) t -> o t i", o=2)``.

        It is ``view`` (split the left-hand groups), ``permute`` (into the right-hand order)
        and ``view`` (merge the right-hand groups), each a declared view and skipped when it
        changes nothing. Axis names are any identifiers (a size keyword may be named
        ``pattern`` when the pattern is passed positionally); integers are anonymous axes.
        Each left-hand group may leave one size unknown. A replica, a padded view or a
        reshape across a swizzle atom cannot be written this way: use ``view(layout=...)``.
        """
        from ._buffer_rearrange import rearrange  # lazy: the views import the layout package

        if pattern is _PATTERN_UNSET:
            if "pattern" not in sizes:
                raise TypeError("Buffer.rearrange() missing required argument: 'pattern'")
            pattern = sizes.pop("pattern")
        return rearrange(self, pattern, sizes)

    @property
    def sub(self):
        """``A.sub[i, 2:4, 1::2]``: a view dropping (index), narrowing (slice) or striding
        (``start::step``) dimensions; the offset moves into ``elem_offset``."""
        from . import _buffer_view  # lazy: it imports the layout package

        return _buffer_view.sub(self)

    def tile(self, *specs):
        """``A.tile(0, (4, 16))[1, :]``: split dimensions into factors and pick some."""
        from . import _buffer_view  # lazy: it imports the layout package

        return _buffer_view.tile(self, *specs)

    def chunk(self, spec):
        """``A.chunk((4, None))[2]``: split dimensions into equal chunks and take one (a
        buffer region)."""
        from . import _buffer_view  # lazy: it imports the layout package

        return _buffer_view.chunk(self, spec)

    def get_flattened_buffer(self) -> Buffer:
        """A 1-D view of the same memory (``axis_separators`` are not supported yet)."""
        if self.axis_separators:
            raise ValueError(
                f"get_flattened_buffer of {self.name}: axis_separators are not supported yet"
            )
        if self.strides:
            size = None
            for extent, stride in zip(self.shape, self.strides):
                term = (extent - 1) * stride
                size = term if size is None else size + term
            size = size + 1
        else:
            size = None
            for extent in self.shape:
                size = extent if size is None else size * extent
        if size is None:
            size = IntImm("int32", 1)
        return self.replace(shape=(size,), strides=(), axis_separators=())

    def offset_of(self, indices) -> list:
        """The flat element offset of ``indices`` (row-major unless strides are given)."""
        indices = [_as_index(i) for i in indices]
        if len(indices) != len(self.shape):
            raise ValueError(f"buffer {self.name} has {len(self.shape)} dims, got {len(indices)}")
        offset = None
        if self.strides:
            for idx, stride in zip(indices, self.strides):
                term = idx * stride
                offset = term if offset is None else offset + term
        else:
            for idx, extent in zip(indices, self.shape):
                offset = idx if offset is None else offset * extent + idx
        if offset is None:
            offset = IntImm("int32", 0)
        if self.elem_offset is not None and not (
            isinstance(self.elem_offset, IntImm) and self.elem_offset.value == 0
        ):
            offset = self.elem_offset + offset
        return [offset]


_ADDRESS_OF = "tirx.address_of"


def pointer_type_of(value):
    """The pointer type of an ``address_of`` call (``PointerType(PrimType(elem), scope)``)
    or of a call typed as a pointer (``T.reinterpret`` to a ``PointerType``), or None for any
    other value."""
    typed = getattr(value, "type_annotation", None)
    if typed is not None and getattr(typed, "element_type", None) is not None:
        return typed
    op = getattr(value, "op", None)
    if getattr(op, "name", None) != _ADDRESS_OF or not value.args:
        return None
    if not hasattr(value.args[0], "buffer"):
        return None  # the address of a variable (a tensor map): an opaque handle
    buf = value.args[0].buffer
    return PointerType(PrimType(buf.dtype), buf.scope())


def decl_buffer(shape, dtype="float32", name="buffer", data=None, strides=None,
                elem_offset=None, scope="", data_alignment=-1, offset_factor=0,
                buffer_type="", axis_separators=None, span=None, layout="default",
                allocated_addr=None) -> Buffer:
    """Declare a new buffer.

    Parameters
    ----------
    shape : tuple of int or PrimExpr
        The buffer's shape.
    dtype : str
        The element dtype (``None`` means ``"float32"``).
    name : str
        The buffer's name (also the stem of its data variable's name).
    data : Var, optional
        The data pointer variable; a new ``Var(name, PointerType(PrimType(dtype), scope))``
        when omitted.
    strides : list of PrimExpr, optional
        Strides per dimension; empty means compact row-major.
    elem_offset : PrimExpr, optional
        Offset of the first element, in elements (default 0).
    scope : str
        Storage scope of a new data variable (``""`` means global).
    data_alignment : int
        Alignment in bytes; -1 means the default (64).
    offset_factor : int
        ``elem_offset`` is a multiple of this; 0 means 1.
    buffer_type : str
        ``""`` or ``"default"``, or ``"auto_broadcast"``.
    axis_separators : list of int, optional
        Where the flattened physical axes split.
    layout : tvm.tirx.layout.Layout, "default" or None
        The TIRx layout. ``"default"`` (the default) is the row-major ``TileLayout(S[shape])``;
        None means no layout at all, as in Apache TVM 0.27.
    allocated_addr : PrimExpr, int or list of them, optional
        TIRx: the address the memory was allocated at (a TMEM address); stored as a tuple.

    Examples
    --------
    >>> from tvm import tirx
    >>> A = tirx.decl_buffer((4, 5), "float32", name="A")
    >>> A.scope(), len(A.shape)
    ('global', 2)
    """
    if dtype is None:
        dtype = "float32"
    if isinstance(shape, (int, PrimExpr)):
        shape = (shape,)
    shape = tuple(_as_index(s) for s in shape)
    if layout is None:
        layout = NO_LAYOUT
    elif not isinstance(layout, NoLayout):
        from .layout.buffer_layout import buffer_layout  # lazy: layout imports arith/numpy

        layout = buffer_layout(layout, shape)
    index_dtype = shape[0].dtype if shape and shape[0].dtype.startswith("int") else "int32"
    strides = tuple(_as_index(s) for s in (strides or ()))
    if data is None:
        data = Var(name, PointerType(PrimType(dtype), scope))
    elif not isinstance(data, Var):
        raise TypeError(f"decl_buffer data must be a tirx.Var, got {type(data).__name__}")
    if elem_offset is None:
        elem_offset = IntImm(index_dtype, 0)
    elif not isinstance(elem_offset, PrimExpr):
        elem_offset = _as_index(elem_offset, index_dtype)
    if buffer_type in ("", "default"):
        kind = BufferType.DEFAULT
    elif buffer_type == "auto_broadcast":
        kind = BufferType.AUTO_BROADCAST
    else:
        raise ValueError(
            f"decl_buffer buffer_type must be '', 'default' or 'auto_broadcast', "
            f"got {buffer_type!r}"
        )
    return Buffer(
        data, str(dtype), shape, strides, elem_offset, name,
        DEFAULT_ALIGNMENT if data_alignment in (-1, None) else int(data_alignment),
        1 if not offset_factor else int(offset_factor),
        kind, tuple(axis_separators or ()), layout=layout, allocated_addr=allocated_addr,
        span=span,
    )
