"""``tvm.ir.save_json`` / ``tvm.ir.load_json``: IR graphs as JSON text.

The text is pytvm's own graph format (Apache TVM's JSON files, written by its C++ reflection,
are not read; a ``ValueError`` says so). It is deterministic: the same graph gives the same
text in any process, so it can be hashed or diffed. Shared nodes are written once and keep
their sharing (variables keep their identity across a function), so
``load_json(save_json(x))`` is structurally equal to ``x``.

Layout::

    {"format": "pytvm-ir-json", "version": 1, "root": <value>, "nodes": [<node>, ...]}

A node is ``{"type": "<type key>", "fields": [<value>, ...]}`` (its declared fields in
order), listed children first. A value is JSON ``null``/``true``/``false``/a string, or an
object: ``{"int": n}``, ``{"float": "repr"}``, ``{"node": index}``, ``{"tuple": [...]}``,
``{"list": [...]}``, ``{"dict": [[key, value], ...]}``, ``{"array": {"dtype", "shape",
"b64"}}`` for NumPy arrays
(``{"tensor": ...}`` the same for ``tvm.runtime.Tensor`` constants, rebuilt on the CPU), or ``{"reduce": "module:name", "args": [...]}`` for the few
objects rebuilt by a function of their own (operators looked up by name, enums); such a
function must live in the ``tvm`` package.
"""

from __future__ import annotations

import base64
import importlib
import json

import tvm_ffi

from ..ffi.node import Node, node_types

__all__ = ["load_json", "save_json"]

_FORMAT = "pytvm-ir-json"
_VERSION = 1


def save_json(node) -> str:
    """Serialize an IR object (and everything it references) to JSON text.

    Parameters
    ----------
    node : Node or container of nodes
        What to save: a function, module, expression, ...

    Returns
    -------
    str
        The JSON text (see the module doc for its layout).
    """
    writer = _Writer()
    root = writer.value(node)
    doc = {"format": _FORMAT, "version": _VERSION, "root": root, "nodes": writer.nodes}
    return json.dumps(doc, separators=(",", ":"), sort_keys=False)


def load_json(text: str):
    """Rebuild the object written by :func:`save_json`.

    Raises ``ValueError`` for text that is not this format (for example a JSON file written
    by Apache TVM).
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"load_json: not JSON text: {err}") from err
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise ValueError(
            "load_json: the text is not pytvm's IR JSON format (Apache TVM's JSON graphs "
            "are not supported)"
        )
    if doc.get("version") != _VERSION:
        raise ValueError(f"load_json: unsupported format version {doc.get('version')!r}")
    reader = _Reader(doc["nodes"])
    return reader.value(doc["root"])


class _Writer:
    def __init__(self):
        self.nodes: list = []
        self.index: dict = {}
        self.keep: list = []  # pins visited objects so their ids stay unique

    def value(self, v):
        if v is None or isinstance(v, bool):
            return v
        if isinstance(v, Node):
            return {"node": self.node(v)}
        if isinstance(v, int) and type(v) is int:
            return {"int": v}
        if isinstance(v, float) and type(v) is float:
            return {"float": repr(v)}
        if isinstance(v, str) and type(v) is str:
            return v
        if isinstance(v, str):  # a str subclass (tvm.DataType): kept as its text
            return str.__str__(v)
        if type(v) is tuple:
            return {"tuple": [self.value(x) for x in v]}
        if type(v) is list:
            return {"list": [self.value(x) for x in v]}
        if type(v) is dict:
            return {"dict": [[self.value(k), self.value(x)] for k, x in v.items()]}
        cls = type(v)
        if isinstance(v, tuple) and cls.__module__.startswith("tvm."):
            # A tuple type of the IR (a PrimFunc's BufferMap): rebuilt from its items.
            return {"reduce": f"{cls.__module__}:{cls.__qualname__}",
                    "args": [{"tuple": [self.value(x) for x in v]}]}
        return self.other(v)

    def node(self, n) -> int:
        hit = self.index.get(id(n))
        if hit is not None:
            return hit
        reduce = type(n).__reduce__
        if reduce is not Node.__reduce__:
            # A node rebuilt by its own function (an Op looked up by name): not a graph node.
            entry = self.reduced(n)
        else:
            # Children first; an explicit stack keeps deep expression chains off the C stack.
            stack = [(n, False)]
            while stack:
                cur, expanded = stack.pop()
                if id(cur) in self.index:
                    continue
                children = [getattr(cur, name) for name in cur._field_names]
                if not expanded:
                    stack.append((cur, True))
                    for child in reversed(_nodes_below(children)):
                        if id(child) not in self.index:
                            stack.append((child, False))
                    continue
                if type(cur).__reduce__ is not Node.__reduce__:
                    entry = self.reduced(cur)
                else:
                    entry = {"type": cur.type_key, "fields": [self.value(c) for c in children]}
                self._add(cur, entry)
            return self.index[id(n)]
        return self._add(n, entry)

    def _add(self, n, entry) -> int:
        self.index[id(n)] = len(self.nodes)
        self.keep.append(n)
        self.nodes.append(entry)
        return len(self.nodes) - 1

    def reduced(self, obj):
        func, args = obj.__reduce__()[:2]
        module = getattr(func, "__module__", "") or ""
        if not module.startswith("tvm.") and module != "tvm":
            raise TypeError(
                f"save_json cannot write {type(obj).__name__}: it is rebuilt by "
                f"{module}.{getattr(func, '__qualname__', func)!s}, outside the tvm package"
            )
        return {"reduce": f"{module}:{func.__qualname__}", "args": [self.value(a) for a in args]}

    def other(self, v):
        try:
            import numpy as np  # lazy: most graphs hold no arrays
        except ImportError:  # pragma: no cover - numpy is a dependency
            np = None
        if np is not None and isinstance(v, np.ndarray):
            data = np.ascontiguousarray(v)
            return {"array": {"dtype": str(data.dtype), "shape": list(data.shape),
                              "b64": base64.b64encode(data.tobytes()).decode("ascii")}}
        if np is not None and isinstance(v, np.generic):
            return self.value(v.item())
        if isinstance(v, tvm_ffi.Tensor):
            return {"tensor": self.other(v.numpy())["array"]}
        reduce = getattr(v, "__reduce_ex__", None)
        if reduce is not None:
            func, args = v.__reduce_ex__(2)[:2]
            module = getattr(func, "__module__", "") or ""
            if module == "tvm" or module.startswith("tvm."):
                return {"reduce": f"{module}:{func.__qualname__}",
                        "args": [self.value(a) for a in args]}
            if isinstance(v, _enum_type()):
                cls = type(v)
                return {"reduce": f"{cls.__module__}:{cls.__qualname__}",
                        "args": [self.value(v.value)]}
        raise TypeError(f"save_json cannot write a value of type {type(v).__name__}: {v!r}")


def _enum_type():
    import enum  # stdlib, lazy like the rest of the rare paths

    return enum.Enum


def _nodes_below(values) -> list:
    """Nodes directly inside ``values`` (through containers), in order."""
    found, stack = [], list(reversed(values))
    while stack:
        v = stack.pop()
        if isinstance(v, Node):
            found.append(v)
        elif isinstance(v, (tuple, list)):
            stack.extend(reversed(v))
        elif type(v) is dict:
            for k, x in reversed(list(v.items())):
                stack.append(x)
                stack.append(k)
    return found


class _Reader:
    def __init__(self, nodes):
        self.raw = nodes
        self.built: list = [None] * len(nodes)
        self.done = [False] * len(nodes)

    def value(self, v):
        if v is None or isinstance(v, (bool, str)):
            return v
        if not isinstance(v, dict) or len(v) == 0:
            raise ValueError(f"load_json: malformed value {v!r}")
        if "node" in v:
            return self.node(v["node"])
        if "int" in v:
            return int(v["int"])
        if "float" in v:
            return float(v["float"])
        if "tuple" in v:
            return tuple(self.value(x) for x in v["tuple"])
        if "list" in v:
            return [self.value(x) for x in v["list"]]
        if "dict" in v:
            return {self.value(k): self.value(x) for k, x in v["dict"]}
        if "array" in v:
            import numpy as np  # lazy: only graphs with arrays need it

            spec = v["array"]
            data = np.frombuffer(base64.b64decode(spec["b64"]), dtype=spec["dtype"])
            return data.reshape(spec["shape"]).copy()
        if "tensor" in v:
            from ..runtime import tensor  # lazy: only graphs with constants need it

            return tensor(self.value({"array": v["tensor"]}))
        if "reduce" in v:
            return self.reduced(v)
        raise ValueError(f"load_json: malformed value {v!r}")

    def reduced(self, v):
        module, _, name = v["reduce"].partition(":")
        if not (module == "tvm" or module.startswith("tvm.")):
            raise ValueError(f"load_json: refusing to call {v['reduce']} (outside tvm)")
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj(*(self.value(a) for a in v["args"]))

    def node(self, index: int):
        if not 0 <= index < len(self.raw):
            raise ValueError(f"load_json: node index {index} out of range")
        if self.done[index]:
            return self.built[index]
        entry = self.raw[index]
        if "reduce" in entry:
            result = self.reduced(entry)
        else:
            cls = node_types().get(entry.get("type"))
            if cls is None:
                raise ValueError(f"load_json: unknown node type {entry.get('type')!r}")
            # Children precede parents in the list, so this recursion is one level deep.
            result = cls._from_fields(*(self.value(x) for x in entry["fields"]))
        self.built[index] = result
        self.done[index] = True
        return result

