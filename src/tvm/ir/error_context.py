"""Errors that carry the offending IR node, and their enrichment by pass executors (spec C.2-C.3).

A validator or an op rule that rejects IR seeds its exception with the node at fault:

>>> from tvm.ir.error_context import attach_node, error_node
>>> err = attach_node(ValueError("bad call"), "some node")
>>> error_node(err)
'some node'

The node travels as the attribute ``__tvm_node__`` of the exception object (so any exception
class works, including the builtin ``ValueError``/``TypeError``). Handlers further out may add
enclosing nodes with :func:`add_enclosing_node`: when the innermost node cannot be found in the
IR a pass was given (the normalizer rebuilt it, say), the nearest enclosing node that can be
found is underlined instead.

The three leaf pass executors (module pass, Relax function pass, Relax dataflow-block pass) call
:func:`enrich_pass_error` on what their pass raised. It appends the pass name and a TVMScript
rendering of the IR with the node underlined, and removes the payload, so an outer executor
(a module pass running other passes, a ``Sequential``) never enriches the same error twice. See
``docs/arch/errors.md``.
"""

from __future__ import annotations

from ..ffi.node import IGNORE, Node

__all__ = [
    "NODE_ATTR",
    "add_enclosing_node",
    "attach_node",
    "enrich_pass_error",
    "error_node",
    "find_node_path",
    "raise_with_node",
]

# The attribute of an exception holding the offending node; the enclosing nodes (innermost
# first) are under ``__tvm_enclosing_nodes__``.
NODE_ATTR = "__tvm_node__"
_ENCLOSING_ATTR = "__tvm_enclosing_nodes__"

# How many lines of TVMScript are shown above and below the underlined node (spec C.3).
NUM_CONTEXT_LINES = 10


def attach_node(exc: BaseException, node) -> BaseException:
    """Seed ``exc`` with the offending ``node`` unless it already names one; return ``exc``.

    The innermost handler knows the most precise node, so a node already attached is kept.
    """
    if getattr(exc, NODE_ATTR, None) is None:
        try:
            setattr(exc, NODE_ATTR, node)
        except (AttributeError, TypeError):
            pass  # an exception type with __slots__: it simply goes without context
    return exc


def raise_with_node(exc: BaseException, node):
    """Raise ``exc`` seeded with the offending ``node`` (see :func:`attach_node`)."""
    raise attach_node(exc, node)


def add_enclosing_node(exc: BaseException, node) -> BaseException:
    """Record ``node`` as enclosing the error's node (used when that one cannot be located)."""
    if getattr(exc, NODE_ATTR, None) is None:
        return attach_node(exc, node)
    try:
        chain = exc.__dict__.setdefault(_ENCLOSING_ATTR, [])
    except AttributeError:
        return exc
    chain.append(node)
    return exc


def error_node(exc: BaseException):
    """The node ``exc`` was seeded with, or ``None``."""
    return getattr(exc, NODE_ATTR, None)


def _clear_payload(exc: BaseException) -> None:
    for name in (NODE_ATTR, _ENCLOSING_ATTR):
        exc.__dict__.pop(name, None)


def _children(value):
    """``(kind, key, child)`` for the IR values directly under ``value``, in field order."""
    if isinstance(value, Node):
        for fobj in value._fields:
            if fobj.role != IGNORE:
                yield "attr", fobj.name, getattr(value, fobj.name, None)
    elif isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            yield "item", index, item
    elif isinstance(value, dict):
        for key, item in value.items():
            yield "map", key, item


def find_node_path(root, node):
    """The first access path (an internal linked path) from ``root`` to ``node``, or ``None``.

    The search is a pre-order walk over non-ignored fields in declaration order; nodes are
    compared by identity and each shared sub-tree is searched once.
    """
    if root is node:
        return ()
    seen = set()
    stack = [(root, None)]
    while stack:
        value, path = stack.pop()
        pending = []
        for kind, key, child in _children(value):
            child_path = (path, kind, key)
            if child is node:
                return child_path
            if isinstance(child, (Node, tuple, list, dict)) and id(child) not in seen:
                seen.add(id(child))
                pending.append((child, child_path))
        pending.reverse()
        stack.extend(pending)
    return None


def _locate(exc, roots):
    """The first ``(root, path)`` where the error's node (or an enclosing one) is found."""
    candidates = [getattr(exc, NODE_ATTR, None), *exc.__dict__.get(_ENCLOSING_ATTR, ())]
    for root in roots:
        for node in candidates:
            if node is None:
                continue
            path = find_node_path(root, node)
            if path is not None:
                return root, path
    return None


def _render(root, path) -> str:
    # Lazy: the printer lives in the ``script`` layer, above every IR layer.
    from tvm.script.printer import script

    if path == ():
        path = None  # the root itself: underline the whole object
    return script(
        root,
        path_to_underline=[path] if path is not None else None,
        obj_to_underline=[root] if path is None else None,
        num_context_lines=NUM_CONTEXT_LINES,
        extra_config={"render_invisible_path_info": True},
    )


def _with_message(exc: BaseException, message: str) -> BaseException:
    """``exc`` showing ``message``: the same object when its text is its single argument."""
    args = exc.args
    if type(exc).__str__ is BaseException.__str__ and len(args) == 1 and isinstance(args[0], str):
        exc.args = (message,)
        return exc
    try:
        new = type(exc)(message)
    except Exception:  # noqa: BLE001 - a class that can't be rebuilt keeps its own message
        return exc
    new.__cause__, new.__context__ = exc.__cause__, exc.__context__
    new.__suppress_context__ = exc.__suppress_context__
    return new.with_traceback(exc.__traceback__)


def enrich_pass_error(exc: BaseException, mod, pass_name: str, gvar=None) -> BaseException:
    """Add the pass name and an underlined TVMScript location to an error seeded with a node.

    Parameters
    ----------
    exc : BaseException
        What the pass raised.
    mod : IRModule
        The module as it was given to the pass.
    pass_name : str
    gvar : GlobalVar, optional
        The function being processed (function and dataflow-block passes): its function is
        searched (and rendered) first, the whole module second.

    Returns
    -------
    BaseException
        ``exc`` itself when it carries no node or the node is not in ``mod`` (unchanged).
        Otherwise an error of the same class (usually the same object) whose message ends with
        ``"\\n\\nError in pass: <name>\\nLocation (TVMScript):\\n<script>"`` and which no longer
        carries a node, so it is never enriched twice. Never raises.
    """
    try:
        if getattr(exc, NODE_ATTR, None) is None:
            return exc
        roots = []
        if gvar is not None:
            func = mod.functions.get(gvar)
            if func is not None:
                roots.append(func)
        roots.append(mod)
        found = _locate(exc, roots)
        if found is None:
            return exc
        rendered = _render(*found)
        original = str(exc)
        message = f"{original}\n\nError in pass: {pass_name}\nLocation (TVMScript):\n{rendered}"
        new = _with_message(exc, message)
        _clear_payload(exc)
        if new is not exc:
            _clear_payload(new)
        return new
    except Exception:  # noqa: BLE001 - enrichment is best effort and must never mask the error
        return exc
