"""Map access paths to docs: which docs to underline or annotate for given IR paths.

A requested path is matched against the docs' ``source_paths``: the docs whose path is the
longest prefix of the request are chosen ("the nearest visible parent"). Map keys compare by
name, so a ``GlobalVar`` key and the function's name string select the same function.
"""

from __future__ import annotations

import warnings

from .doc import Doc, StmtDoc
from .ir_docsifier import path_steps

__all__ = [
    "NOTE_NONE",
    "NOTE_PARENT",
    "annotate_paths",
    "format_path_text",
    "match_paths",
    "to_steps",
]

NOTE_PARENT = "Note: The underlined object is the nearest visible parent of this path."
NOTE_NONE = "Note: No visible object for this path is rendered in TVMScript."

_FFI_KINDS = {0: "attr", 1: "item", 2: "map", 3: "attr_missing", 4: "item_missing",
              5: "map_missing"}


def to_steps(path) -> tuple:
    """Steps of an ``AccessPath``, of an internal linked path, or of our printer path."""
    if hasattr(path, "to_steps"):
        return tuple((_FFI_KINDS.get(s.kind, str(s.kind)), s.key) for s in path.to_steps())
    if path is None:
        return ()
    return path_steps(path)


def format_path_text(path) -> str:
    """``<root>.body.blocks[0]...`` as TVM prints access paths.

    Parameters
    ----------
    path : AccessPath, internal linked path or printer path
        An ``AccessPath`` (anything with ``to_steps``) prints as ``str(path)``.

    Returns
    -------
    str
    """
    if hasattr(path, "to_steps"):
        return str(path)
    # One formatter for paths: the structural-equality one (its root is None, ours is ()).
    from ...ffi.structural import format_path

    linked = None
    for kind, key in path_steps(path) if path else ():
        linked = (linked, kind, key)
    return format_path(linked)


def _key_norm(step):
    kind, key = step
    if kind in ("map", "map_missing"):
        name = getattr(key, "name_hint", None)
        return (kind, name if isinstance(name, str) else str(key))
    return (kind, key)


_DOC_SLOTS: dict = {}


def _doc_slots(cls):
    slots = _DOC_SLOTS.get(cls)
    if slots is None:
        slots = tuple(
            slot for klass in cls.__mro__ for slot in getattr(klass, "__slots__", ())
            if slot not in ("source_paths", "comment")
        )
        _DOC_SLOTS[cls] = slots
    return slots


def _iter_docs(root):
    """Every doc in the tree with its parent doc (iterative)."""
    stack = [(root, None)]
    while stack:
        doc, parent = stack.pop()
        yield doc, parent
        for slot in _doc_slots(type(doc)):
            value = getattr(doc, slot, None)
            if isinstance(value, Doc):
                stack.append((value, doc))
            elif isinstance(value, list):
                stack.extend((v, doc) for v in value if isinstance(v, Doc))


def _path_index(root):
    """``normalized steps -> [docs]`` for every doc with a source path."""
    index: dict[tuple, list] = {}
    cache: dict[int, tuple] = {}

    def key_of(path):
        # Linked paths share parents: normalize each parent once.
        if not path:
            return ()
        found = cache.get(id(path))
        if found is None:
            parent, kind, key = path
            found = key_of(parent) + (_key_norm((kind, key)),)
            cache[id(path)] = found
        return found

    for doc, _ in _iter_docs(root):
        for path in doc.source_paths:
            index.setdefault(key_of(path), []).append(doc)
    return index


def match_paths(root, requests):
    """Docs to underline (ids) and one note per request (nearest visible parent rule)."""
    if not requests:
        return set(), []
    index = _path_index(root)
    marked, notes = set(), []
    for steps in requests:
        key = tuple(_key_norm(s) for s in steps)
        for k in range(len(key), -1, -1):
            docs = index.get(key[:k])
            if docs:
                marked.update(id(doc) for doc in docs)
                notes.append(None if k == len(key) else NOTE_PARENT)
                break
        else:
            notes.append(NOTE_NONE)
    return marked, notes


def annotate_paths(root, annotations):
    """Attach comments to the statements rendering exactly the annotated paths.

    As in TVM, only a statement can carry an annotation; a path that renders as an expression
    gives a warning and no comment.
    """
    index = _path_index(root)
    for steps, text in annotations:
        key = tuple(_key_norm(s) for s in steps)
        docs = index.get(key, [])
        stmts = [doc for doc in docs if isinstance(doc, StmtDoc)]
        if not stmts:
            kind = type(docs[0]).__name__ if docs else "nothing"
            warnings.warn(
                f"path_to_annotate/obj_to_annotate: expected a statement at {key}, "
                f"got {kind}; the annotation {text!r} is not printed",
                stacklevel=4,
            )
            continue
        doc = stmts[0]
        doc.comment = f"{doc.comment}, {text}" if doc.comment else str(text)
