"""``tvm.backend``: code generation per target kind, and the table the driver compiles through.

Each backend is a package ``tvm.backend.<name>`` with a ``register_backend()`` function;
:func:`load` imports it once and calls that function, which fills the table below with a
:class:`Backend` (:func:`register_backend`). The driver reaches every backend through
:func:`get_backend` (``get_backend(target).codegen(mod, target)``), never by module name, so a
new backend is one folder. See ``docs/arch/codegen.md`` section 0 for what a backend provides.

The package path is extensible (``pkgutil.extend_path``), so out-of-tree distributions can ship
``tvm.backend.<name>`` too. Backends installed as separate distributions can also declare an
entry point in the ``tvm.backends`` group; those are called at the end of ``import tvm`` (see
:mod:`tvm.backend._autoload_backends`).

The ``llvm`` backend (the host code generator) is loaded when this package is imported: it
registers the runtime's hooks (``tvm.runtime.hooks``: the thread pool of parallel loops), which
a process that only loads a compiled library needs too. Loading it imports no llvmlite.
"""

from __future__ import annotations

import dataclasses
import os as _os
import sys as _sys
import threading as _threading
from collections.abc import Callable, Mapping
from importlib.util import find_spec as _find_spec
from pkgutil import extend_path
from types import MappingProxyType
from typing import TYPE_CHECKING

__path__ = extend_path(__path__, __name__)
# extend_path only searches the parent package's path; out-of-tree distributions install
# ``tvm/backend/<name>/`` elsewhere on sys.path, without a ``tvm/__init__.py`` of their own
# (a folder that has one is another full tvm installation and is not mixed in).
for _entry in _sys.path:
    _candidate = _os.path.join(_entry or ".", "tvm", "backend")
    if (
        _os.path.isdir(_candidate)
        and not _os.path.exists(_os.path.join(_entry or ".", "tvm", "__init__.py"))
        and _candidate not in __path__
    ):
        __path__.append(_candidate)

from .loader import is_loaded, load

if TYPE_CHECKING:  # annotations only: importing them here would load the compiler layers
    from ..ir.module import IRModule
    from ..runtime.module import Module
    from ..target import Target

__all__ = [
    "HOST_KIND",
    "Backend",
    "LazyRules",
    "find_backend",
    "get_backend",
    "is_loaded",
    "load",
    "register_backend",
    "registered_kinds",
]

#: The kind that compiles host code when a target names no host (``Target("cuda")``).
HOST_KIND = "llvm"


@dataclasses.dataclass(frozen=True)
class Backend:
    """What the driver needs from the code generator of one target kind.

    A backend package builds one in its ``register_backend()`` hook and passes it to
    :func:`register_backend`. Only ``name`` and ``codegen`` are required.

    Parameters
    ----------
    name : str
        The target kind it compiles (``"llvm"``, ``"cuda"``): ``Target(...).kind.name``.
    codegen : Callable[[IRModule, Target], runtime.Module]
        Lowered ``IRModule`` (every PrimFunc of this kind, after the TIR pipeline and
        ``LowerIntrin``) and the target -> ``tvm.runtime.Module``. A device backend's module
        is imported into the host module (``host_mod.imports``).
    intrin_rules : Mapping[str, Callable]
        Op name (``"tirx.exp"``) -> rule ``Call -> PrimExpr`` that ``LowerIntrin`` applies
        to functions of this kind.
    device_type : int or None
        The DLPack device type its code runs on (``kDLCPU`` = 1, ``kDLCUDA`` = 2).
    device_api : object or None
        The runtime's device API object for that device (allocation, copies, streams);
        None when the runtime's default serves (the CPU).
    host : bool
        True for a kind that generates host code (``llvm``); False for device-only kinds
        (``cuda``), whose functions the driver splits off and hands to this backend while
        the host backend compiles the rest.
    default_tir_pipeline : str
        The TIR pipeline name ``tir_pipeline="default"`` means for targets of this kind.
    codegen_parts : Callable or None
        Optional streaming form of ``codegen``: ``codegen_parts(parts, target, name)`` takes
        an iterable of lowered ``IRModule`` parts, which the driver lowers lazily as the
        backend pulls them, so a backend can compile the first part (in a thread) while the
        next is lowered; returns one ``runtime.Module`` for all parts.
    compile_threads : Callable[[], int] or None
        Optional, with ``codegen_parts``: how many threads it compiles parts on; the driver
        splits host code into ``PARTS_PER_THREAD`` parts per thread (one part without it).
    prepare : Callable[[Target], None] or None
        Optional: start background work a build for ``target`` will need (the LLVM backend
        JIT-compiles its runtime helpers); ``relax.build`` calls it before the Relax passes.
    module_loader : Callable[[bytes], runtime.Module] or None
        A runtime module of this kind from its saved bytes. Nothing calls it yet: loading
        device modules imported into an exported library is not written.
    finalize_passes : Callable[[Target], Pass] or None
        Passes the driver runs on the lowered functions of this kind after the TIR pipeline
        (a device kind's finalization: warp memory, intrinsic lowering...). None: the host
        finalization (``tvm.tirx.compilation_pipeline.finalize_host_passes``).
    default_schedule : Callable[[IRModule, Target], IRModule] or None
        Schedules the unscheduled PrimFuncs of a build for this kind (before the TIR
        pipeline). None: the default CPU schedule for a host kind, nothing for a device kind.
    """

    name: str
    codegen: Callable[[IRModule, Target], Module]
    intrin_rules: Mapping[str, Callable] = dataclasses.field(
        default_factory=lambda: MappingProxyType({})
    )
    device_type: int | None = None
    device_api: object | None = None
    host: bool = False
    default_tir_pipeline: str = "default"
    codegen_parts: Callable | None = None
    compile_threads: Callable | None = None
    prepare: Callable | None = None
    module_loader: Callable | None = None
    finalize_passes: Callable | None = None
    default_schedule: Callable | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"Backend.name must be a target kind name, got {self.name!r}")
        if not callable(self.codegen):
            raise TypeError(f"Backend {self.name!r}: codegen must be callable")
        if not isinstance(self.intrin_rules, Mapping):
            raise TypeError(
                f"Backend {self.name!r}: intrin_rules must be a Mapping of op name -> rule, "
                f"got {type(self.intrin_rules).__name__}"
            )


#: The table: target kind name -> Backend.
_BACKENDS: dict[str, Backend] = {}
#: Kinds with no package ``tvm.backend.<kind>`` (looked for once: ``LowerIntrin`` asks per
#: function).
_NO_PACKAGE: set = set()
_TABLE_LOCK = _threading.Lock()


class LazyRules(Mapping):
    """A backend's rule table (``intrin_rules``) imported on first use: ``LazyRules(
    "tvm.backend.cuda.intrin", "INTRIN_RULES")`` keeps ``import tvm`` from loading the module
    (and the op tables it imports) until a pass asks for a rule."""

    def __init__(self, module: str, attr: str):
        self._module, self._attr, self._rules = module, attr, None

    def _load(self) -> Mapping:
        if self._rules is None:
            import importlib  # lazy by design: see the class docstring

            self._rules = getattr(importlib.import_module(self._module), self._attr)
        return self._rules

    def __getitem__(self, name):
        return (self._rules or self._load())[name]

    def get(self, name, default=None):
        """The rule for ``name``, or ``default`` (imports the rule module on first use)."""
        return (self._rules or self._load()).get(name, default)

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())

    def __repr__(self):
        return f"<rules {self._module}.{self._attr}: {len(self)} ops>"


def register_backend(backend: Backend, *, override: bool = False) -> Backend:
    """Add ``backend`` to the table under ``backend.name`` (a backend package's hook calls it).

    Raises ``ValueError`` when that kind has a backend already, unless ``override``.
    """
    if not isinstance(backend, Backend):
        raise TypeError(f"register_backend expects a tvm.backend.Backend, got "
                        f"{type(backend).__name__}")
    with _TABLE_LOCK:
        if backend.name in _BACKENDS and not override and _BACKENDS[backend.name] is not backend:
            raise ValueError(f"target kind '{backend.name}' already has a backend registered")
        _BACKENDS[backend.name] = backend
        _NO_PACKAGE.discard(backend.name)
    return backend


def registered_kinds() -> list[str]:
    """The target kinds that have a backend in the table, sorted."""
    return sorted(_BACKENDS)


def _kind_name(kind_or_target) -> str:
    if isinstance(kind_or_target, str):
        return kind_or_target
    kind = getattr(kind_or_target, "kind", None)  # a tvm.target.Target
    if kind is not None:
        return str(getattr(kind, "name", kind))
    raise TypeError(
        f"expected a target kind name or a tvm.target.Target, got {type(kind_or_target).__name__}"
    )


def find_backend(kind_or_target) -> Backend | None:
    """The backend of a kind (name or ``Target``), loading its package on first use; or None.

    Never raises for a kind without a backend (``LowerIntrin`` uses it: such kinds get only
    the ``<kind>.FLowerIntrinsic`` op attributes). A backend package that exists but fails to
    load (a missing dependency, an error in its ``register_backend()``) raises its error.
    """
    name = _kind_name(kind_or_target)
    backend = _BACKENDS.get(name)
    if backend is not None:
        return backend
    if name in _NO_PACKAGE:
        return None
    if not is_loaded(name):
        try:
            load(name)
        except ImportError:
            if _find_spec(f"{__name__}.{name}") is not None:
                raise  # the package exists but one of its imports failed: report that
            _NO_PACKAGE.add(name)  # no package tvm.backend.<name>
            return None
    return _BACKENDS.get(name)


def get_backend(kind_or_target) -> Backend:
    """The :class:`Backend` of a target kind, given as a name or a ``tvm.target.Target``.

    Loads ``tvm.backend.<kind>`` (:func:`load`) the first time a kind is asked for.

    Raises
    ------
    ValueError
        ``target kind 'X' has no backend ...`` naming the registered kinds, when no package
        registers one for that kind.

    Examples
    --------
    >>> import tvm
    >>> tvm.backend.get_backend("llvm").host
    True
    """
    backend = find_backend(kind_or_target)
    if backend is None:
        name = _kind_name(kind_or_target)
        why = ("its package tvm.backend." + name + " registers none") if is_loaded(name) \
            else ("there is no package tvm.backend." + name)
        raise ValueError(
            f"target kind '{name}' has no backend ({why}); kinds with a backend: "
            f"{', '.join(repr(k) for k in registered_kinds()) or 'none'}"
        )
    return backend


# The host backend, at import: see the module docstring (it registers the runtime's hooks).
load(HOST_KIND)
