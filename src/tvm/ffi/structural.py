"""Structural equality, hashing and first-mismatch paths over declared nodes.

Two trees are structurally equal when they have the same node types and equal field values,
field by field in declaration order, ignoring fields whose role is ``IGNORE``. Variables
(node classes with ``_sequal_kind = "var"``) are compared alpha-equivalently: a variable met
inside a ``DEF`` field is *defined* there and is mapped to its counterpart; later uses must
agree with the mapping. A variable used without a definition (a free variable) must be the
very same object on both sides, unless ``map_free_vars=True``.

Speed: each walk first runs recursively over per-class field tables, with no per-step
objects (the access paths of a mismatch are built on the way back from it). A tree deeper
than ``_MAX_DEPTH`` levels is walked again from the start by an iterative walk (explicit
stack) that gives the same answers, so a tree 20,000 levels deep works.
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


# --- per-class tables -------------------------------------------------------------------------
# ``_INFO`` maps a Python type to how the walks treat its values, computed once per type: a
# ``(fields, is_var, type_key)`` tuple for node classes, where ``fields`` lists
# ``(name, is_def)`` for every non-IGNORE field in declaration order, or one of the codes below.

_ATOM, _FLOAT, _SEQ, _DICT, _LEAF = 1, 2, 3, 4, 5
_INFO: dict = {
    str: _ATOM,
    int: _ATOM,
    bool: _ATOM,
    type(None): _ATOM,
    float: _FLOAT,
    tuple: _SEQ,
    list: _SEQ,
    dict: _DICT,
}


_ATOM_TYPES = frozenset(t for t, info in _INFO.items() if info == _ATOM)


def _classify(cls):
    """Compute and remember ``_INFO[cls]``."""
    if issubclass(cls, Node):
        fields = tuple((f.name, f.role == DEF) for f in cls._fields if f.role != IGNORE)
        info = (fields, cls._sequal_kind == "var", cls.type_key, _lazy_fields_eq(cls, fields))
    elif issubclass(cls, (tuple, list)):
        info = _SEQ
    elif issubclass(cls, dict):
        info = _DICT
    else:
        info = _LEAF  # exact str/int/float are listed above; subclasses need the general rules
    _INFO[cls] = info
    return info


#: Comparisons of a class's nodes after which its generated ``fields_eq`` replaces the loop.
_COMPILE_AFTER = 1000


def _lazy_fields_eq(cls, fields):
    """``fields_eq`` for ``cls`` that loops over the fields until the class has been compared
    ``_COMPILE_AFTER`` times, then installs the generated one (``_make_fields_eq``).

    Why: generating the code costs ~0.2 ms a class (compiling its source), which a cold
    compile paid for ~50 classes, most of them compared a few dozen times; the generated
    function is only ~20% faster per comparison than the loop. Both give the same answers.
    """
    calls = 0

    def fields_eq(lv, rv, defining, depth, st):
        nonlocal calls
        calls += 1
        if calls == _COMPILE_AFTER:
            info = _INFO[cls]
            _INFO[cls] = (*info[:3], _make_fields_eq(cls, fields))
        return _fields_eq_generic(lv, rv, fields, defining, depth, st)

    return fields_eq


def _make_fields_eq(cls, fields):
    """Generate ``fields_eq(lv, rv, defining, depth, st)`` comparing the fields of two
    ``cls`` nodes with ``_eq``: plain attribute reads, atoms compared inline, no loop."""
    lines = ["def fields_eq(lv, rv, defining, depth, st):", "    try:"]
    for name, is_def in fields:
        flag = "True" if is_def else "defining"
        lines += [
            f"        lsub = lv.{name}",
            f"        rsub = rv.{name}",
            "        sub_cls = type(lsub)",
            "        if sub_cls in _ATOM_TYPES and type(rsub) is sub_cls:",
            "            if lsub != rsub:",
            "                return False",
            f"        elif not _eq(lsub, rsub, {flag}, depth, st):",
            "            return False",
        ]
    if not fields:
        lines.append("        pass")
    lines += [
        "    except AttributeError:",
        "        # An unset slot: compare again the generic way (comparing again is harmless).",
        "        return _fields_eq_generic(lv, rv, fields, defining, depth, st)",
        "    return True",
    ]
    env = {"_ATOM_TYPES": _ATOM_TYPES, "_eq": _eq, "_fields_eq_generic": _fields_eq_generic,
           "fields": fields}
    exec("\n".join(lines), env)  # noqa: S102 - generated from declared field names only
    return env["fields_eq"]


def _fields_eq_generic(lv, rv, fields, defining, depth, st):
    for name, is_def in fields:
        if not _eq(getattr(lv, name, None), getattr(rv, name, None), defining or is_def, depth, st):
            return False
    return True


def _fields_of(node):
    info = _INFO.get(type(node)) or _classify(type(node))
    return info[0]


class _TooDeep(Exception):
    """The recursive fast walk reached ``_MAX_DEPTH``; the iterative walk takes over."""


# The fast walks recurse (one Python frame per level); deeper trees go to the iterative walks,
# which give the same answers. Well below the interpreter's default limit of 1000 frames, so
# callers that are themselves deep in recursion still have room.
_MAX_DEPTH = 200


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
    if isinstance(lhs, (float, np.floating)):
        return bool(lhs == rhs) or (_is_nan(lhs) and _is_nan(rhs))
    if isinstance(lhs, np.ndarray):
        if lhs.shape != rhs.shape or lhs.dtype != rhs.dtype:
            return False
        return skip_tensor_content or bool(np.array_equal(lhs, rhs, equal_nan=True))
    if hasattr(lhs, "numpy") and callable(lhs.numpy):  # runtime tensors
        return _leaf_equal(lhs.numpy(), rhs.numpy(), skip_tensor_content)
    try:
        return bool(lhs == rhs)
    except RecursionError:
        raise  # the fast walk's signal to restart iteratively, never an answer
    except Exception:  # noqa: BLE001 - objects without a usable __eq__ compare by identity
        return lhs is rhs


# Hash tokens of leaves. Leaves that _leaf_equal compares across types must give equal tokens:
# numbers are their own token (hash(1) == hash(1.0) == hash(np.int64(1))), NaN of any float
# type is one token, a str subclass (tvm.DataType) is its plain string.
_NAN = ("nan",)
_isnan = math.isnan


def _leaf_token(value, skip_tensor_content):
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (int, float, np.number)):
        return _NAN if _is_nan(value) else value
    if isinstance(value, np.ndarray):
        head = (value.shape, str(value.dtype))
        if skip_tensor_content:
            return hash(head)
        return hash((head, value.tobytes()))
    if hasattr(value, "numpy") and callable(value.numpy) and not isinstance(value, Node):
        return _leaf_token(value.numpy(), skip_tensor_content)
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


# --- equality: the fast walk ------------------------------------------------------------------
# A recursive walk that only answers True/False: no paths, no per-step objects. When it says
# False and a caller wants to know where, the reporting walk below runs again from scratch.


# The state of one comparison is a tuple (cheaper to make than an object, which matters for
# the many tiny comparisons): the variable mapping both ways, keyed by ``id`` (each dict also
# keeps the other side's objects alive, so ids stay unique), then the two flags.
_L2R, _R2L, _MAP_FREE, _SKIP_TENSOR = 0, 1, 2, 3


def _eq(lv, rv, defining, depth, st):
    """Whether ``lv`` and ``rv`` are equal, updating the variable mapping in ``st``."""
    cls = type(lv)
    info = _INFO.get(cls) or _classify(cls)
    if type(rv) is not cls:
        return _eq_mixed(lv, rv, info, defining, depth, st)
    if info.__class__ is tuple:  # a node class
        if info[1]:  # a variable
            lhs_to_rhs = st[_L2R]
            mapped = lhs_to_rhs.get(id(lv))
            if mapped is not None:
                return mapped is rv
            if id(rv) in st[_R2L]:
                return False
            if not (defining or st[_MAP_FREE]):
                return lv is rv
            lhs_to_rhs[id(lv)] = rv
            st[_R2L][id(rv)] = lv
            defining = True  # the variable's own fields (its type) define what they hold
        if depth > _MAX_DEPTH:
            raise _TooDeep
        return info[3](lv, rv, defining, depth + 1, st)
    if info == _SEQ:
        if len(lv) != len(rv):
            return False
        if depth > _MAX_DEPTH:
            raise _TooDeep
        depth += 1
        for lsub, rsub in zip(lv, rv):
            if not _eq(lsub, rsub, defining, depth, st):
                return False
        return True
    if info == _ATOM:
        return lv == rv
    if info == _FLOAT:
        return lv == rv or (_isnan(lv) and _isnan(rv))  # NaN equals NaN
    if info == _DICT:
        return _eq_dict(lv, rv, defining, depth, st)
    return _leaf_equal(lv, rv, st[_SKIP_TENSOR])


def _eq_mixed(lv, rv, info, defining, depth, st):
    """``_eq`` for values of different Python types (a tuple and a list, int and np.int64)."""
    if info.__class__ is tuple:
        return False
    if info == _SEQ:
        return _is_seq(rv) and _eq_seq(lv, rv, defining, depth, st)
    if info == _DICT:
        return isinstance(rv, dict) and _eq_dict(lv, rv, defining, depth, st)
    if isinstance(rv, (Node, tuple, list, dict)):
        return False
    return _leaf_equal(lv, rv, st[_SKIP_TENSOR])


def _eq_seq(lv, rv, defining, depth, st):
    if len(lv) != len(rv):
        return False
    if depth > _MAX_DEPTH:
        raise _TooDeep
    depth += 1
    for lsub, rsub in zip(lv, rv):
        if not _eq(lsub, rsub, defining, depth, st):
            return False
    return True


def _eq_dict(lv, rv, defining, depth, st):
    if len(lv) != len(rv):
        return False
    if depth > _MAX_DEPTH:
        raise _TooDeep
    depth += 1
    for (lk, lval), (rk, rval) in zip(_dict_items(lv), _dict_items(rv)):
        if not (_eq(lk, rk, defining, depth, st) and _eq(lval, rval, defining, depth, st)):
            return False
    return True


# --- equality: locating the first mismatch -------------------------------------------------------
# The reporting walks give the first mismatch in the order the reference walk (``_Equal``)
# visits: fields in order, and a length difference only after the common items compared equal.
# ``_find`` is the recursive one; ``_Equal`` is iterative (any depth) and carries the path of
# every step; it is also the bool answer for trees too deep for the fast walk.


def _find(lv, rv, defining, depth, st):
    """``None`` when equal, else ``(lhs_steps, rhs_steps)`` to the mismatch, innermost first."""
    if isinstance(lv, Node):
        if type(lv) is not type(rv):
            return [], []
        fields = _fields_of(lv)
        if lv._sequal_kind == "var":
            lhs_to_rhs = st[_L2R]
            mapped = lhs_to_rhs.get(id(lv))
            if mapped is not None:
                return None if mapped is rv else ([], [])
            if id(rv) in st[_R2L]:
                return [], []
            if not (defining or st[_MAP_FREE]):
                return None if lv is rv else ([], [])
            lhs_to_rhs[id(lv)] = rv
            st[_R2L][id(rv)] = lv
            defining = True
        if depth > _MAX_DEPTH:
            raise _TooDeep
        for name, is_def in fields:
            found = _find(
                getattr(lv, name, None), getattr(rv, name, None), defining or is_def, depth + 1, st
            )
            if found is not None:
                found[0].append(("attr", name))
                found[1].append(("attr", name))
                return found
        return None
    if _is_seq(lv):
        if not _is_seq(rv):
            return [], []
        if depth > _MAX_DEPTH:
            raise _TooDeep
        common = min(len(lv), len(rv))
        for i in range(common):
            found = _find(lv[i], rv[i], defining, depth + 1, st)
            if found is not None:
                found[0].append(("item", i))
                found[1].append(("item", i))
                return found
        if len(lv) > common:
            return [("item", common)], [("item_missing", common)]
        if len(rv) > common:
            return [("item_missing", common)], [("item", common)]
        return None
    if isinstance(lv, dict):
        if not isinstance(rv, dict) or len(lv) != len(rv):
            return [], []
        if depth > _MAX_DEPTH:
            raise _TooDeep
        for (lk, lval), (rk, rval) in zip(_dict_items(lv), _dict_items(rv)):
            found = _find(lk, rk, defining, depth + 1, st)
            if found is None:
                found = _find(lval, rval, defining, depth + 1, st)
            if found is not None:
                found[0].append(("map", lk))
                found[1].append(("map", rk))
                return found
        return None
    if isinstance(rv, (Node, tuple, list, dict)):
        return [], []
    return None if _leaf_equal(lv, rv, st[_SKIP_TENSOR]) else ([], [])


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
        for name, is_def in reversed(_fields_of(lv)):
            push(
                (
                    getattr(lv, name, None),
                    getattr(rv, name, None),
                    (lpath, "attr", name),
                    (rpath, "attr", name),
                    defining or is_def,
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


# --- equality: public API ---------------------------------------------------------------------


def structural_equal(lhs, rhs, map_free_vars: bool = False, skip_tensor_content: bool = False):
    """Whether two IR trees are structurally equal (alpha-equivalent at definition sites).

    Examples
    --------
    >>> from tvm.ffi.structural import structural_equal
    >>> structural_equal((1, "a"), (1, "a"))
    True
    """
    if lhs is rhs:
        # Any tree equals itself: each variable can only ever map to itself.
        return True
    try:
        return _eq(lhs, rhs, False, 0, ({}, {}, map_free_vars, skip_tensor_content))
    except (_TooDeep, RecursionError):
        pass
    return _Equal(map_free_vars, skip_tensor_content).run(lhs, rhs)


def first_mismatch_paths(lhs, rhs, map_free_vars=False, skip_tensor_content=False):
    """Like :func:`get_first_structural_mismatch` but returns the internal linked paths."""
    if lhs is rhs:
        return None
    try:
        found = _find(lhs, rhs, False, 0, ({}, {}, map_free_vars, skip_tensor_content))
    except (_TooDeep, RecursionError):
        eq = _Equal(map_free_vars, skip_tensor_content)
        return None if eq.run(lhs, rhs) else eq.mismatch
    if found is None:
        return None
    return _linked(found[0]), _linked(found[1])


def _linked(steps):
    """Steps listed innermost first -> the linked path ``(parent, kind, key)``."""
    path = None
    for kind, key in reversed(steps):
        path = (path, kind, key)
    return path


def get_first_structural_mismatch(lhs, rhs, map_free_vars: bool = False,
                                  skip_tensor_content: bool = False):
    """``None`` when equal, else the pair of ``AccessPath`` to the first differing place."""
    paths = first_mismatch_paths(lhs, rhs, map_free_vars, skip_tensor_content)
    if paths is None:
        return None
    lpath, rpath = paths
    return path_to_access_path(lpath), path_to_access_path(rpath)


# --- hashing ----------------------------------------------------------------------------------
# Both walks emit the same tokens in the same (pre-)order; the hash is that of the token tuple.
# A defined variable's token is its definition index, so alpha-renamed trees hash alike.


# The state of one hash, a tuple like the comparison's: where tokens go, the definition index
# of each variable met so far (by ``id``), a list keeping those variables alive, the flags.
_EMIT, _VAR_INDEX, _KEEP, _H_MAP_FREE, _H_SKIP_TENSOR = 0, 1, 2, 3, 4


def _hash_state(map_free_vars, skip_tensor_content, emit):
    return (emit, {}, [], map_free_vars, skip_tensor_content)


def _var_token(item, defining, st):
    """The token of a variable; ``True`` as second result when its fields must be hashed."""
    var_index = st[_VAR_INDEX]
    index = var_index.get(id(item))
    if index is not None:
        return ("var", index), False
    if defining or st[_H_MAP_FREE]:
        index = len(var_index)
        var_index[id(item)] = index
        st[_KEEP].append(item)
        return ("vardef", item.type_key, index), True
    return ("freevar", id(item)), False


def _hash_rec(value, defining, depth, st):
    cls = type(value)
    info = _INFO.get(cls) or _classify(cls)
    emit = st[_EMIT]
    if info.__class__ is tuple:  # a node class
        if info[1]:
            token, defines = _var_token(value, defining, st)
            emit(token)
            if not defines:
                return
            defining = True
        else:
            emit(info[2])
        if depth > _MAX_DEPTH:
            raise _TooDeep
        depth += 1
        for name, is_def in info[0]:
            sub = getattr(value, name, None)
            if type(sub) in _ATOM_TYPES:
                emit(sub)  # what the call would emit, without the call
            else:
                _hash_rec(sub, defining or is_def, depth, st)
    elif info == _ATOM:
        emit(value)
    elif info == _FLOAT:
        emit(_NAN if _isnan(value) else value)
    elif info == _SEQ or info == _DICT:
        items = value if info == _SEQ else _dict_items(value)
        emit(("seq" if info == _SEQ else "map", len(items)))
        if depth > _MAX_DEPTH:
            raise _TooDeep
        depth += 1
        for sub in items:
            if info == _SEQ:
                _hash_rec(sub, defining, depth, st)
            else:
                _hash_rec(sub[0], defining, depth, st)
                _hash_rec(sub[1], defining, depth, st)
    else:
        emit(_leaf_token(value, st[_H_SKIP_TENSOR]))


def _hash_iter(value, st):
    """The tokens of ``_hash_rec`` for trees of any depth (explicit stack)."""
    emit = st[_EMIT]
    stack = [(value, False)]
    pop = stack.pop
    push = stack.append
    while stack:
        item, defining = pop()
        info = _INFO.get(type(item)) or _classify(type(item))
        if info.__class__ is tuple:
            if info[1]:
                token, defines = _var_token(item, defining, st)
                emit(token)
                if not defines:
                    continue
                defining = True
            else:
                emit(info[2])
            for name, is_def in reversed(info[0]):
                push((getattr(item, name, None), defining or is_def))
        elif info == _ATOM:
            emit(item)
        elif info == _FLOAT:
            emit(_NAN if _isnan(item) else item)
        elif info == _SEQ:
            emit(("seq", len(item)))
            for sub in reversed(item):
                push((sub, defining))
        elif info == _DICT:
            items = _dict_items(item)
            emit(("map", len(items)))
            for key, sub in reversed(items):
                push((sub, defining))
                push((key, defining))
        else:
            emit(_leaf_token(item, st[_H_SKIP_TENSOR]))


def structural_hash(value, map_free_vars: bool = False, skip_tensor_content: bool = False) -> int:
    """A 64-bit hash consistent with :func:`structural_equal`.

    Variables hash by the order in which they are defined, so alpha-renamed trees hash alike.
    A free variable hashes by identity (or by order of first use with ``map_free_vars``).
    """
    tokens: list = []
    try:
        _hash_rec(value, False, 0, _hash_state(map_free_vars, skip_tensor_content, tokens.append))
    except (_TooDeep, RecursionError):
        tokens = []
        _hash_iter(value, _hash_state(map_free_vars, skip_tensor_content, tokens.append))
    return hash(tuple(tokens)) & _MASK64
