"""Structural equality, hashing and first-mismatch paths over declared nodes.

Two trees are structurally equal when they have the same node types and equal field values,
field by field in declaration order, ignoring fields whose role is ``IGNORE``. Variables
(node classes with ``_sequal_kind = "var"``) are compared alpha-equivalently: a variable met
inside a ``DEF`` field is *defined* there and is mapped to its counterpart; later uses must
agree with the mapping. A variable used without a definition (a free variable) must be the
very same object on both sides, unless ``map_free_vars=True``.

All three walks are iterative (explicit stacks), so a tree 20,000 levels deep works.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .node import DEF, IGNORE, Node

__all__ = [
    "format_path",
    "get_first_structural_mismatch",
    "path_to_access_path",
    "structural_equal",
    "structural_hash",
]

_MASK64 = (1 << 64) - 1
# Stack marker: the sequences compared at this point have different lengths.
_LENGTH_MISMATCH = object()


# --- paths ------------------------------------------------------------------------------------
# A path is a linked tuple (parent_path, kind, key) with None as the root; it is cheap to extend
# while walking and only turned into a ``tvm_ffi.access_path.AccessPath`` on a mismatch.


def _steps(path):
    out = []
    while path is not None:
        path, kind, key = path
        out.append((kind, key))
    out.reverse()
    return out


def path_to_access_path(path):
    """Convert an internal linked path into a ``tvm_ffi.access_path.AccessPath``."""
    from tvm_ffi.access_path import AccessPath

    result = AccessPath.root()
    for kind, key in _steps(path):
        if kind == "attr":
            result = result.attr(key)
        elif kind == "item":
            result = result.array_item(key)
        elif kind == "item_missing":
            result = result.array_item_missing(key)
        elif kind == "map":
            result = result.map_item(_ffi_key(key))
        elif kind == "map_missing":
            result = result.map_item_missing(_ffi_key(key))
        else:  # pragma: no cover - internal invariant
            raise AssertionError(kind)
    return result


def _ffi_key(key):
    if isinstance(key, (str, int, float, bool)) or key is None:
        return key
    name = getattr(key, "name_hint", None)
    return name if isinstance(name, str) else repr(key)


def format_path(path) -> str:
    """Render an internal path as TVM prints access paths: ``<root>.body[0]["key"]``."""
    text = ["<root>"]
    for kind, key in _steps(path):
        if kind == "attr":
            text.append(f".{key}")
        elif kind in ("item", "item_missing"):
            text.append(f"[{key}]")
        else:
            text.append(f"[{_key_text(key)}]")
    return "".join(text)


def _key_text(key):
    if isinstance(key, str):
        return f'"{key}"'
    if isinstance(key, Node) and type(key).__name__ == "GlobalVar":
        return f'I.GlobalVar("{key.name_hint}")'
    return repr(key)


# --- leaves -----------------------------------------------------------------------------------


def _is_nan(value) -> bool:
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _leaf_equal(lhs, rhs, skip_tensor_content) -> bool:
    if type(lhs) is not type(rhs):
        # int vs numpy int and similar: compare by value only when both are plain numbers.
        if isinstance(lhs, bool) or isinstance(rhs, bool):
            return False
        if isinstance(lhs, (int, float, np.number)) and isinstance(rhs, (int, float, np.number)):
            return bool(lhs == rhs) or (_is_nan(lhs) and _is_nan(rhs))
        if isinstance(lhs, str) and isinstance(rhs, str):
            # A str subclass (tvm.DataType is tvm_ffi.dtype) equals the plain string it spells.
            return str.__eq__(lhs, rhs)
        return False
    if isinstance(lhs, float):
        return lhs == rhs or (math.isnan(lhs) and math.isnan(rhs))
    if isinstance(lhs, np.ndarray):
        if lhs.shape != rhs.shape or lhs.dtype != rhs.dtype:
            return False
        return skip_tensor_content or bool(np.array_equal(lhs, rhs, equal_nan=True))
    if hasattr(lhs, "numpy") and callable(lhs.numpy):  # runtime tensors
        return _leaf_equal(lhs.numpy(), rhs.numpy(), skip_tensor_content)
    try:
        return bool(lhs == rhs)
    except Exception:  # noqa: BLE001 - objects without a usable __eq__ compare by identity
        return lhs is rhs


def _leaf_hash(value, skip_tensor_content):
    if isinstance(value, float) and math.isnan(value):
        return hash("nan")
    if isinstance(value, np.ndarray):
        head = (value.shape, str(value.dtype))
        if skip_tensor_content:
            return hash(head)
        return hash((head, value.tobytes()))
    if hasattr(value, "numpy") and callable(value.numpy) and not isinstance(value, Node):
        return _leaf_hash(value.numpy(), skip_tensor_content)
    # Values that _leaf_equal compares across types must hash alike: numbers by value
    # (hash(1) == hash(1.0) == hash(np.int64(1))), strings as plain str.
    if isinstance(value, str):
        return hash(("str", str(value)))
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return hash("nan") if _is_nan(value) else hash(("num", value))
    try:
        return hash((type(value).__name__, value))
    except TypeError:
        return hash((type(value).__name__, repr(value)))


def _is_seq(value):
    return isinstance(value, (tuple, list))


def _dict_items(value):
    """Dict items in a canonical order (by key text), so hash and equality are order-free."""
    return sorted(value.items(), key=lambda kv: _sort_key(kv[0]))


def _sort_key(key):
    if isinstance(key, Node):
        name = getattr(key, "name_hint", None)
        return (1, name if isinstance(name, str) else type(key).__name__)
    return (0, str(key))


# --- equality ---------------------------------------------------------------------------------


class _Equal:
    """One structural comparison. ``mismatch`` holds the pair of paths when it fails."""

    def __init__(self, map_free_vars=False, skip_tensor_content=False):
        self.map_free_vars = map_free_vars
        self.skip_tensor_content = skip_tensor_content
        self.lhs_to_rhs: dict[int, Any] = {}
        self.rhs_to_lhs: dict[int, Any] = {}
        self.keep: list = []  # keeps mapped objects alive so ids stay unique
        self.mismatch = None

    def run(self, lhs, rhs):
        stack = [(lhs, rhs, None, None, False)]
        while stack:
            entry = stack.pop()
            if entry[0] is _LENGTH_MISMATCH:
                (lpath_extra, rpath_extra) = entry[1]
                self.mismatch = (lpath_extra, rpath_extra)
                return False
            lv, rv, lpath, rpath, defining = entry
            if not self._step(lv, rv, lpath, rpath, defining, stack.append):
                return False
        return True

    def _step(self, lv, rv, lpath, rpath, defining, push):
        if isinstance(lv, Node):
            if type(lv) is not type(rv):
                return self._fail(lpath, rpath)
            if lv._sequal_kind == "var":
                ok = self._var(lv, rv, defining)
                if ok is False:
                    return self._fail(lpath, rpath)
                if ok is None:
                    self._push_fields(lv, rv, lpath, rpath, True, push)
                return True
            self._push_fields(lv, rv, lpath, rpath, defining, push)
            return True
        if _is_seq(lv):
            if not _is_seq(rv):
                return self._fail(lpath, rpath)
            n_l, n_r = len(lv), len(rv)
            common = min(n_l, n_r)
            if n_l != n_r:
                if n_l > n_r:
                    extra = ((lpath, "item", common), (rpath, "item_missing", common))
                else:
                    extra = ((lpath, "item_missing", common), (rpath, "item", common))
                push((_LENGTH_MISMATCH, extra))
            for i in range(common - 1, -1, -1):
                push((lv[i], rv[i], (lpath, "item", i), (rpath, "item", i), defining))
            return True
        if isinstance(lv, dict):
            if not isinstance(rv, dict):
                return self._fail(lpath, rpath)
            litems, ritems = _dict_items(lv), _dict_items(rv)
            if len(litems) != len(ritems):
                return self._fail(lpath, rpath)
            for (lk, lval), (rk, rval) in reversed(list(zip(litems, ritems))):
                push((lval, rval, (lpath, "map", lk), (rpath, "map", rk), defining))
                push((lk, rk, (lpath, "map", lk), (rpath, "map", rk), defining))
            return True
        if isinstance(rv, Node) or _is_seq(rv) or isinstance(rv, dict):
            return self._fail(lpath, rpath)
        if not _leaf_equal(lv, rv, self.skip_tensor_content):
            return self._fail(lpath, rpath)
        return True

    def _push_fields(self, lv, rv, lpath, rpath, defining, push):
        fields = lv._fields
        for i in range(len(fields) - 1, -1, -1):
            fobj = fields[i]
            if fobj.role == IGNORE:
                continue
            name = fobj.name
            push(
                (
                    getattr(lv, name, None),
                    getattr(rv, name, None),
                    (lpath, "attr", name),
                    (rpath, "attr", name),
                    defining or fobj.role == DEF,
                )
            )

    def _var(self, lv, rv, defining):
        """Returns True (consistent), False (mismatch) or None (new mapping made)."""
        mapped = self.lhs_to_rhs.get(id(lv))
        if mapped is not None:
            return mapped is rv
        if id(rv) in self.rhs_to_lhs:
            return False
        if defining or self.map_free_vars:
            self.lhs_to_rhs[id(lv)] = rv
            self.rhs_to_lhs[id(rv)] = lv
            self.keep.append((lv, rv))
            return None
        return lv is rv

    def _fail(self, lpath, rpath):
        self.mismatch = (lpath, rpath)
        return False


def _run_equal(lhs, rhs, map_free_vars, skip_tensor_content):
    eq = _Equal(map_free_vars, skip_tensor_content)
    return eq.run(lhs, rhs), eq


def structural_equal(lhs, rhs, map_free_vars: bool = False, skip_tensor_content: bool = False):
    """Whether two IR trees are structurally equal (alpha-equivalent at definition sites).

    Examples
    --------
    >>> from tvm.ffi.structural import structural_equal
    >>> structural_equal((1, "a"), (1, "a"))
    True
    """
    ok, _ = _run_equal(lhs, rhs, map_free_vars, skip_tensor_content)
    return ok


def get_first_structural_mismatch(lhs, rhs, map_free_vars: bool = False,
                                  skip_tensor_content: bool = False):
    """``None`` when equal, else the pair of ``AccessPath`` to the first differing place."""
    ok, eq = _run_equal(lhs, rhs, map_free_vars, skip_tensor_content)
    if ok:
        return None
    lpath, rpath = eq.mismatch
    return path_to_access_path(lpath), path_to_access_path(rpath)


def first_mismatch_paths(lhs, rhs, map_free_vars=False, skip_tensor_content=False):
    """Like :func:`get_first_structural_mismatch` but returns the internal linked paths."""
    ok, eq = _run_equal(lhs, rhs, map_free_vars, skip_tensor_content)
    return None if ok else eq.mismatch


# --- hashing ----------------------------------------------------------------------------------


def structural_hash(value, map_free_vars: bool = False, skip_tensor_content: bool = False) -> int:
    """A 64-bit hash consistent with :func:`structural_equal`.

    Variables hash by the order in which they are defined, so alpha-renamed trees hash alike.
    A free variable hashes by identity (or by order of first use with ``map_free_vars``).
    """
    tokens: list = []
    emit = tokens.append
    var_index: dict[int, int] = {}
    keep: list = []
    stack = [(value, False)]
    pop = stack.pop
    push = stack.append
    while stack:
        item, defining = pop()
        if isinstance(item, Node):
            if item._sequal_kind == "var":
                index = var_index.get(id(item))
                if index is not None:
                    emit(("var", index))
                    continue
                if defining or map_free_vars:
                    index = len(var_index)
                    var_index[id(item)] = index
                    keep.append(item)
                    emit(("vardef", item.type_key, index))
                    _push_node_fields(item, True, push)
                else:
                    emit(("freevar", id(item)))
                continue
            emit(item.type_key)
            _push_node_fields(item, defining, push)
        elif _is_seq(item):
            emit(("seq", len(item)))
            for sub in reversed(item):
                push((sub, defining))
        elif isinstance(item, dict):
            items = _dict_items(item)
            emit(("map", len(items)))
            for key, sub in reversed(items):
                push((sub, defining))
                push((key, defining))
        else:
            emit(_leaf_hash(item, skip_tensor_content))
    return hash(tuple(tokens)) & _MASK64


def _push_node_fields(node, defining, push):
    fields = node._fields
    for i in range(len(fields) - 1, -1, -1):
        fobj = fields[i]
        if fobj.role == IGNORE:
            continue
        push((getattr(node, fobj.name, None), defining or fobj.role == DEF))
