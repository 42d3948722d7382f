"""``PrimFunc``: a TIR function (parameters, buffer map, body, attributes).

A ``PrimFunc`` is a global function that an ``IRModule`` can hold beside Relax functions.
Parameters are ``tirx.Var``: scalars (``int32``...) or handles (``"handle"``) that
``buffer_map`` binds to ``Buffer`` views. For convenience (and Apache TVM 0.27 user code, where
buffers are parameters directly), a ``Buffer`` given as a parameter becomes a handle variable of
the same name mapped to that buffer.
"""

from __future__ import annotations

from ..ffi.node import DEF, field
from ..ir.attrs import DictAttrs
from ..ir.function import BaseFunc
from ..ir.type import FuncType, PointerType, PrimType, TupleType
from .buffer import Buffer
from .expr import Var
from .stmt import Stmt

__all__ = ["BufferMap", "PrimFunc"]


class BufferMap(tuple):
    """A read-only mapping ``{handle param: Buffer}`` stored as ``(param, buffer)`` pairs.

    It is a tuple so that structural equality compares entries in parameter order (a dict
    would be compared in name order, which breaks alpha-equivalence of renamed parameters).
    Lookups (``m[param]``, ``m.get``, ``in``) and ``keys``/``values``/``items`` behave like a
    dict's; iterating yields the ``(param, buffer)`` pairs, so ``dict(func.buffer_map)`` gives
    a plain dict.
    """

    __slots__ = ()

    def __new__(cls, mapping=(), params=None):
        items = list(mapping.items()) if isinstance(mapping, dict) else list(mapping)
        if params is not None:
            order = {id(p): i for i, p in enumerate(params)}
            items.sort(key=lambda kv: order.get(id(kv[0]), len(order)))
        return super().__new__(cls, (tuple(kv) for kv in items))

    def __getnewargs__(self):
        # Pickle and copy rebuild from the pairs.
        return (tuple(tuple.__iter__(self)),)

    def _find(self, key):
        for k, v in tuple.__iter__(self):
            if k is key:
                return v
        return _ABSENT

    def __getitem__(self, key):
        if isinstance(key, (int, slice)):  # tuple access, used by generic traversals
            return tuple.__getitem__(self, key)
        value = self._find(key)
        if value is _ABSENT:
            name = getattr(key, "name", key)
            raise KeyError(f"{name} is not a buffer parameter")
        return value

    def get(self, key, default=None):
        """The buffer of parameter ``key`` (a Var), or ``default``."""
        value = self._find(key)
        return default if value is _ABSENT else value

    def __contains__(self, key):
        return self._find(key) is not _ABSENT

    def keys(self):
        """The parameters that have a buffer, in parameter order."""
        return [k for k, _ in tuple.__iter__(self)]

    def values(self):
        """The buffers, in parameter order."""
        return [v for _, v in tuple.__iter__(self)]

    def items(self):
        """``(parameter, buffer)`` pairs, in parameter order."""
        return list(tuple.__iter__(self))

    def __repr__(self):
        inner = ", ".join(f"{k.name}: {v!r}" for k, v in self.items())
        return "{" + inner + "}"


_ABSENT = object()


class PrimFunc(BaseFunc, type_key="tirx.PrimFunc"):
    """A function of TIR statements.

    Parameters
    ----------
    params : list of Var or Buffer
        The parameters. A ``Buffer`` becomes a handle ``Var`` named like it, mapped to it.
    body : Stmt
        The body.
    ret_type : Type, optional
        The return type (``None``: returns nothing).
    buffer_map : dict, optional
        ``{handle param: Buffer}``.
    attrs : dict or DictAttrs, optional
        Function attributes (``global_symbol``, ``tirx.noalias``, ``s_tir``, ...).
    """

    params: tuple = field(role=DEF)
    buffer_map: BufferMap = field(role=DEF)
    body: Stmt
    ret_type: object = None
    attrs: object = None

    def __init__(self, params, body, ret_type=None, buffer_map=None, attrs=None, span=None):
        new_params = []
        bmap = dict(buffer_map.items()) if buffer_map else {}
        for p in params:
            if isinstance(p, Buffer):
                handle = Var(p.name, "handle")
                bmap[handle] = p
                p = handle
            if not isinstance(p, Var):
                raise TypeError(f"PrimFunc params must be tirx.Var or Buffer, got {type(p)}")
            new_params.append(p)
        for key in bmap:
            if not any(key is p for p in new_params):
                raise ValueError(
                    f"PrimFunc buffer_map key {key.name} is not a parameter of the function"
                )
        if not isinstance(body, Stmt):
            raise TypeError(f"PrimFunc body must be a Stmt, got {type(body).__name__}")
        if attrs is None:
            attrs = DictAttrs({})
        elif not isinstance(attrs, DictAttrs):
            attrs = DictAttrs(dict(attrs))
        bmap = BufferMap(bmap, new_params)
        self.__init_fields__(tuple(new_params), bmap, body, ret_type, attrs, span=span,
                             ty=_func_type(new_params, ret_type))

    # --- attributes ---------------------------------------------------------------------------
    def with_attr(self, attr_key_or_dict, attr_value=None) -> PrimFunc:
        """A copy with one attribute set (or several, given a dict)."""
        values = dict(self.attrs.values)
        if isinstance(attr_key_or_dict, dict):
            values.update(attr_key_or_dict)
        else:
            values[attr_key_or_dict] = attr_value
        return self._with(attrs=DictAttrs(values))

    def with_attrs(self, attr_map) -> PrimFunc:
        """A copy with every attribute of ``attr_map`` set."""
        return self.with_attr(dict(attr_map))

    def without_attr(self, attr_key) -> PrimFunc:
        """A copy without attribute ``attr_key``."""
        values = {k: v for k, v in self.attrs.values.items() if k != attr_key}
        return self._with(attrs=DictAttrs(values))

    def with_body(self, new_body, span=None) -> PrimFunc:
        """A copy with another body."""
        return self._with(body=new_body)

    def _with(self, **changes):
        func = self.replace(**changes)
        if func is not self and func.ty is None:
            # ``ty`` is derived; recompute it after replace() reset it (or reuse ours: it is
            # made from the parameters and return type alone, both immutable).
            same = func.params is self.params and func.ret_type is self.ret_type
            ty = self.ty if same and self.ty is not None else _func_type(func.params,
                                                                         func.ret_type)
            object.__setattr__(func, "ty", ty)
        return func

    def get_attr(self, key, default=None):
        """The function attribute ``key``, or ``default`` when it is not set."""
        return self.attrs.values.get(key, default)

    def specialize(self, param_map) -> PrimFunc:
        """Bind parameters to values: scalars to PrimExprs, handles to Buffers.

        A buffer bound to a handle parameter fixes the symbolic variables of the mapped buffer's
        shape; the bound parameters are removed.
        """
        # Lazy: the substitution functor sits above this module (it visits PrimFuncs).
        from .stmt_functor import specialize_prim_func

        return specialize_prim_func(self, param_map)

    def __repr__(self):
        name = self.attrs.values.get("global_symbol", "")
        return f"PrimFunc({name or '<anonymous>'}, params={[p.name for p in self.params]})"


def _func_type(params, ret_type):
    arg_types = []
    for p in params:
        ann = getattr(p, "type_annotation", None)
        if ann is not None:
            arg_types.append(ann)
        elif p.dtype == "handle":
            arg_types.append(PointerType(PrimType("void")))
        else:
            arg_types.append(PrimType(p.dtype))
    return FuncType(arg_types, ret_type if ret_type is not None else TupleType([]))
