"""``@T.prim_func`` and the annotation helpers of TIR TVMScript (``T.handle``, ``T.let[...]``)."""

from __future__ import annotations

import functools
import inspect

from tvm.ir.expr import PrimExpr

from ...ir_builder.tirx import Bind
from ..core.entry import parse
from ..core.utils import capture_caller_vars, capture_function_vars, is_defined_in_class_body

__all__ = ["JITFunction", "LetAnnotation", "Optional", "OptionalAnnotation", "TIRMacro",
           "constexpr", "handle", "jit", "let", "macro", "prim_func"]


def prim_func(func=None, private: bool = False, check_well_formed: bool = True,
              s_tir: bool = False, persistent: bool = False):
    """Decorate a Python function written in TIR TVMScript.

    Parameters
    ----------
    func : function, optional
        The function (when used as ``@T.prim_func`` without arguments).
    private : bool
        A private function gets no ``global_symbol`` attribute.
    check_well_formed : bool
        Run the well-formedness gate (``verify_well_formed`` for s_tir functions, else
        ``verify_tirx_well_formed``) on the parsed function.
    s_tir : bool
        A schedulable function: attribute ``"s_tir": True``; its blocks go under a root block.
    persistent : bool
        A persistent kernel (its CTAs loop over the work): the function gets the attribute
        ``"tirx.persistent_kernel": True``, which prints back as ``persistent=True``.

    Returns
    -------
    tirx.PrimFunc, or the Python function itself inside an ``@I.ir_module`` class (whose
    decorator parses the whole class).
    """

    def _decorate(f, in_class, captured):
        if not inspect.isfunction(f):
            raise TypeError(f"@T.prim_func expects a function, got {type(f).__name__}")
        if in_class:
            return f
        names = dict(captured)
        names.update(capture_function_vars(f))
        return parse(f, names, check_well_formed=check_well_formed, s_tir=s_tir,
                     default_token="tirx")

    if func is not None:
        return _decorate(func, is_defined_in_class_body(1), capture_caller_vars(1))

    def decorator(f):
        return _decorate(f, is_defined_in_class_body(1), capture_caller_vars(1))

    decorator.dispatch_token = "tirx"
    return decorator


prim_func.dispatch_token = "tirx"


class _HandleType:
    """``T.handle``: the annotation of an opaque pointer parameter; ``T.handle()`` a variable."""

    prim_dtype = "handle"

    def __call__(self, dtype: str | None = None, storage_scope: str | None = None):
        """A handle variable, as in TVM 0.27: ``T.handle()`` (or ``T.handle("void")``) an
        opaque handle; ``T.handle("uint32", "shared")`` a pointer
        (``PointerType(PrimType("uint32"), "shared")``, the form 0.27 prints for a pointer
        ``T.let``; the scope defaults to ``"global"``); ``T.handle("tensormap")`` a pointer to
        a TMA descriptor (as ``T.TensorMap()``). ``T.handle("void", "global")`` is the
        pointer type ``PointerType(PrimType("void"), "global")``, as printed for it."""
        from tvm.ir import PointerType, PrimType
        from tvm.tirx import Var
        from tvm.tirx.type import tensormap_pointer_type

        if storage_scope is None and dtype in (None, "void"):
            return Var("", "handle")
        if dtype == "tensormap" and storage_scope in (None, "global"):
            return Var("", tensormap_pointer_type())
        return Var("", PointerType(PrimType(dtype or "void"), storage_scope or "global"))

    def __repr__(self):
        return "T.handle"


handle = _HandleType()


class LetAnnotation:
    """``T.let[T.int32]``: the annotation of a ``Bind`` (``x: T.let[T.int32] = value``);
    ``dtype`` None (a bare ``T.let``) takes the value's; ``ty`` is a pointer type
    (``T.let[T.handle("uint32", "shared")]``)."""

    def __init__(self, dtype: str | None, ty=None):
        self.dtype = dtype
        self.ty = ty


class _Let:
    """``T.let``: ``T.let[T.int32]`` annotates a binding; ``x = T.let(value)`` binds."""

    def __getitem__(self, dtype):
        ty = getattr(dtype, "type_annotation", None)
        if ty is not None:  # ``T.let[T.handle("uint32", "shared")]``: a pointer variable
            return LetAnnotation("handle", ty)
        return LetAnnotation(getattr(dtype, "prim_dtype", getattr(dtype, "dtype", dtype)))

    def __call__(self, value, dtype=None):
        if dtype is not None and not isinstance(dtype, str):
            dtype = getattr(dtype, "prim_dtype", dtype)
        if dtype is not None and isinstance(value, PrimExpr) and value.dtype != dtype:
            raise TypeError(f"T.let: the value's dtype {value.dtype} is not {dtype}")
        return Bind(value, dtype)


let = _Let()


class TIRMacro:
    """A ``@T.macro`` function: calling it inside a ``@T.prim_func`` body parses its body in
    place, with its parameters bound to the call's arguments.

    A hygienic macro (the default) sees the names of the place it was defined (its globals
    and closure) plus its parameters; a non-hygienic one sees the caller's names instead. A
    final ``return value`` statement gives the call's value.
    """

    def __init__(self, func, hygienic: bool, captured: dict):
        self.func = func
        self.hygienic = hygienic
        self.captured = captured
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__

    def __call__(self, *args, **kwargs):
        # Same package; imported here because the parser module imports this one.
        from .parser import expand_macro

        return expand_macro(self, args, kwargs)

    def __get__(self, instance, owner=None):
        # A macro defined in a class (``@T.inline def step(self): ...``) is a method: reached
        # through an instance, it gets the instance as its first argument.
        if instance is None:
            return self
        return functools.partial(self, instance)

    def __repr__(self):
        return f"T.macro({self.__name__})"


def macro(func=None, *, hygienic: bool = True):
    """``@T.macro`` / ``@T.macro(hygienic=False)``: a piece of TIR TVMScript to reuse inside
    ``@T.prim_func`` bodies (see :class:`TIRMacro`)."""

    def _decorate(f, captured):
        if not inspect.isfunction(f):
            raise TypeError(f"@T.macro expects a function, got {type(f).__name__}")
        names = dict(captured)
        names.update(capture_function_vars(f))
        return TIRMacro(f, hygienic, names)

    if func is not None:
        return _decorate(func, capture_caller_vars(1))
    return lambda f: _decorate(f, capture_caller_vars(1))


def inline(func=None):
    """``@T.inline``: a function whose body is parsed in place where it is called inside a
    ``@T.prim_func``, with Python's LEGB scoping.

    Defined outside a kernel, it sees its own parameters, then its closure and globals (the
    names of where it was defined, never the caller's). Defined inside a kernel body, it sees
    its parameters, then the kernel's names at the time of the call (so a name bound after
    the definition but before the call is visible, and it may call itself). Inlines can call
    each other and be passed as arguments.
    """

    def _decorate(f, captured):
        if not inspect.isfunction(f):
            raise TypeError(f"@T.inline expects a function, got {type(f).__name__}")
        names = dict(captured)
        names.update(capture_function_vars(f))
        return TIRMacro(f, True, names)

    if func is not None:
        return _decorate(func, capture_caller_vars(1))
    return lambda f: _decorate(f, capture_caller_vars(1))


inline.tirx_inline = True  # marks a kernel-local ``@T.inline def`` (see the parser)
macro.tirx_inline = True


class NestedInline:
    """A ``@T.inline`` (or ``@T.macro``) defined inside a kernel body: ``node`` is its
    ``def``, expanded with the defining parser's names at the time of each call."""

    def __init__(self, parser, node):
        self.parser = parser
        self.node = node
        self.__name__ = node.name

    def __call__(self, *args, **kwargs):
        # Same package; imported here because the parser module imports this one.
        from .parser import expand_nested_inline

        return expand_nested_inline(self, args, kwargs)

    def __repr__(self):
        return f"T.inline({self.__name__})"


def meta_class(cls):
    """``@T.meta_class``: a class whose instances are parse-time state of a kernel.

    Its constructor runs while the kernel is parsed and may allocate buffers and scalars
    (``self.buf = T.alloc_buffer(...)``); every allocation must be kept in a field. When an
    instance is assigned to a name (``first = Holder(...)``), those buffers are named
    ``first_<field>``. Methods decorated with ``@T.inline`` expand in place when called.
    """
    if not isinstance(cls, type):
        raise TypeError(f"@T.meta_class expects a class, got {type(cls).__name__}")
    init = cls.__init__

    def __init__(self, *args, **kwargs):
        # Same package; imported here because the parser module imports this one.
        from .parser import collect_allocations

        with collect_allocations() as made:
            init(self, *args, **kwargs)
        owned, kept = [], set()
        for field, value in vars(self).items():
            buf = getattr(value, "buffer", value)
            if id(buf) in made:
                owned.append(field)
                kept.add(id(buf))
        stray = [made[k] for k in made if k not in kept]
        if stray:
            raise ValueError(
                f"{cls.__name__}() allocated {', '.join(b.name for b in stray)} without "
                "keeping it in a field: a meta_class constructor must own what it allocates"
            )
        self.__tirx_owned__ = tuple(owned)

    cls.__init__ = functools.wraps(init)(__init__)
    cls.__tirx_meta_class__ = True
    return cls


# --- @T.jit -------------------------------------------------------------------------------------


class constexpr:  # the script spelling is ``T.constexpr``
    """``N: T.constexpr``: a keyword-only parameter of a ``@T.jit`` kernel whose value is
    given to :meth:`JITFunction.specialize` and substituted while parsing (a Python value in
    shapes, loop bounds and expressions); it is not a parameter of the specialized
    PrimFunc."""

    def __init__(self):
        raise TypeError("T.constexpr is a parameter annotation, not a value")


class OptionalAnnotation:
    """``a: T.Optional(T.handle)``: a parameter of a ``@T.jit`` kernel that
    ``k.specialize(a=None)`` removes (``a`` is then None while the body is parsed)."""

    def __init__(self, annotation):
        self.annotation = annotation

    def __repr__(self):
        return f"T.Optional({self.annotation!r})"


def Optional(annotation):
    """``T.Optional(T.handle)``: see :class:`OptionalAnnotation`."""
    return OptionalAnnotation(annotation)


def _is_optional(annotation) -> bool:
    if isinstance(annotation, OptionalAnnotation):
        return True
    # Only the explicit ``T.Optional(...)`` spelling (not ``typing.Optional[...]``).
    return isinstance(annotation, str) and annotation.startswith("T.Optional(")


def _is_constexpr(annotation) -> bool:
    if annotation is constexpr:
        return True
    # ``from __future__ import annotations`` keeps annotations as text (``"T.constexpr"``).
    return isinstance(annotation, str) and annotation.rsplit(".", 1)[-1] == "constexpr"


def _cache_key(value):
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return ("value", type(value).__name__, value)


class JITFunction:
    """A ``@T.jit`` kernel: TVMScript with ``T.constexpr`` keyword-only parameters, parsed
    once per set of their values by :meth:`specialize`."""

    def __init__(self, func, names, private=False, check_well_formed=True):
        self._func = func
        self._names = names
        self._private = private
        self._check_well_formed = check_well_formed
        self._cache: dict = {}
        params = inspect.signature(func).parameters.values()
        self.constexpr_params = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        for p in params:
            if p.kind is p.KEYWORD_ONLY and not _is_constexpr(p.annotation):
                raise TypeError(f"@T.jit {func.__name__}: keyword-only parameter {p.name} must "
                                "be annotated T.constexpr")
        self._defaults = {p.name: p.default for p in params
                          if p.kind is p.KEYWORD_ONLY and p.default is not p.empty}
        self.optional_params = [p.name for p in params if p.kind is not p.KEYWORD_ONLY
                                and _is_optional(p.annotation)]
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__

    def specialize(self, **values):
        """The PrimFunc for these ``T.constexpr`` values (cached: the same values give the
        same object); a ``T.Optional`` parameter given as None is left out. TypeError for a
        missing or unexpected name."""
        unexpected = sorted(set(values) - set(self.constexpr_params)
                            - set(self.optional_params))
        if unexpected:
            raise TypeError(f"{self.__name__}.specialize() got unexpected keyword argument(s) "
                            f"{', '.join(unexpected)}; its T.constexpr parameters are "
                            f"{self.constexpr_params}")
        absent = []
        for name in self.optional_params:
            if name in values:
                if values.pop(name) is not None:
                    raise TypeError(f"{self.__name__}.specialize(): T.Optional parameter "
                                    f"{name} can only accept None (to leave it out)")
                absent.append(name)
        given = dict(self._defaults)
        given.update(values)
        missing = [n for n in self.constexpr_params if n not in given]
        if missing:
            raise TypeError(f"{self.__name__}.specialize() missing T.constexpr argument(s) "
                            f"{', '.join(missing)}")
        key = (tuple(sorted((k, _cache_key(v)) for k, v in given.items())), tuple(absent))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        # Same package; imported here because the parser module imports this one.
        from .parser import jit_constexprs

        names = dict(self._names)
        names.update(given)
        with jit_constexprs(set(given), absent):
            result = parse(self._func, names, check_well_formed=self._check_well_formed,
                           default_token="tirx")
        self._cache[key] = result
        return result

    def __repr__(self):
        return f"T.jit({self.__name__})"


def jit(func=None, *, private: bool = False, check_well_formed: bool = True):
    """``@T.jit``: a kernel specialised at parse time by its ``T.constexpr`` keyword-only
    parameters: ``k.specialize(N=128)`` parses it with ``N = 128`` and returns a PrimFunc
    whose parameters are the others; ``T.Optional`` parameters given as None are left out."""

    def _decorate(f, captured):
        if not inspect.isfunction(f):
            raise TypeError(f"@T.jit expects a function, got {type(f).__name__}")
        names = dict(captured)
        names.update(capture_function_vars(f))
        return JITFunction(f, names, private, check_well_formed)

    if func is not None:
        return _decorate(func, capture_caller_vars(1))

    def decorator(f):
        return _decorate(f, capture_caller_vars(1))

    decorator.dispatch_token = "tirx"
    return decorator


jit.dispatch_token = "tirx"
