"""TIRx kernel rules of ``verify_tirx_well_formed`` (spec D.3, D.6).

Checked on top of the TIR rules of :mod:`.verify`, for every PrimFunc:

1. ``T.device_entry()`` appears at most once on any path (no device region inside another);
2. in a function with a device entry, scope ids (``ScopeIdDefStmt``) are defined inside the
   device region, not in the host code before it;
3. a scope pair defined twice has the same extents (``Inconsistent extents for scope ...``);
4. the extents of related scope pairs agree: ``cta->thread = cta->warp * warp->thread``,
   ``cta->thread = cta->warpgroup * warpgroup->thread``, ``warpgroup->thread =
   warpgroup->warp * warp->thread``, ``cta->warp = cta->warpgroup * warpgroup->warp``, and per
   dimension ``kernel->cta = kernel->cluster * cluster->cta``. Missing extents are derived
   from the others (``non-divisible extents`` when a division is not exact); deferred
   (``None``) and symbolic extents are left to lowering;
5. ``preferred_extents`` has as many entries as ``extents``.

:func:`verify_tirx_layouts` adds one rule, not part of the parse-time check because Apache
TVM's own kernels parse buffers whose layout covers a different number of elements (a
layout describing one tile of a larger buffer):

6. a buffer's layout covers its elements: the layout's size (the product of its shard
   extents) equals the number of elements of the buffer's shape, for every allocated,
   declared or parameter buffer with a layout and a constant shape.

Each failure raises ``ValueError`` whose message ends with the function's TVMScript, the
offending statement underlined; the statement is also attached to the error
(``tvm.ir.error_context``) so a pass executor can point at it.
"""

from __future__ import annotations

from ...ir.error_context import attach_node, find_node_path
from ..exec_scope import SCOPE_ID_FUNCTIONS
from ..expr import IntImm
from ..stmt import AllocBuffer, AttrStmt, DeclBuffer, ScopeIdDefStmt, SeqStmt

__all__ = ["DEVICE_ENTRY_KEY", "check_kernel", "check_layout_sizes", "verify_tirx_layouts"]

DEVICE_ENTRY_KEY = "tirx.device_entry"

#: (whole, outer, inner): extents of ``whole`` = extents of ``outer`` * extents of ``inner``.
_PRODUCTS = (
    (("cta", "thread"), ("cta", "warp"), ("warp", "thread")),
    (("cta", "thread"), ("cta", "warpgroup"), ("warpgroup", "thread")),
    (("warpgroup", "thread"), ("warpgroup", "warp"), ("warp", "thread")),
    (("cta", "warp"), ("cta", "warpgroup"), ("warpgroup", "warp")),
    (("kernel", "cta"), ("kernel", "cluster"), ("cluster", "cta")),
)


class _KernelError(ValueError):
    pass


def _name(pair) -> str:
    return f"{pair[0]}->{pair[1]}"


def _call(pair) -> str:
    return f"T.{SCOPE_ID_FUNCTIONS.get(pair, 'scope_id')}"


def _fail(func, stmt, message):
    """Raise ``ValueError(message)`` with the function's script, ``stmt`` underlined."""
    text = message
    path = find_node_path(func, stmt) if stmt is not None else None
    if path is not None:
        try:
            # Lazy: the printer lives in the script layer, above tirx.
            from tvm.script.printer import script

            rendered = script(func, path_to_underline=[path] if path else None,
                              num_context_lines=6)
            text = f"{message}\n{rendered}"
        except Exception:  # noqa: BLE001,S110 - the message alone still names the fault
            pass
    raise attach_node(_KernelError(text), stmt)


def _const_extents(scope_def):
    """The extents as a tuple of ints, or None when deferred or symbolic."""
    if scope_def.extents is None:
        return None
    out = []
    for e in scope_def.extents:
        if not isinstance(e, IntImm):
            return None
        out.append(int(e.value))
    return tuple(out)


def _product(values) -> int:
    total = 1
    for v in values:
        total *= v
    return total


class _Collector:
    def __init__(self, func):
        self.func = func
        self.defs: list = []  # (ScopeIdDefStmt, in device region)
        self.buffers: list = []  # (buffer, the statement defining it)
        self.has_entry = False

    def walk(self, stmt, in_device: bool) -> None:
        if isinstance(stmt, SeqStmt):
            for item in stmt.seq:
                self.walk(item, in_device)
            return
        if isinstance(stmt, ScopeIdDefStmt):
            self.defs.append((stmt, in_device))
            return
        if isinstance(stmt, (AllocBuffer, DeclBuffer)):
            self.buffers.append((stmt.buffer, stmt))
        if isinstance(stmt, AttrStmt) and stmt.attr_key == DEVICE_ENTRY_KEY:
            if in_device:
                _fail(self.func, stmt, "Nested T.device_entry(): a device region cannot "
                                       "contain another device entry")
            self.has_entry = True
            self.walk(stmt.body, True)
            return
        for name in ("body", "then_case", "else_case"):
            child = getattr(stmt, name, None)
            if child is not None and hasattr(child, "type_key"):
                self.walk(child, in_device)
        block = getattr(stmt, "block", None)
        if block is not None:
            self.walk(block, in_device)


def check_kernel(func) -> None:
    """Check the TIRx kernel rules above on one PrimFunc (``ValueError`` on the first)."""
    collector = _Collector(func)
    collector.walk(func.body, False)
    if collector.has_entry:
        for stmt, in_device in collector.defs:
            if not in_device:
                pair = (stmt.def_.parent, stmt.def_.cur)
                _fail(func, stmt, f"Scope id {_call(pair)} is defined in host code: scope ids "
                                  "belong after T.device_entry(), in the device region")
    known: dict = {}  # pair -> (extents tuple, the statement that gave them)
    for stmt, _ in collector.defs:
        scope_def = stmt.def_
        pair = (scope_def.parent, scope_def.cur)
        if scope_def.preferred_extents is not None and scope_def.extents is not None and (
                len(scope_def.preferred_extents) != len(scope_def.extents)):
            _fail(func, stmt, f"{_call(pair)}: preferred_extents must have the same size as "
                              f"extents ({len(scope_def.preferred_extents)} vs "
                              f"{len(scope_def.extents)})")
        extents = _const_extents(scope_def)
        if extents is None:
            continue
        if pair in known:
            _check_same(func, stmt, pair, known[pair][0], extents)
        else:
            known[pair] = (extents, stmt)
    _close(func, known)


def check_layout_sizes(func) -> None:
    """Rule 6 on one PrimFunc: ``ValueError`` (the defining statement underlined) for the
    first buffer whose layout size differs from its element count."""
    collector = _Collector(func)
    collector.walk(func.body, False)
    for buf in func.buffer_map.values():
        _check_layout_size(func, buf, None)
    for buf, stmt in collector.buffers:
        _check_layout_size(func, buf, stmt)


def verify_tirx_layouts(obj, assert_mode: bool = True) -> bool:
    """Check that every buffer layout of ``obj`` (a PrimFunc or an IRModule) covers exactly
    the buffer's elements (rule 6). Raises on the first failure when ``assert_mode``, else
    returns False."""
    funcs = [obj] if hasattr(obj, "buffer_map") else [
        f for f in obj.functions.values() if hasattr(f, "buffer_map")]
    for func in funcs:
        try:
            check_layout_sizes(func)
        except ValueError:
            if assert_mode:
                raise
            return False
    return True


def _check_layout_size(func, buf, stmt) -> None:
    """Rule 6: the layout of ``buf`` has as many elements as its shape."""
    layout = buf.layout
    if layout is None or not hasattr(layout, "size"):
        return  # the default layout, or an explicit "no layout"
    elements = 1
    for extent in buf.shape:
        if not isinstance(extent, IntImm):
            return  # symbolic shapes are left to lowering
        elements *= extent.value
    size = layout.size()
    if not isinstance(size, (int, IntImm)):
        return
    size = int(size.value if isinstance(size, IntImm) else size)
    if size != elements:
        _fail(func, stmt, f"The layout of buffer {buf.name} has size {size}, but the buffer "
                          f"has {elements} elements (shape {[int(e) for e in buf.shape]}): a "
                          "layout must cover exactly the buffer's elements")


def _check_same(func, stmt, pair, expected, got) -> None:
    same = expected == got if len(expected) == len(got) else _product(expected) == _product(got)
    if not same:
        _fail(func, stmt, f"Inconsistent extents for scope {_name(pair)}: {list(got)} here, "
                          f"but {list(expected)} from the other scope ids")


def _close(func, known) -> None:
    """Derive missing extents from the product relations until nothing changes; check the
    relations whose three sides are known."""
    changed = True
    while changed:
        changed = False
        for whole, outer, inner in _PRODUCTS:
            w, o, i = known.get(whole), known.get(outer), known.get(inner)
            if o is not None and i is not None:
                value = _multiply(o[0], i[0])
                if w is None:
                    known[whole] = (value, i[1])
                    changed = True
                else:
                    _check_same(func, w[1], whole, value, w[0])
            elif w is not None and (o is None) != (i is None):
                have, missing = (o, inner) if o is not None else (i, outer)
                value = _divide(func, w, have, whole, missing)
                known[missing] = (value, have[1])
                changed = True


def _multiply(a, b):
    if len(a) == len(b):
        return tuple(x * y for x, y in zip(a, b))
    return (_product(a) * _product(b),)


def _divide(func, whole, part, whole_pair, missing_pair):
    w, p = whole[0], part[0]
    if len(w) == len(p):
        if any(y == 0 or x % y for x, y in zip(w, p)):
            _fail(func, whole[1], f"non-divisible extents: scope {_name(whole_pair)} {list(w)} "
                                  f"is not a multiple of {list(p)} ({_name(missing_pair)} "
                                  "cannot be derived)")
        return tuple(x // y for x, y in zip(w, p))
    total, part_total = _product(w), _product(p)
    if part_total == 0 or total % part_total:
        _fail(func, whole[1], f"non-divisible extents: scope {_name(whole_pair)} {list(w)} is "
                              f"not a multiple of {list(p)}")
    return (total // part_total,)
