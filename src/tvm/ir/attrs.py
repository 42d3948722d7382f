"""Attribute nodes: ``Attrs`` (base of op attributes) and ``DictAttrs`` (function attributes).

Op attribute classes such as ``relax.attrs.MatmulAttrs`` are declared nodes deriving from
:class:`Attrs`, so they compare structurally and print with their field names. Function and
module attributes are a :class:`DictAttrs`, an immutable string-keyed mapping.
"""

from __future__ import annotations

from ..ffi.node import Node, node_types

__all__ = ["Attrs", "DictAttrs", "make_node"]


class Attrs(Node, type_key="ir.Attrs"):
    """Base class of op attribute nodes (declared fields, compared structurally)."""

    def keys(self):
        """The attribute (field) names."""
        return list(self._field_names)

    def __getitem__(self, key):
        if key not in self._field_names:
            raise KeyError(f"{self.type_key} has no attribute {key!r}")
        return getattr(self, key)

    def get_int(self, key):
        """The attribute ``key`` as an ``int``."""
        return int(self[key])

    def get_str(self, key):
        """The attribute ``key`` as a ``str``."""
        return str(self[key])

    def get_int_tuple(self, key):
        """The attribute ``key`` (a sequence) as a tuple of ``int``."""
        return tuple(int(v) for v in self[key])

    def __repr__(self):
        parts = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._field_names)
        return f"{self.type_key}({parts})"


class DictAttrs(Attrs, type_key="ir.DictAttrs"):
    """An immutable mapping from attribute names to values (function/module attributes).

    Examples
    --------
    >>> from tvm.ir import DictAttrs
    >>> attrs = DictAttrs({"global_symbol": "main"})
    >>> attrs["global_symbol"], "global_symbol" in attrs, len(attrs)
    ('main', True, 1)
    """

    values: dict

    def __init__(self, __dict__=None, **kwargs):
        values = dict(__dict__ or {})
        values.update(kwargs)
        for key in values:
            if not isinstance(key, str):
                raise TypeError(f"DictAttrs keys must be str, got {key!r}")
        self.__init_fields__(values)

    # A read-only Mapping interface over ``values``.
    def __getitem__(self, key):
        return self.values[key]

    def __contains__(self, key):
        return key in self.values

    def __iter__(self):
        return iter(self.values)

    def __len__(self):
        return len(self.values)

    def keys(self):
        """The attribute names."""
        return self.values.keys()

    def items(self):
        """``(name, value)`` pairs of the attributes."""
        return self.values.items()

    def get(self, key, default=None):
        """The attribute ``key``, or ``default`` when it is not set."""
        return self.values.get(key, default)

    def with_attr(self, key, value) -> DictAttrs:
        """A copy with ``key`` set to ``value``."""
        values = dict(self.values)
        values[key] = value
        return DictAttrs(values)

    def without_attr(self, key) -> DictAttrs:
        """A copy without ``key``."""
        values = dict(self.values)
        values.pop(key, None)
        return DictAttrs(values)

    def __repr__(self):
        # TVM 0.27 prints function attributes as TVMScript: a dict with sorted keys, arrays
        # (the torch frontend's ``params``) as ``metadata["ffi.Tensor"][i]`` references with
        # the "Metadata omitted" note, never their contents.
        # Lazy: the printer is in the ``script`` layer above ``ir`` (as for Scriptable).
        from tvm.script.printer import script as _script

        return _script(self)

    __str__ = __repr__


def make_node(type_key: str, **kwargs):
    """Build a registered node by type key from keyword fields (``make_node("ir.DictAttrs", ...)``)."""
    if type_key == "ir.DictAttrs" or type_key == "DictAttrs":
        return DictAttrs(kwargs)
    cls = node_types().get(type_key)
    if cls is None:
        raise ValueError(f"make_node: no node type is registered as {type_key!r}")
    return cls(**kwargs)
