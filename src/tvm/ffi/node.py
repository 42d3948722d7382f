"""Declared IR nodes: plain Python classes whose fields are declared once, with a role.

Every IR node class in the project (PrimExpr, relax expressions, types, statements, ...)
derives from :class:`Node`. A class declares its fields as annotated class attributes::

    class Call(Expr, type_key="relax.expr.Call"):
        op: Expr
        args: tuple
        attrs: object = None
        name_hint: str = field(default="", role=IGNORE)

The declaration drives structural equality and hashing (``tvm.ffi.structural``), generic
traversal (:func:`iter_fields`, :func:`walk`), copying and :meth:`Node.replace`.

Field roles
-----------
``USE``
    An ordinary child: compared, hashed and traversed.
``DEF``
    A definition site: variables met inside this field are *bound* here, so structural
    equality maps them alpha-equivalently (function parameters, binding variables).
``IGNORE``
    Not part of the node's structural identity (spans, name hints).

A field flagged ``derived=True`` is recomputed by its owner (an inferred type, say):
:meth:`Node.replace` resets it to its default when any other field changes.

Nodes are immutable after construction. The one escape hatch is :func:`set_field`, used by
normalizers that fill a derived field exactly once.

Nodes use identity for ``==`` and ``hash`` (like TVM's ``ObjectRef``), so they work as dict
keys. Subclasses such as PrimExpr may override the operators.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = [
    "DEF",
    "IGNORE",
    "USE",
    "Field",
    "Node",
    "NodeMeta",
    "field",
    "iter_children",
    "iter_fields",
    "node_types",
    "set_field",
    "walk",
]

USE = "use"
DEF = "def"
IGNORE = "ignore"

_MISSING = object()
_object_setattr = object.__setattr__

#: Every registered node class by type key.
_NODE_TYPES: dict[str, type] = {}


class Field:
    """One declared field of a node class."""

    __slots__ = ("default", "derived", "doc", "kw_only", "name", "role")

    def __init__(self, name, role=USE, default=_MISSING, derived=False, kw_only=False, doc=None):
        if role not in (USE, DEF, IGNORE):
            raise ValueError(f"field role must be one of 'use', 'def', 'ignore', got {role!r}")
        self.name = name
        self.role = role
        self.default = default
        self.derived = derived
        self.kw_only = kw_only
        self.doc = doc

    @property
    def has_default(self) -> bool:
        """Whether the field declares a default value (it may be omitted in the constructor)."""
        return self.default is not _MISSING

    def __repr__(self):
        extra = "" if self.default is _MISSING else f", default={self.default!r}"
        return f"Field({self.name!r}, role={self.role!r}{extra})"


def field(default=_MISSING, *, role=USE, derived=False, kw_only=False, doc=None) -> Any:
    """Declare a field with a role or options; used as the class attribute's value."""
    if isinstance(default, (list, dict, set)):
        raise TypeError("a node field default must be immutable (use a tuple or None)")
    return Field(None, role, default, derived, kw_only, doc)


def _is_classvar(annotation) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


class NodeMeta(type):
    """Builds ``__slots__`` and the field initializer from the annotated class body."""

    def __new__(mcls, name, bases, ns, type_key=None, **kwargs):
        annotations = ns.get("__annotations__", {})
        own: list[Field] = []
        for fname, ann in annotations.items():
            if fname.startswith("_") or _is_classvar(ann):
                continue
            value = ns.pop(fname, _MISSING)
            if isinstance(value, Field):
                fobj = value
                fobj.name = fname
            else:
                if isinstance(value, (list, dict, set)):
                    raise TypeError(
                        f"{name}.{fname}: a node field default must be immutable "
                        "(use a tuple or None)"
                    )
                fobj = Field(fname, USE, value)
            own.append(fobj)

        inherited: list[Field] = []
        for base in bases:
            for fobj in getattr(base, "_fields", ()):
                if all(f.name != fobj.name for f in inherited):
                    inherited.append(fobj)
        own_names = {f.name for f in own}
        slots = [f.name for f in own if all(b.name != f.name for b in inherited)]
        merged = [f for f in inherited if f.name not in own_names]
        # A redeclared field replaces the inherited one in place (keeps positional order).
        for fobj in own:
            for i, base_f in enumerate(inherited):
                if base_f.name == fobj.name:
                    merged.insert(min(i, len(merged)), fobj)
                    break
            else:
                merged.append(fobj)
        # Keyword-only fields (span, inferred types) go after every positional one.
        ordered = [f for f in merged if not f.kw_only] + [f for f in merged if f.kw_only]

        extra_slots = ns.pop("__slots__", ())
        if isinstance(extra_slots, str):
            extra_slots = (extra_slots,)
        ns["__slots__"] = tuple(slots) + tuple(extra_slots)
        ns["_fields"] = tuple(ordered)
        cls = super().__new__(mcls, name, bases, ns, **kwargs)
        cls._field_names = tuple(f.name for f in ordered)
        cls._field_set = frozenset(cls._field_names)
        cls._copy_with = _make_copier(cls, ordered)
        cls.__init_fields__ = _make_initializer(cls, ordered)
        if type_key is not None:
            cls.type_key = type_key
            _NODE_TYPES[type_key] = cls
        elif "type_key" not in ns:
            cls.type_key = f"{cls.__module__}.{name}"
        return cls


def _make_copier(cls, fields):
    """Generate ``_copy_with(self, changes)``: a copy with the fields in ``changes`` replaced,
    derived fields (with a default) reset, the others shared; for ``replace`` (one straight
    line per field rather than a loop: mutators copy a node for every changed child)."""
    env: dict[str, Any] = {"_set": _object_setattr, "_new": object.__new__, "_M": _MISSING,
                           "_cls": cls}
    body = ["    get = changes.get", "    obj = _new(_cls)"]
    for i, fobj in enumerate(fields):
        if fobj.derived and fobj.has_default:
            env[f"_d{i}"] = fobj.default
            keep = f"_d{i}"
        else:
            keep = f"self.{fobj.name}"
        body.append(f"    v = get({fobj.name!r}, _M)")
        body.append(f"    _set(obj, {fobj.name!r}, {keep} if v is _M else v)")
    src = "def _copy_with(self, changes):\n" + "\n".join(body) + "\n    return obj"
    exec(src, env)  # noqa: S102 - generated from declared field names only
    return env["_copy_with"]


def _make_initializer(cls, fields):
    """Generate ``__init_fields__(self, a, b, c=default)`` for speed (no per-call loops)."""
    params = []
    body = []
    env: dict[str, Any] = {"_set": _object_setattr}
    seen_default = False
    for i, fobj in enumerate(fields):
        if fobj.has_default:
            env[f"_d{i}"] = fobj.default
            params.append(f"{fobj.name}=_d{i}")
            seen_default = True
        elif seen_default or fobj.kw_only:
            # A required field after a defaulted one must be passed by keyword.
            env[f"_d{i}"] = _MISSING
            params.append(f"{fobj.name}=_d{i}")
            body.append(
                f"    if {fobj.name} is _d{i}: raise TypeError("
                f"'{cls.__name__}() missing required argument: {fobj.name}')"
            )
        else:
            params.append(fobj.name)
        body.append(f"    _set(self, {fobj.name!r}, {fobj.name})")
    src = f"def __init_fields__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass")
    if not fields:
        src = "def __init_fields__(self):\n    pass"
    exec(src, env)  # noqa: S102 - generated from declared field names only
    return env["__init_fields__"]


class Node(metaclass=NodeMeta):
    """Base class of every declared IR node."""

    __slots__ = ("__weakref__",)
    _fields: tuple = ()
    _field_names: tuple = ()
    #: How structural equality treats the node: "tree" compares fields; "var" makes the node
    #: a variable that is matched alpha-equivalently at definition sites.
    _sequal_kind = "tree"

    def __init__(self, *args, **kwargs):
        self.__init_fields__(*args, **kwargs)

    def __setattr__(self, name, value):
        raise AttributeError(
            f"{type(self).__name__} is immutable; use .replace({name}=...) to make a changed copy"
        )

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is immutable")

    # --- construction helpers -------------------------------------------------------------
    @classmethod
    def _from_fields(cls, *values):
        """Make a node from its field values in declared order, bypassing custom ``__init__``."""
        obj = object.__new__(cls)
        for name, value in zip(cls._field_names, values):
            _object_setattr(obj, name, value)
        return obj

    def replace(self, **changes):
        """Return a copy with some fields changed, or ``self`` if every value is identical."""
        # Why the precomputed tables: mutators call this once per visited node, mostly
        # with nothing changed, so the checks run in one loop without per-call setup.
        cls = type(self)
        fields = cls._field_set
        same = True
        for key, value in changes.items():
            if key not in fields:
                raise TypeError(
                    f"{cls.__name__} has no field {key!r}; fields are {cls._field_names}"
                )
            if same and getattr(self, key) is not value:
                same = False
        if same:
            return self
        return cls._copy_with(self, changes)

    def same_as(self, other) -> bool:
        """Identity comparison, as in TVM."""
        return self is other

    def __copy__(self):
        return type(self)._from_fields(*(getattr(self, n) for n in self._field_names))

    def __reduce__(self):
        # Flattened into a table so pickling a very deep tree never recurses deeply.
        return (_rebuild_flat, (_flatten(self),))

    def __deepcopy__(self, memo):
        import copy  # only needed here

        result = _rebuild_flat(_flatten(self), lambda leaf: copy.deepcopy(leaf, memo))
        memo[id(self)] = result
        return result

    # --- generic display ------------------------------------------------------------------
    def __repr__(self):
        # Nested nodes print in full only a few levels deep, so deep trees neither recurse
        # without bound nor build huge strings.
        if _REPR_DEPTH[0] >= _REPR_MAX_DEPTH:
            return f"{type(self).__name__}(...)"
        _REPR_DEPTH[0] += 1
        try:
            parts = []
            for fobj in self._fields:
                if fobj.role == IGNORE and fobj.name == "span":
                    continue
                value = getattr(self, fobj.name, None)
                text = _short_repr(value)
                parts.append(f"{fobj.name}={text}")
            return f"{type(self).__name__}({', '.join(parts)})"
        finally:
            _REPR_DEPTH[0] -= 1


_REPR_DEPTH = [0]
_REPR_MAX_DEPTH = 4


def _short_repr(value, limit=60):
    if isinstance(value, Node):
        text = object.__repr__(value) if len(value._fields) > 3 else repr(value)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _rebuild(type_key, values):
    return _NODE_TYPES[type_key]._from_fields(*values)


# --- deep-safe pickling -------------------------------------------------------------------------
# ``Node.__reduce__`` encodes the node's subtree as a flat table (children before parents), so
# pickle and deepcopy see a shallow structure whatever the tree depth. Nodes deeper than
# ``_CHUNK_DEPTH`` below the root are left as references that pickle reduces in turn (one
# more shallow table each), bounding the size of one table's walk and pickle's own nesting.
# Variables (``_sequal_kind == "var"``), nodes with ``_pickle_by_reference = True`` and nodes
# with their own ``__reduce__`` are always references, so pickle's memo keeps their identity
# across the whole pickled object; other shared subtrees keep their sharing within a table.
_CHUNK_DEPTH = 256


def _by_reference(value) -> bool:
    cls = type(value)
    return (
        value._sequal_kind == "var"
        or getattr(cls, "_pickle_by_reference", False)
        or cls.__reduce__ is not Node.__reduce__
    )


def _flatten(root):
    """The table ``[(tag, payload), ...]`` describing ``root``'s subtree; root is last."""
    table: list = []
    index_of: dict[int, int] = {}
    keep = []  # holds visited containers so their ids stay unique during the walk

    def ref(value):
        # Called only once the children of ``value`` are in the table.
        return ("r", index_of[id(value)]) if id(value) in index_of else ("v", value)

    def inline(value, depth):
        if isinstance(value, Node):
            return depth == 0 or (depth < _CHUNK_DEPTH and not _by_reference(value))
        return type(value) in (tuple, list, dict) and depth < _CHUNK_DEPTH

    stack = [(root, 0, False)]
    while stack:
        value, depth, expanded = stack.pop()
        if id(value) in index_of:
            continue
        if isinstance(value, Node):
            children = [getattr(value, n) for n in value._field_names]
        elif isinstance(value, dict):
            children = [item for pair in value.items() for item in pair]
        else:
            children = list(value)
        if not expanded:
            stack.append((value, depth, True))
            for child in reversed(children):
                if inline(child, depth + 1) and id(child) not in index_of:
                    stack.append((child, depth + 1, False))
            continue
        refs = [ref(child) for child in children]
        if isinstance(value, Node):
            entry = ("n", (value.type_key, refs))
        elif isinstance(value, dict):
            entry = ("d", refs)
        else:
            entry = ("t" if type(value) is tuple else "l", refs)
        index_of[id(value)] = len(table)
        keep.append(value)
        table.append(entry)
    return table


def _rebuild_flat(table, map_leaf=None):
    """Inverse of :func:`_flatten`; ``map_leaf`` transforms each non-inlined value (deepcopy)."""
    built: list = []
    for tag, payload in table:
        refs = payload[1] if tag == "n" else payload
        if map_leaf is None:
            values = [built[i] if kind == "r" else i for kind, i in refs]
        else:
            values = [built[i] if kind == "r" else map_leaf(i) for kind, i in refs]
        if tag == "n":
            built.append(_NODE_TYPES[payload[0]]._from_fields(*values))
            continue
        if tag == "t":
            built.append(tuple(values))
        elif tag == "l":
            built.append(values)
        else:
            built.append(dict(zip(values[0::2], values[1::2])))
    return built[-1]


def set_field(node: Node, name: str, value) -> None:
    """Set a field of a node in place. Only for filling a derived field exactly once."""
    _object_setattr(node, name, value)


def node_types() -> dict:
    """All registered node classes, keyed by type key."""
    return dict(_NODE_TYPES)


def iter_fields(node: Node, roles=(USE, DEF)) -> Iterator[tuple[Field, Any]]:
    """Yield ``(field, value)`` for the node's fields whose role is in ``roles``."""
    for fobj in node._fields:
        if fobj.role in roles:
            yield fobj, getattr(node, fobj.name, None)


def iter_children(value) -> Iterator[Node]:
    """Yield the nodes directly under ``value`` (a node, or a tuple/list/dict of them)."""
    if isinstance(value, Node):
        for fobj in value._fields:
            if fobj.role != IGNORE:
                yield from _nodes_in(getattr(value, fobj.name, None))
    else:
        yield from _nodes_in(value)


def _nodes_in(value):
    if isinstance(value, Node):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _nodes_in(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes_in(key)
            yield from _nodes_in(item)


def walk(root, children=None, unique: bool = False) -> Iterator[Node]:
    """Pre-order traversal of every node reachable through non-ignored fields.

    Iterative, so arbitrarily deep trees do not hit the recursion limit. A node reachable by
    several paths is visited once per path, or once in all with ``unique`` (a DAG is then
    walked in linear time). ``children(node)``, when given, returns the values to descend
    into instead of the node's fields (``()`` to go no deeper), or None for the fields.
    """
    stack = [root]
    seen = set() if unique else None
    while stack:
        value = stack.pop()
        if isinstance(value, Node):
            if seen is not None:
                if id(value) in seen:
                    continue
                seen.add(id(value))
            yield value
            below = children(value) if children is not None else None
            below = list(iter_children(value) if below is None else _nodes_in(list(below)))
        elif isinstance(value, (tuple, list, dict)):
            below = list(_nodes_in(value))
        else:
            continue
        below.reverse()
        stack.extend(below)
