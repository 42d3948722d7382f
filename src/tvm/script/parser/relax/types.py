"""Type annotations of Relax TVMScript: ``R.Tensor``, ``R.Shape``, ``R.Tuple``, ``R.Prim``...

Each constructor returns a ``relax`` type directly. Symbolic dimensions given as strings
(``R.Tensor(("n", 4))``), as ``typing.TypeVar`` objects (the printer's ``n = TypeVar("n")``)
or declared with ``n = T.int64()`` resolve to one int64 ``tirx.Var`` per name inside the
current function, so the signature and the body share them.
"""

from __future__ import annotations

import builtins
import typing

from tvm import relax
from tvm.ir import PrimExpr

from ...ir_builder.base import IRBuilder
from ...ir_builder.ir.vdevice import parse_vdevice
from ...ir_builder.relax.frame import FunctionFrame

__all__ = [
    "Any",
    "AnyProxy",
    "Callable",
    "CallableProxy",
    "Object",
    "ObjectProxy",
    "Prim",
    "PrimProxy",
    "Shape",
    "ShapeProxy",
    "Tensor",
    "TensorProxy",
    "Tuple",
    "TupleProxy",
    "TypeProxy",
    "as_type",
    "shape_var",
]


def shape_var(name: str, dtype: str = "int64"):
    """The symbolic variable ``name`` of the current function (created on first use)."""
    from tvm import tirx

    frame = None
    if IRBuilder.is_in_scope():
        frame = IRBuilder.current().find_frame(FunctionFrame)
    if frame is None:
        return tirx.Var(name, dtype)
    var = frame.shape_vars.get(name)
    if var is None:
        if not frame.in_signature:
            raise ValueError(
                "String-defined shape expr is only allowed when parsing function parameters "
                "and return annotations for TVMScript."
            )
        # In a local function's signature, a name the enclosing body declared
        # (``n = T.int64()``) is that variable, as in TVM; otherwise it is a new one.
        var = _declared_outside(frame, name)
        if var is None:
            var = tirx.Var(name, dtype)
        frame.shape_vars[name] = var
    return var


def _declared_outside(frame, name: str):
    frames = IRBuilder.current().frames
    for outer in reversed(frames[: frames.index(frame)]):
        if isinstance(outer, FunctionFrame) and name in outer.declared_shape_vars:
            return outer.shape_vars.get(name)
    return None


class _ShapeNames(dict):
    """Names of a string dimension: each unknown name is the function's shape variable."""

    def __missing__(self, name):
        return shape_var(name)


def _string_dim(text: str):
    """``"n"`` is the shape variable ``n``; ``"n * 2"`` is an expression over such variables
    (the printer writes compound signature dimensions this way, as Apache TVM does)."""
    if text.isidentifier():
        return shape_var(text)
    try:
        code = compile(text, "<shape>", "eval")
    except SyntaxError as err:
        raise ValueError(f"Invalid shape expression {text!r}: {err.msg}") from None
    from tvm.script import dialect_module

    names = _ShapeNames(T=dialect_module("tirx", "parser"))
    return eval(code, {"__builtins__": {}}, names)  # the script's own annotation text


def _dim(value, what: str):
    if isinstance(value, builtins.str):
        return _string_dim(value)
    if isinstance(value, typing.TypeVar):
        return shape_var(value.__name__)
    if isinstance(value, builtins.bool):
        raise TypeError(f"{what}: a dimension must be an int, a str or a PrimExpr, got {value!r}")
    if isinstance(value, (int, PrimExpr)):
        return value
    if hasattr(value, "__index__"):
        return int(value)
    raise TypeError(f"{what}: a dimension must be an int, a str or a PrimExpr, got {value!r}")


def Tensor(shape=None, dtype=None, vdevice=None, ndim: int = -1):
    """``R.Tensor(shape, dtype)``: a tensor type; ``R.Tensor("float32")`` gives only the dtype."""
    if isinstance(shape, builtins.str) and dtype is None:
        shape, dtype = None, shape
    if isinstance(shape, (list, builtins.tuple)):
        shape = [_dim(v, "R.Tensor") for v in shape]
    elif shape is not None and not isinstance(shape, relax.Expr):
        raise TypeError(
            f"R.Tensor: shape must be a list or tuple of dimensions, got {type(shape).__name__}"
        )
    if dtype is None:
        dtype = "void"
    if not isinstance(dtype, builtins.str):
        dtype = builtins.str(dtype)
    if isinstance(vdevice, builtins.str):
        # ``"llvm"``, ``"cuda:1"``, ``"llvm:0:global"``: a device of the module being built.
        vdevice = parse_vdevice(vdevice)
    return relax.TensorType(shape, dtype, vdevice, ndim)


def Shape(values=None, ndim: int = -1):
    """``R.Shape([n, 4])`` or ``R.Shape(ndim=2)``: a shape type."""
    if values is not None:
        if not isinstance(values, (list, builtins.tuple)):
            raise TypeError(f"R.Shape: values must be a list or tuple, got {values!r}")
        values = [_dim(v, "R.Shape") for v in values]
    return relax.ShapeType(values, ndim)


def Tuple(*fields):
    """``R.Tuple(t1, t2, ...)``: a tuple type (``R.Tuple([t1, t2])`` is accepted too)."""
    if len(fields) == 1 and isinstance(fields[0], (list, builtins.tuple)):
        fields = fields[0]
    return relax.TupleType([as_type(f) for f in fields])


def Object():
    """``R.Object``: any value."""
    return relax.ObjectType()


def Prim(dtype=None, value=None):
    """``R.Prim("int64")`` or ``R.Prim(value=n)``: a scalar type, optionally with a known value."""
    if value is not None:
        if isinstance(value, builtins.str):
            value = shape_var(value, dtype or "int64")
        elif isinstance(value, int) and not isinstance(value, builtins.bool):
            from tvm import tirx

            value = tirx.IntImm(dtype or "int64", value)
        if dtype is None:
            dtype = value.dtype
        return relax.PrimType(dtype, value)
    if dtype is None:
        raise TypeError("R.Prim needs a dtype or a value")
    return relax.PrimType(dtype)


def Callable(params=None, ret=None, purity=None, derive_func=None):
    """``R.Callable([param types], ret type, purity)``: a function type."""
    if params is None:
        return relax.FuncType.opaque_func(
            ret=None if ret is None else as_type(ret),
            derive_func=derive_func,
            purity=False if purity is None else purity,
        )
    if not isinstance(params, (list, builtins.tuple)):
        params = [params]
    if ret is None:
        raise TypeError("R.Callable: a return type is needed when parameter types are given")
    return relax.FuncType(
        [as_type(p) for p in params], as_type(ret), True if purity is None else purity
    )


#: ``R.Any`` is the 0.27 spelling of ``R.Object``.
Any = Object

_BARE = {Tensor, Shape, Tuple, Object, Callable}


class TypeProxy:
    """A Relax type annotation as an object (``tvm.script.parser.relax.entry.TensorProxy``...).

    ``TensorProxy()`` is the bare annotation (``R.Tensor`` with nothing known); calling it,
    ``TensorProxy()([n, 4], "float32")``, builds the type as ``R.Tensor([n, 4], "float32")``
    does. The class itself may stand for its bare annotation too
    (``R.match_cast(x, TensorProxy)``): :func:`as_type` accepts all three forms.
    """

    #: The constructor this proxy stands for (one of ``R.Tensor``, ``R.Shape``...).
    make = None

    def __call__(self, *args, **kwargs):
        return type(self).make(*args, **kwargs)

    def as_type(self):
        """The bare annotation: the type built with no arguments."""
        return type(self).make()

    def __repr__(self):
        return f"{type(self).__name__}()"


class AnyProxy(TypeProxy):
    """``R.Any`` / ``R.Object``: any value."""

    make = staticmethod(Object)


#: The older name of :class:`AnyProxy`.
ObjectProxy = AnyProxy


class TensorProxy(TypeProxy):
    """``R.Tensor``: a tensor of unknown rank and dtype when bare."""

    make = staticmethod(Tensor)


class CallableProxy(TypeProxy):
    """``R.Callable``: an opaque function when bare."""

    make = staticmethod(Callable)


class TupleProxy(TypeProxy):
    """``R.Tuple``: the empty tuple when bare."""

    make = staticmethod(Tuple)


class ShapeProxy(TypeProxy):
    """``R.Shape``: a shape of unknown rank when bare."""

    make = staticmethod(Shape)


class PrimProxy(TypeProxy):
    """``R.Prim``: needs a dtype or a value, so it has no bare form."""

    make = staticmethod(Prim)


def as_type(value):
    """An annotation's value as a Relax type (bare ``R.Tensor``, ``R.Object``... are allowed)."""
    if isinstance(value, relax.Type):
        return value
    if isinstance(value, type) and issubclass(value, TypeProxy):
        value = value()
    if isinstance(value, TypeProxy):
        return value.as_type()
    if value in _BARE:
        return value()
    prim_dtype = getattr(value, "prim_dtype", None)
    if isinstance(prim_dtype, builtins.str):
        # A bare dtype constructor (``p: T.int64``) annotates a scalar of that dtype.
        return relax.PrimType(prim_dtype)
    raise TypeError(
        f"Expected a Relax type annotation such as R.Tensor(...), got {value!r}"
    )
