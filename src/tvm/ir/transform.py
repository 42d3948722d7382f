"""Pass infrastructure: ``Pass``, ``ModulePass``, ``Sequential``, ``PassInfo``, ``PassContext``.

A pass maps an ``IRModule`` to a new ``IRModule``. ``tvm.transform`` is this module.

Executors
---------
Each pass kind runs through exactly one executor function, the single place where the error
enrichment of spec C.3 hooks in:

* :func:`run_module_pass` for :class:`ModulePass` (including passes written in Python);
* ``tvm.relax.transform.pass_executors.run_function_pass`` and ``run_dataflow_block_pass`` for
  Relax function / dataflow-block passes.

``Pass.__call__`` and :class:`Sequential` only dispatch (and call instruments); they never
wrap errors, so enrichment cannot happen twice. See ``docs/arch/passes.md``.

Examples
--------
>>> import tvm
>>> @tvm.transform.module_pass(opt_level=1)
... def identity(mod, ctx):
...     return mod
>>> identity.info.name
'identity'
>>> mod = tvm.IRModule()
>>> identity(mod) is mod
True
"""

from __future__ import annotations

import functools
import inspect
from typing import ClassVar

from ..ffi.node import Node
from .error_context import enrich_pass_error
from .instrument import run_instrumented
from .module import IRModule

__all__ = [
    "ModulePass",
    "Pass",
    "PassContext",
    "PassInfo",
    "PrintIR",
    "Sequential",
    "module_pass",
    "register_named_pass",
    "register_pass_config",
    "run_module_pass",
]


class PassInfo(Node, type_key="transform.PassInfo"):
    """Metadata of a pass: optimization level, name, names of required passes."""

    opt_level: int
    name: str
    required: tuple = ()
    traceable: bool = False

    def __init__(self, opt_level, name, required=None, traceable=False):
        if isinstance(required, str):
            required = (required,)
        self.__init_fields__(int(opt_level), str(name), tuple(required or ()), bool(traceable))

    def __repr__(self):
        return (
            f'transform.PassInfo(opt_level={self.opt_level}, name="{self.name}", '
            f"required={self.required}, traceable={self.traceable})"
        )


# Declared pass-config options: name -> value type (bool, int, float, str or dict).
_CONFIG_OPTIONS: dict = {}


def register_pass_config(name: str, value_type: type) -> None:
    """Declare the ``PassContext`` config option ``name`` whose values have ``value_type``.

    The layer that reads an option declares it (next to the pass that reads it); a
    ``PassContext`` rejects undeclared options, so a misspelled option is an error, not a
    silently ignored setting.
    """
    if value_type not in (bool, int, float, str, dict, list):
        raise TypeError(f"register_pass_config: unsupported value type {value_type!r} for {name}")
    _CONFIG_OPTIONS[name] = value_type


def _check_config(config: dict) -> dict:
    checked = {}
    for key, value in config.items():
        value_type = _CONFIG_OPTIONS.get(key)
        if value_type is None:
            candidates = " ,".join(_CONFIG_OPTIONS)
            raise AttributeError(
                f"Invalid config option '{key}' candidates are: {candidates} "
                "(options are declared with tvm.transform.register_pass_config)"
            )
        if value_type is bool and isinstance(value, int) and value in (0, 1):
            value = bool(value)
        elif value_type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, value_type) or (value_type is int and isinstance(value, bool)):
            raise TypeError(
                f"PassContext config option '{key}' expects a {value_type.__name__}, got {value!r}"
            )
        checked[key] = value
    return checked


class PassContext:
    """Settings for running passes; use as ``with PassContext(opt_level=3): ...``.

    Parameters
    ----------
    opt_level : int
        Passes whose ``opt_level`` is higher are skipped by :class:`Sequential`.
    required_pass : list of str
        Passes that run regardless of ``opt_level``.
    disabled_pass : list of str
        Passes that never run inside a :class:`Sequential`.
    instruments : list of PassInstrument
        Hooks called around every pass.
    config : dict
        Pass-specific options, e.g. ``{"relax.backend.use_cuda_graph": True}``. Each option
        must have been declared with :func:`register_pass_config` (``AttributeError``
        otherwise); values are checked against the declared type.
    """

    _stack: ClassVar[list] = []

    def __init__(
        self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None, config=None
    ):
        for label, value in (("required_pass", required_pass), ("disabled_pass", disabled_pass)):
            if value is not None and not isinstance(value, (list, tuple, set, frozenset)):
                raise TypeError(f"PassContext {label} must be a list of pass names, got {value!r}")
        self.opt_level = int(opt_level)
        self.required_pass = tuple(required_pass or ())
        self.disabled_pass = tuple(disabled_pass or ())
        self.instruments = tuple(instruments or ())
        self.config = _check_config(dict(config or {}))

    @staticmethod
    def current() -> PassContext:
        """The innermost active context (a default one outside any ``with`` block)."""
        return PassContext._stack[-1] if PassContext._stack else _DEFAULT_CONTEXT

    def __enter__(self):
        PassContext._stack.append(self)
        for inst in self.instruments:
            inst.enter_pass_ctx()
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            for inst in self.instruments:
                inst.exit_pass_ctx()
        finally:
            PassContext._stack.pop()
        return False

    @staticmethod
    def list_configs() -> dict:
        """Every declared config option: ``{name: {"type": type name}}``."""
        return {name: {"type": t.__name__} for name, t in _CONFIG_OPTIONS.items()}

    def override_instruments(self, instruments) -> None:
        """Replace the instruments (calling exit/enter hooks if the context is active)."""
        active = self in PassContext._stack
        if active:
            for inst in self.instruments:
                inst.exit_pass_ctx()
        self.instruments = tuple(instruments or ())
        if active:
            for inst in self.instruments:
                inst.enter_pass_ctx()

    def pass_enabled(self, info: PassInfo) -> bool:
        """Whether a pass with ``info`` runs here: disabled < required < opt_level."""
        if info.name in self.disabled_pass:
            return False
        if info.name in self.required_pass:
            return True
        return self.opt_level >= info.opt_level

    def __repr__(self):
        return (
            f"PassContext(opt_level={self.opt_level}, required_pass={list(self.required_pass)}"
            f", disabled_pass={list(self.disabled_pass)}, config={self.config})"
        )


_DEFAULT_CONTEXT = PassContext()


class Pass:
    """Base class of passes: call it on an ``IRModule`` to get the transformed module."""

    def __init__(self, info: PassInfo):
        self.info = info

    def __call__(self, mod):
        if not isinstance(mod, IRModule):
            raise TypeError(f"Pass {self.info.name} expects an IRModule, got {type(mod).__name__}")
        ctx = PassContext.current()
        return run_instrumented(ctx, self.info, mod, lambda m: self._execute(m, ctx))

    def _execute(self, mod, ctx):  # pragma: no cover - every subclass defines it
        raise NotImplementedError(f"{type(self).__name__} does not define _execute")

    def __repr__(self):
        return f"{type(self).__name__}({self.info!r})"


class ModulePass(Pass):
    """A pass defined by ``pass_func(mod, ctx) -> IRModule``."""

    def __init__(self, pass_func, info: PassInfo):
        super().__init__(info)
        self.pass_func = pass_func

    def _execute(self, mod, ctx):
        return run_module_pass(self, mod, ctx)


def run_module_pass(pass_obj: ModulePass, mod: IRModule, ctx: PassContext) -> IRModule:
    """The executor of module passes (the hook point for error enrichment, spec C.3)."""
    try:
        result = pass_obj.pass_func(mod, ctx)
    except Exception as err:
        # Spec C.3: an error seeded with a node gets the pass name and the underlined script.
        enriched = enrich_pass_error(err, mod, pass_obj.info.name)
        if enriched is err:
            raise
        raise enriched from err.__cause__
    if not isinstance(result, IRModule):
        raise TypeError(
            f"Module pass {pass_obj.info.name} must return an IRModule, got {type(result).__name__}"
        )
    return result


# Passes that ``PassInfo.required`` may name, by name -> zero-argument factory.
_NAMED_PASSES: dict = {}


def register_named_pass(name: str, factory) -> None:
    """Make ``factory()`` the pass run when a pass lists ``name`` in ``required``."""
    _NAMED_PASSES[name] = factory


class Sequential(Pass):
    """Run passes in order, skipping those the current ``PassContext`` disables.

    A pass runs when its name is in ``required_pass``, or its ``opt_level`` is at most the
    context's and its name is not in ``disabled_pass``. Before a pass runs, the passes named in
    its ``info.required`` run first (looked up in the table of :func:`register_named_pass`).
    """

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None, traceable=False):
        passes = list(passes or [])
        for item in passes:
            if not isinstance(item, Pass):
                raise TypeError(f"Sequential expects Pass objects, got {type(item).__name__}")
        super().__init__(PassInfo(opt_level, name, required, traceable))
        self.passes = passes

    def _execute(self, mod, ctx):
        for item in self.passes:
            if not ctx.pass_enabled(item.info):
                continue
            for req in item.info.required:
                factory = _NAMED_PASSES.get(req)
                if factory is None:
                    raise ValueError(
                        f"Pass {item.info.name} requires pass {req!r}, which is not registered "
                        "(register it with tvm.transform.register_named_pass)"
                    )
                mod = factory()(mod)
            mod = item(mod)
        return mod


def _wrap_pass_class(user_cls, method, pass_cls, info_kwargs):
    """Turn a class with ``<method>(self, ...)`` into a ``pass_cls`` subclass."""
    if not callable(getattr(user_cls, method, None)):
        raise TypeError(f"{user_cls.__name__} must define {method}(self, ...)")

    class PyPass(pass_cls):
        def __init__(self, *args, **kwargs):
            inst = user_cls(*args, **kwargs)
            object.__setattr__(self, "_inst", inst)
            super().__init__(getattr(inst, method), PassInfo(**info_kwargs))

        def __getattr__(self, attr):
            # Attributes of the user's instance are reachable through the pass.
            return getattr(self.__dict__["_inst"], attr)

    functools.update_wrapper(PyPass.__init__, user_cls.__init__)
    PyPass.__name__ = user_cls.__name__
    PyPass.__qualname__ = user_cls.__qualname__
    PyPass.__doc__ = user_cls.__doc__
    return PyPass


def make_pass_decorator(kind, method, pass_cls, pass_func, opt_level, name, required, traceable):
    """The body of every ``<kind>_pass`` decorator (module, function, dataflow block).

    ``pass_func`` is a function (wrapped as ``pass_cls(func, info)``) or a class whose
    ``method`` does the work; with ``pass_func=None`` the decorator itself is returned.
    """
    if opt_level is None:
        raise ValueError(f"Please provide opt_level for the {kind} pass.")

    def create(func):
        info = {
            "opt_level": opt_level,
            "name": name or func.__name__,
            "required": required,
            "traceable": traceable,
        }
        if inspect.isclass(func):
            return _wrap_pass_class(func, method, pass_cls, info)
        if not callable(func):
            raise TypeError(f"{kind}_pass expects a function or a class")
        return pass_cls(func, PassInfo(**info))

    return create(pass_func) if pass_func is not None else create


def module_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Make a module pass from ``pass_func(mod, ctx)`` or a class with ``transform_module``.

    Usable as ``@module_pass(opt_level=1)`` on a function or a class, or called directly
    as ``module_pass(fn, opt_level=1)``.

    Parameters
    ----------
    pass_func : callable or class, optional
    opt_level : int
        Required (the pass is skipped in a context with a lower ``opt_level``).
    name : str, optional
        Defaults to the function or class name.
    required : list of str, optional
    traceable : bool
    """
    return make_pass_decorator(
        "module",
        "transform_module",
        ModulePass,
        pass_func,
        opt_level,
        name,
        required,
        traceable,
    )


def PrintIR(header: str = "", show_meta_data: bool = False) -> ModulePass:
    """A pass that prints the module (as TVMScript) and returns it unchanged."""

    def _print(mod, ctx):
        if header:
            print(header)
        print(mod.script(show_meta=show_meta_data))
        return mod

    return ModulePass(_print, PassInfo(0, "PrintIR"))
