"""``PrimFunc``: a TIR function (parameters, buffer map, body, attributes).

A ``PrimFunc`` is a global function that an ``IRModule`` can hold beside Relax functions.

Parameters, as users see them (Apache TVM 0.27: "params are buffers"): ``func.params`` lists
each buffer parameter as its ``Buffer`` (``def f(A: T.Buffer(...))``, or a handle that the body
binds at its top with ``T.match_buffer``) and each other parameter as its ``tirx.Var``
(scalars such as ``n: T.int32``, or a bare ``T.handle``).

Inside pytvm a buffer parameter is still stored as a handle ``Var`` that ``buffer_map`` binds
to the ``Buffer``: ``func.param_vars`` is that handle-level list (what lowering and code
generators read). ``buffer_map`` also accepts the ``Buffer`` itself as a key, so
``func.buffer_map.get(p)`` works for an entry of either list.
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

    A key may also be the ``Buffer`` itself (as ``PrimFunc.params`` lists buffer parameters):
    ``m[buf]`` is then ``buf`` when it is one of the mapped buffers.

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
        if isinstance(key, Buffer):
            # A buffer parameter as ``PrimFunc.params`` lists it: its own entry.
            for v in self.values():
                if v is key:
                    return v
        return _ABSENT

    def handle_of(self, key):
        """The handle ``Var`` bound to ``key`` (a handle param or its Buffer), or ``None``."""
        for k, v in tuple.__iter__(self):
            if k is key or v is key:
                return k
        return None

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
        The parameters. A ``Buffer`` is stored as a handle ``Var`` named like it, mapped to it
        (the key of ``buffer_map`` that already maps to that Buffer, when there is one).
    body : Stmt
        The body.
    ret_type : Type, optional
        The return type (``None``: returns nothing).
    buffer_map : dict, optional
        ``{handle param: Buffer}`` (pytvm's; 0.27 has no such argument). Attributes given in
        this position (0.27's ``PrimFunc(params, body, ret_type, attrs)``) are taken as
        ``attrs``.
    attrs : dict or DictAttrs, optional
        Function attributes (``global_symbol``, ``tirx.noalias``, ``s_tir``, ...).
    """

    __slots__ = ("_params_view",)  # the cached ``params`` tuple

    param_vars: tuple = field(role=DEF)
    buffer_map: BufferMap = field(role=DEF)
    body: Stmt
    ret_type: object = None
    attrs: object = None

    def __init__(self, params, body, ret_type=None, buffer_map=None, attrs=None, span=None):
        if attrs is None and _looks_like_attrs(buffer_map):
            # TVM 0.27's signature is ``PrimFunc(params, body, ret_type, attrs, span)``.
            buffer_map, attrs = None, buffer_map
        new_params, bmap = _param_vars(params, buffer_map)
        if not isinstance(body, Stmt):
            raise TypeError(f"PrimFunc body must be a Stmt, got {type(body).__name__}")
        if attrs is None:
            attrs = DictAttrs({})
        elif not isinstance(attrs, DictAttrs):
            attrs = DictAttrs(dict(attrs))
        self.__init_fields__(new_params, bmap, body, ret_type, attrs, span=span,
                             ty=_func_type(new_params, ret_type))

    # --- parameters -------------------------------------------------------------------------
    @property
    def params(self) -> tuple:
        """The parameters as Apache TVM 0.27 lists them: a buffer parameter is its ``Buffer``,
        any other parameter its ``Var`` (see ``param_vars`` for the handle-level list)."""
        try:
            return self._params_view
        except AttributeError:
            pass
        view = self.param_vars
        if self.buffer_map:
            view = tuple(self.buffer_map.get(p, p) for p in self.param_vars)
        # Cached (both fields are immutable) so that ``f.params is f.params``, as for a field.
        object.__setattr__(self, "_params_view", view)
        return view

    def replace(self, **changes):
        """A copy with some fields changed; ``params`` (Vars or Buffers, as ``params`` lists
        them) is accepted beside the stored ``param_vars``."""
        if "params" in changes:
            if "param_vars" in changes:
                raise TypeError("PrimFunc.replace: give params or param_vars, not both")
            bmap = changes.get("buffer_map", self.buffer_map)
            new_params, new_map = _param_vars(changes.pop("params"), bmap)
            changes["param_vars"] = new_params
            changes["buffer_map"] = new_map
        return super().replace(**changes)

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
            same = func.param_vars is self.param_vars and func.ret_type is self.ret_type
            ty = self.ty if same and self.ty is not None else _func_type(func.param_vars,
                                                                         func.ret_type)
            object.__setattr__(func, "ty", ty)
        return func

    def get_attr(self, key, default=None):
        """The function attribute ``key``, or ``default`` when it is not set."""
        return self.attrs.values.get(key, default)

    def specialize(self, param_map) -> PrimFunc:
        """Bind parameters to values: scalars to PrimExprs, buffer parameters to Buffers.

        Keys are entries of ``params`` (a buffer parameter's ``Buffer``, or a ``Var``) or of
        ``param_vars`` (the handle). A buffer bound to a buffer parameter fixes the symbolic
        variables of that parameter's shape; bound scalar parameters are removed.
        """
        # Lazy: the substitution functor sits above this module (it visits PrimFuncs).
        from .stmt_functor import specialize_prim_func

        return specialize_prim_func(self, param_map)

    def __repr__(self):
        name = self.attrs.values.get("global_symbol", "")
        return f"PrimFunc({name or '<anonymous>'}, params={[p.name for p in self.params]})"


def _looks_like_attrs(value) -> bool:
    """Whether a 4th positional argument is attributes (0.27's order), not a buffer map."""
    if isinstance(value, DictAttrs):
        return True
    return isinstance(value, dict) and bool(value) and all(isinstance(k, str) for k in value)


def _param_vars(params, buffer_map):
    """``(param_vars, BufferMap)`` for parameters given as Vars and/or Buffers."""
    bmap = dict(buffer_map.items()) if buffer_map else {}
    handle_of = {id(buf): key for key, buf in bmap.items()}
    new_params = []
    for p in params:
        if isinstance(p, Buffer):
            handle = handle_of.get(id(p))
            if handle is None or any(handle is q for q in new_params):
                handle = Var(p.name, "handle")
                bmap[handle] = p
            p = handle
        if not isinstance(p, Var):
            raise TypeError(
                f"PrimFunc params must be tirx.Var or Buffer, got {type(p).__name__}"
            )
        new_params.append(p)
    for key in bmap:
        if not any(key is p for p in new_params):
            raise ValueError(
                f"PrimFunc buffer_map key {key.name} is not a parameter of the function"
            )
    return tuple(new_params), BufferMap(bmap, new_params)


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
