"""``tvm.backend.load(name)`` and ``is_loaded(name)``.

Loading a backend imports ``tvm.backend.<name>``, binds it as ``tvm.tirx.<name>`` (TVM user
code imports backend helpers under that name), records it and calls its
``register_backend()``. A ``sys.meta_path`` finder then resolves
``import tvm.tirx.<name>.<sub>`` to ``tvm.backend.<name>.<sub>`` for loaded backends, and
binds the backends loaded before ``tvm.tirx`` was imported when it is (``import tvm``
imports the compiler layers on first use).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from types import ModuleType

__all__ = ["is_loaded", "load"]

#: Loaded backend packages, by backend name.
_LOADED_BACKENDS: dict[str, ModuleType] = {}

_BACKEND_PREFIX = "tvm.backend."
_ALIAS_PREFIX = "tvm.tirx."


def is_loaded(name: str) -> bool:
    """Whether the backend ``name`` has been loaded by :func:`load` (registered completely)."""
    if name in _REGISTERING:
        with _LOAD_LOCK:  # wait for the thread registering it (or re-enter: it is ours)
            pass
    return name in _LOADED_BACKENDS


def load(name: str) -> ModuleType:
    """Load the backend ``tvm.backend.<name>`` once and return its package.

    Raises
    ------
    ImportError
        When the package ``tvm.backend.<name>`` does not exist.
    AttributeError
        When the package has no ``register_backend()``.
    Exception
        Whatever ``register_backend()`` raises; the backend is then left unloaded.
    """
    module = _LOADED_BACKENDS.get(name)
    if module is not None and name not in _REGISTERING:
        return module
    with _LOAD_LOCK:  # another thread's load() finishes register() first
        return _load_locked(name)


# A backend is recorded in _LOADED_BACKENDS before its register_backend() runs (so that code
# it runs may import it under tvm.tirx.<name>); until register() returns, its name is also in
# _REGISTERING and other threads wait on the lock instead of using a half-registered backend
# (issue 22).
_LOAD_LOCK = threading.RLock()
_REGISTERING: set = set()


def _load_locked(name: str) -> ModuleType:
    module = _LOADED_BACKENDS.get(name)
    if module is not None:
        return module  # loaded meanwhile, or by this thread's register() (re-entry)
    package_name = _BACKEND_PREFIX + name
    try:
        module = importlib.import_module(package_name)
    except ModuleNotFoundError as err:
        if err.name != package_name:
            raise
        raise ImportError(
            f"Cannot load TVM backend '{name}': expected Python package '{package_name}'. "
            "Install the backend package or check the backend name."
        ) from err
    register = getattr(module, "register_backend", None)
    if register is None:
        raise AttributeError(f"Backend package '{package_name}' has no register_backend()")

    alias = _ALIAS_PREFIX + name
    tirx = _tirx_package()
    previous_attr = getattr(tirx, name, None) if tirx is not None else None
    previous_module = sys.modules.get(alias)
    if tirx is not None:
        setattr(tirx, name, module)
        sys.modules[alias] = module
    _LOADED_BACKENDS[name] = module
    _REGISTERING.add(name)
    try:
        register()
    except BaseException:
        # Undo the binding and the record so a later load() can retry cleanly.
        del _LOADED_BACKENDS[name]
        if tirx is not None:
            _restore(tirx, name, previous_attr, alias, previous_module)
        raise
    finally:
        _REGISTERING.discard(name)
    _alias_loaded_submodules(name)
    return module


def _tirx_package():
    """``tvm.tirx`` if it is imported (backends bind under it), else None.

    Never imports it (``import tvm`` loads the compiler layers lazily, issue 23): when
    ``tvm.tirx`` is imported later, :class:`_TirxLoader` binds the loaded backends under it.
    None in a runtime-only process (``TVM_USE_RUNTIME_LIB=1``), which has no compiler layers.
    """
    from .. import base

    if base._RUNTIME_ONLY:
        return None
    return sys.modules.get("tvm.tirx")


_TIRX_CALLBACKS: list = []  # run once tvm.tirx is imported (when_tirx_imported)


def when_tirx_imported(callback) -> None:
    """Call ``callback()`` once ``tvm.tirx`` is imported: now if it is, else right after.

    For backends whose ``register_backend()`` registers into tables of the compiler layers
    (the TIR pipelines, tile-primitive variants): ``import tvm`` loads the backends but
    imports those layers only on first use (issue 23). Never called in a runtime-only
    process.
    """
    from .. import base

    if base._RUNTIME_ONLY:
        return
    with _LOAD_LOCK:
        if "tvm.tirx" not in sys.modules:
            _TIRX_CALLBACKS.append(callback)
            return
    callback()


def _bind_under_tirx(tirx) -> None:
    """Bind every loaded backend as ``tvm.tirx.<name>`` (once ``tvm.tirx`` is imported)."""
    for name, module in list(_LOADED_BACKENDS.items()):
        if name not in vars(tirx):
            setattr(tirx, name, module)
        sys.modules.setdefault(_ALIAS_PREFIX + name, module)
        _alias_loaded_submodules(name)


class _TirxLoader(importlib.abc.Loader):
    """``tvm.tirx``'s own loader, then the binding of the backends loaded before it."""

    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        from .. import base

        if not base._RUNTIME_ONLY:
            with _LOAD_LOCK:
                _bind_under_tirx(module)
                callbacks = list(_TIRX_CALLBACKS)
                _TIRX_CALLBACKS.clear()
            for callback in callbacks:
                callback()

    def __getattr__(self, name):  # get_source, get_resource_reader, ... of the real loader
        return getattr(self.inner, name)


def _restore(tirx, name, previous_attr, alias, previous_module):
    if previous_attr is None:
        if name in vars(tirx):
            delattr(tirx, name)
    else:
        setattr(tirx, name, previous_attr)
    if previous_module is None:
        sys.modules.pop(alias, None)
    else:
        sys.modules[alias] = previous_module


def _alias_loaded_submodules(name: str) -> None:
    """Expose already-imported ``tvm.backend.<name>.*`` modules as ``tvm.tirx.<name>.*``."""
    if _tirx_package() is None:
        return
    prefix = f"{_BACKEND_PREFIX}{name}."
    for full_name, module in list(sys.modules.items()):
        if full_name.startswith(prefix):
            sys.modules.setdefault(_ALIAS_PREFIX + full_name[len(_BACKEND_PREFIX) :], module)


class _AliasLoader(importlib.abc.Loader):
    """Loads an alias by importing the real module and returning that very object."""

    def __init__(self, real_name: str):
        self.real_name = real_name

    def create_module(self, spec):
        return importlib.import_module(self.real_name)

    def exec_module(self, module):
        pass  # already executed under its real name


class _BackendAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``tvm.tirx.<backend>.<sub>`` to ``tvm.backend.<backend>.<sub>``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tvm.tirx":
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _TirxLoader(spec.loader)
            return spec
        if not fullname.startswith(_ALIAS_PREFIX):
            return None
        rest = fullname[len(_ALIAS_PREFIX) :]
        backend, _, sub = rest.partition(".")
        if not sub or backend not in _LOADED_BACKENDS:
            return None
        real_name = _BACKEND_PREFIX + rest
        if importlib.util.find_spec(real_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real_name))


if not any(isinstance(f, _BackendAliasFinder) for f in sys.meta_path):
    # First in line: the path-based finder would otherwise load a second copy of the file
    # from the real package's __path__ under the alias name.
    sys.meta_path.insert(0, _BackendAliasFinder())
