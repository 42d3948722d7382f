"""IR-builder calls of TIRx kernels (spec D.3): device entry, scope ids, hints, memory.

* ``T.device_entry()``: the attribute ``tirx.device_entry``; the statements after it (to the
  end of the enclosing body) form the device region.
* scope ids: ``bx = T.cta_id([1])``, ``tx = T.thread_id([256])``, ``T.warp_id([4])``, ... each
  emits a ``ScopeIdDefStmt`` and returns its Var (a list of Vars for several extents);
  ``T.scope_id(ext, parent, cur)`` is the generic form.
* ``T.hint(message="", **attrs)``: an ``AttrStmt`` ``tirx_hint`` about a dict of the message
  and attributes (a statement lasting to the end of the body, or ``with T.hint(...):``).
* ``T.static_assert(cond, msg)``, ``T.meta_var(x)``, ``T.elected()`` (removed; raises).
* memory: ``T.smem``/``T.tmem``/``T.alloc_shared``/``T.alloc_local`` and the one-element
  scalars ``T.alloc_scalar``/``T.shared_scalar``/``T.local_scalar``/``T.decl_scalar``;
* register fragments: ``T.wg_reg_tile``, ``T.alloc_tcgen05_ldst_frag``, ``T.alloc_cast_frag``.
"""

from __future__ import annotations

from tvm.ir.container import Map
from tvm.ir.expr import PrimExpr
from tvm.tirx import stmt as _stmt
from tvm.tirx.exec_scope import SCOPE_ID_FUNCTIONS, ScopeIdDef
from tvm.tirx.expr import IntImm, Var
from tvm.tirx.op import address_of  # T.address_of is the tirx builtin
from tvm.tirx.type import tensormap_pointer_type

from ..base import IRBuilder
from .frame import AttrFrame, PrimFuncFrame, add_to_parent

__all__ = [
    "DEVICE_ENTRY_KEY",
    "HINT_KEY",
    "TensorMap",
    "address_of",
    "alloc_cast_frag",
    "alloc_scalar",
    "alloc_tcgen05_ldst_frag",
    "cluster_id",
    "cta_id",
    "cta_id_in_cluster",
    "cta_id_in_pair",
    "decl_scalar",
    "device_entry",
    "elected",
    "hint",
    "lane_id",
    "local_scalar",
    "meta_var",
    "scope_id",
    "shared_scalar",
    "smem",
    "static_assert",
    "thread_id",
    "thread_id_in_wg",
    "tmem",
    "warp_id",
    "warp_id_in_wg",
    "warpgroup_id",
    "wg_reg_tile",
]

#: The attribute key of ``T.device_entry()``.
DEVICE_ENTRY_KEY = "tirx.device_entry"
#: The attribute key of ``T.hint(...)``.
HINT_KEY = "tirx_hint"


def device_entry() -> AttrFrame:
    """``T.device_entry()``: the statements after it (to the end of the enclosing body) run
    on the device; those before it (``T.match_buffer``, host setup) on the host.

    It is ``AttrStmt(0, "tirx.device_entry", T.bool(True), body)`` and prints as
    ``T.attr({"tirx.device_entry": T.bool(True)})``.
    """
    return AttrFrame([(IntImm("int32", 0), DEVICE_ENTRY_KEY, IntImm("bool", 1))])


def hint(message: str = "", **attrs) -> AttrFrame:
    """``T.hint("message", key=value, ...)``: a note for later passes and readers.

    As a statement it covers the rest of the enclosing body; ``with T.hint(...):`` covers
    its block. The node is a dict with ``"message"`` (when not empty) and ``attrs``.
    """
    node = Map()
    if message:
        node["message"] = message
    node.update(attrs)
    return AttrFrame([(node, HINT_KEY, IntImm("int32", 1))])


# --- scope ids ------------------------------------------------------------------------------


def _check_dtype(dtype: str, what: str) -> None:
    if dtype not in ("int32", "uint32"):
        raise ValueError(f"{what}: dtype must be \"int32\" or \"uint32\", got {dtype!r}")


def scope_id(extents=None, parent: str = "kernel", cur: str = "cta", preferred=None,
             dtype: str = "int32"):
    """``T.scope_id(extents, parent, cur)``: index variables of scope ``cur`` in ``parent``.

    Parameters
    ----------
    extents : int, PrimExpr or list of them, optional
        One extent per dimension; ``None`` defers it (one variable, inferred from the
        sibling scope ids when the kernel is lowered).
    parent, cur : str
        The scope pair (``"kernel"``/``"cta"``, ``"cta"``/``"warp"``, ...).
    preferred : list, optional
        Preferred extents (only ``cluster -> cta``).
    dtype : str
        ``"int32"`` or ``"uint32"``.

    Returns
    -------
    Var or list of Var
        One Var for one extent (or a deferred one), else a list.
    """
    what = f"T.{SCOPE_ID_FUNCTIONS.get((parent, cur), 'scope_id')}"
    _check_dtype(dtype, what)
    if extents is not None and not isinstance(extents, (list, tuple)):
        extents = [extents]
    count = 1 if extents is None else len(extents)
    if count == 0:
        raise ValueError(f"{what}: extents must not be empty (use None to defer)")
    ids = [Var("", dtype) for _ in range(count)]
    scope_def = ScopeIdDef(ids, None if extents is None else list(extents), parent, cur,
                           None if preferred is None else list(preferred))
    add_to_parent(_stmt.ScopeIdDefStmt(scope_def))
    frame = IRBuilder.current().find_frame(PrimFuncFrame)
    if frame is not None:
        # The parser names these variables from the assignment target.
        frame.bound_vars.update(id(v) for v in ids)
    return ids[0] if extents is None or len(ids) == 1 else ids


def _scope_id_call(parent: str, cur: str, doc: str):
    def call(extents=None, dtype: str = "int32"):
        return scope_id(extents, parent, cur, dtype=dtype)

    call.__name__ = call.__qualname__ = SCOPE_ID_FUNCTIONS[(parent, cur)]
    call.__doc__ = (f"``T.{call.__name__}(extents=None, dtype=\"int32\")``: {doc} "
                    f"(scope {parent} -> {cur}; see :func:`scope_id`).")
    return call


cluster_id = _scope_id_call("kernel", "cluster", "the cluster index in the grid")
warpgroup_id = _scope_id_call("cta", "warpgroup", "the warpgroup index in the CTA")
warp_id = _scope_id_call("cta", "warp", "the warp index in the CTA")
warp_id_in_wg = _scope_id_call("warpgroup", "warp", "the warp index in its warpgroup")
lane_id = _scope_id_call("warp", "thread", "the lane index in the warp")
thread_id = _scope_id_call("cta", "thread", "the thread index in the CTA")
thread_id_in_wg = _scope_id_call("warpgroup", "thread", "the thread index in its warpgroup")


def cta_id(extents=None, preferred=None, dtype: str = "int32"):
    """``T.cta_id(extents=None, dtype="int32")``: the CTA index in the grid (kernel -> cta).

    ``preferred`` is accepted only on ``T.cta_id_in_cluster``; given here it is an error.
    """
    if preferred is not None:
        raise ValueError(
            "T.cta_id(preferred=...): preferred extents are only allowed on cluster->cta "
            "scope ids (T.cta_id_in_cluster)"
        )
    return scope_id(extents, "kernel", "cta", dtype=dtype)


def cta_id_in_cluster(extents=None, preferred=None, dtype: str = "int32"):
    """``T.cta_id_in_cluster(extents, preferred=None)``: the CTA index in its cluster."""
    return scope_id(extents, "cluster", "cta", preferred=preferred, dtype=dtype)


def cta_id_in_pair(extents=None, dtype: str = "int32"):
    """``T.cta_id_in_pair()``: the CTA's index (0 or 1) in its CTA pair (cluster ->
    cta_pair)."""
    return scope_id(extents, "cluster", "cta_pair", dtype=dtype)


# --- parse-time helpers ---------------------------------------------------------------------


def static_assert(condition, message: str = "") -> None:
    """``T.static_assert(cond, msg)``: check ``cond`` while the kernel is built.

    ``cond`` must be known at parse time (a Python bool or a constant expression); a false
    one raises ``ValueError`` with ``msg``.
    """
    value = condition
    if isinstance(value, PrimExpr):
        # Lazy: only symbolic conditions need the simplifier.
        from tvm.arith import Analyzer

        value = Analyzer().simplify(value)
        if not isinstance(value, IntImm):
            raise ValueError(  # noqa: TRY004 - a symbolic condition is a bad value
                f"T.static_assert needs a condition known at parse time, got {condition}"
            )
        value = bool(value.value)
    if not value:
        raise ValueError(f"T.static_assert failed: {message}" if message
                         else "T.static_assert failed")


def meta_var(value):
    """``T.meta_var(x)``: use the Python value ``x`` as is while parsing (a Python loop over
    it unrolls; assigning it binds a name to the value, not a TIR variable)."""
    return _MetaVar(value)


class _MetaVar:
    """A value wrapped by :func:`meta_var`; the parser unwraps it when binding a name."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __iter__(self):
        return iter(self.value)

    def __repr__(self):
        return f"T.meta_var({self.value!r})"


def TensorMap():
    """``A_map: T.TensorMap()``: a kernel parameter holding the address of a TMA descriptor
    (a handle of type ``PointerType(TensorMapType(), "global")``)."""
    return Var("", tensormap_pointer_type())


def elected():
    """Removed: ``T.elected()`` no longer exists."""
    raise RuntimeError(
        "T.elected() was removed: pick one thread explicitly, for example "
        "`if T.cuda.elect_sync():` (one lane of a warp) or `if T.thread_id_in_wg(...) == 0:`"
    )


# --- memory ---------------------------------------------------------------------------------


def _alloc(shape, dtype, scope, **kwargs):
    from . import alloc_buffer  # the package's allocation call (it imports this module)

    return alloc_buffer(shape, dtype, scope=scope, **kwargs)


def smem(shape, dtype="float32", **kwargs):
    """``T.smem(shape, dtype)``: a ``shared``-scope allocation (``T.alloc_shared``)."""
    return _alloc(shape, dtype, "shared", **kwargs)


def tmem(shape, dtype="float32", **kwargs):
    """``T.tmem(shape, dtype)``: a tensor-memory (``tmem``, Blackwell) allocation."""
    return _alloc(shape, dtype, "tmem", **kwargs)


# --- register fragments -------------------------------------------------------------------


def wg_reg_tile(elem_per_thread: int, dtype: str = "float32"):
    """``T.wg_reg_tile(n, dtype)``: a ``(128, n)`` local tile of a warpgroup, each of its 128
    threads holding one row (layout ``wg_local_layout(n)``: rows on ``tid_in_wg``)."""
    from tvm.tirx.layout import wg_local_layout  # lazy: the layout package imports arith

    return _alloc((128, elem_per_thread), dtype, "local", layout=wg_local_layout(elem_per_thread))


def alloc_tcgen05_ldst_frag(instr_shape, tensor_shape, dtype):
    """``T.alloc_tcgen05_ldst_frag("32x32b", (128, 64), "float32")``: the registers of a
    ``tcgen05.ld/st`` fragment: a local buffer of the per-thread elements (``rows * cols /
    128``) viewed as ``tensor_shape`` with ``tcgen05_atom_layout(instr_shape, ...)``."""
    from tvm.runtime.data_type import DataType  # local: only fragments need it
    from tvm.tirx.layout import tcgen05_atom_layout  # lazy: the layout package imports arith

    rows, cols = (int(s) for s in tensor_shape)
    bits = DataType(dtype).bits
    if (rows * cols) % 128:
        raise ValueError(f"T.alloc_tcgen05_ldst_frag: tensor_shape={tuple(tensor_shape)} "
                         f"({rows * cols} elements of {dtype}, {bits} bits) does not divide "
                         "evenly across the 128 threads of a warpgroup")
    layout = tcgen05_atom_layout(instr_shape, (rows, cols), dtype)
    flat = _alloc((rows * cols // 128,), dtype, "local")
    return flat.view(rows, cols, layout=layout)


def alloc_cast_frag(src, dtype):
    """``T.alloc_cast_frag(frag, "float16")``: a fresh local fragment with ``src``'s shape
    and thread layout and another dtype (the destination of a per-thread cast)."""
    from tvm.tirx._buffer_view import effective_layout  # lazy: imports the layout package

    if len(src.shape) != 2:
        raise ValueError(f"T.alloc_cast_frag: the source fragment must be 2-D, got shape "
                         f"{list(src.shape)}")
    rows, cols = (int(s) for s in src.shape)
    flat = _alloc(((rows * cols) // 128,), dtype, "local")
    return flat.view(rows, cols, layout=effective_layout(src))


def _scalar(buf):
    """A scalar's element ``buf[0]``; the parser binds the assigned name to it, so the name
    reads ``buf[0]`` and ``name = v`` stores into it."""
    frame = IRBuilder.current().find_frame(PrimFuncFrame)
    if frame is not None:
        frame.bound_vars.add(id(buf))
    return _stmt.BufferLoad(buf, [IntImm("int32", 0)])


def is_scalar_load(value) -> bool:
    """Whether ``value`` is the element returned by a scalar allocation of this function."""
    if not isinstance(value, _stmt.BufferLoad) or not IRBuilder.is_in_scope():
        return False
    frame = IRBuilder.current().find_frame(PrimFuncFrame)
    return frame is not None and id(value.buffer) in frame.bound_vars


def alloc_scalar(dtype, scope="local", **kwargs):
    """``s = T.alloc_scalar(dtype, scope="local")``: a one-element buffer of ``scope``;
    ``s`` then reads its element and ``s = v`` stores."""
    return _scalar(_alloc((1,), dtype, scope, **kwargs))


def shared_scalar(dtype, **kwargs):
    """``s = T.shared_scalar(dtype)``: a one-element ``shared`` buffer (a TMEM address, a
    flag shared by the CTA)."""
    return _scalar(_alloc((1,), dtype, "shared", **kwargs))


def local_scalar(dtype, **kwargs):
    """``s = T.local_scalar(dtype)``: a one-element ``local`` buffer."""
    return _scalar(_alloc((1,), dtype, "local", **kwargs))


def decl_scalar(dtype, data, scope="global", elem_offset=None, **kwargs):
    """``s = T.decl_scalar(dtype, data, scope=...)``: a one-element view over ``data``."""
    from . import decl_buffer  # the package's declaration call (it imports this module)

    return _scalar(decl_buffer((1,), dtype, data=data, scope=scope, elem_offset=elem_offset,
                               **kwargs))
