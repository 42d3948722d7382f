"""TVMScript: Python-syntax text for TVM's IRs, parsed from the ``ast`` and printed back.

``tvm.script`` is mostly a *dialect registry*. A dialect is a namespace such as ``R`` (Relax)
or ``T`` (TIR); each has three parts, any of which may be the same module:

* the package users import (``from tvm.script import relax as R``);
* its parser namespace (``tvm.script.parser.<dialect>``);
* its IR-builder namespace (``tvm.script.ir_builder.<dialect>``).

:func:`register_dialect` records where they live. The names resolve lazily through a module
``__getattr__`` (for ``from tvm.script import relax``) and a ``sys.meta_path`` alias finder
(for ``import tvm.script.relax`` and the ``parser.<d>`` / ``ir_builder.<d>`` spellings).

Built-in dialects:

* ``relax``: ``tvm.script.parser.relax`` (parser and ``R`` namespace) and
  ``tvm.script.ir_builder.relax``;
* ``tirx``: ``tvm.script.parser.tirx`` (the ``T`` namespace and parser) and
  ``tvm.script.ir_builder.tirx``.

``tvm.tirx.script`` (Apache TVM's home of the TIRx dialect) is an alias too:
``tvm.tirx.script`` and ``tvm.tirx.script.parser`` are ``tvm.script.parser.tirx``,
``tvm.tirx.script.builder`` is ``tvm.script.ir_builder.tirx`` and ``tvm.tirx.script.tile`` the
``Tx`` namespace. The code stays in ``tvm.script`` because the layer rule keeps script code
out of ``tvm.tirx``.

``ir`` is not a dialect: ``tvm.script.ir`` and ``tvm.script.parser.ir`` are real modules.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = [
    "dialect_module",
    "from_source",
    "ir_builder",
    "ir_module",
    "parse",
    "parser",
    "register_dialect",
    "registered_dialects",
]

# dialect name -> (package, parser module, builder module)
_DIALECTS: dict[str, tuple[str, str, str]] = {}
_PARTS = {"package": 0, "parser": 1, "builder": 2}
_PREFIXES = {"tvm.script.": 0, "tvm.script.parser.": 1, "tvm.script.ir_builder.": 2}


def register_dialect(name: str, module_path: str, parser_module: str | None = None,
                     builder_module: str | None = None) -> None:
    """Record a TVMScript dialect.

    Parameters
    ----------
    name : str
        The dialect name, as in ``from tvm.script import <name>``.
    module_path : str
        The dialect's package.
    parser_module, builder_module : str, optional
        Its parser and IR-builder modules; by default ``<module_path>.parser`` and
        ``<module_path>.builder``.
    """
    _DIALECTS[name] = (
        module_path,
        parser_module or f"{module_path}.parser",
        builder_module or f"{module_path}.builder",
    )
    for prefix in _PREFIXES:
        # A stale alias from an earlier registration must not shadow the new one.
        alias = prefix + name
        target = _DIALECTS[name][_PREFIXES[prefix]]
        if alias != target and alias in sys.modules and sys.modules[alias].__name__ != target:
            del sys.modules[alias]


def registered_dialects() -> list[str]:
    """The names of the registered dialects."""
    return list(_DIALECTS)


def dialect_module(name: str, part: str = "package"):
    """Import a dialect's ``"package"``, ``"parser"`` or ``"builder"`` module."""
    if name not in _DIALECTS:
        raise ImportError(
            f"No TVMScript dialect named {name!r}; registered: {sorted(_DIALECTS)}"
        )
    return importlib.import_module(_DIALECTS[name][_PARTS[part]])


#: ``tvm.tirx.script`` spellings -> the real modules (prefixes; longest first).
_TIRX_SCRIPT_ALIASES = {
    "tvm.tirx.script.builder.tirx": "tvm.script.parser.tirx.tile",
    "tvm.tirx.script.builder": "tvm.script.ir_builder.tirx",
    "tvm.tirx.script.parser": "tvm.script.parser.tirx",
    "tvm.tirx.script.tile": "tvm.script.parser.tirx.tile",
    "tvm.tirx.script": "tvm.script.parser.tirx",
}


def _tirx_script_target(fullname: str) -> str | None:
    for alias, target in _TIRX_SCRIPT_ALIASES.items():
        if fullname == alias:
            return target
        if fullname.startswith(alias + ".") and alias != "tvm.tirx.script":
            return target + fullname[len(alias):]
    return None


def _alias_target(fullname: str) -> str | None:
    """The real module behind an alias such as ``tvm.script.relax.x`` (``None`` if none)."""
    if fullname.startswith("tvm.tirx.script"):
        return _tirx_script_target(fullname)
    # Longest prefix first: ``tvm.script.parser.`` before ``tvm.script.``.
    for prefix in sorted(_PREFIXES, key=len, reverse=True):
        if not fullname.startswith(prefix):
            continue
        rest = fullname[len(prefix):]
        head, _, tail = rest.partition(".")
        if head not in _DIALECTS:
            return None
        base = _DIALECTS[head][_PREFIXES[prefix]]
        target = f"{base}.{tail}" if tail else base
        return None if target == fullname else target
    return None


class _AliasLoader(importlib.abc.Loader):
    """Loads an alias by importing the real module and returning it as is."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        return None


class _DialectAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``tvm.script.<d>``, ``tvm.script.parser.<d>``, ``tvm.script.ir_builder.<d>``."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(("tvm.script.", "tvm.tirx.script")):
            return None
        real = _alias_target(fullname)
        if real is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(real))


if not any(isinstance(f, _DialectAliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _DialectAliasFinder())


def __getattr__(name):
    if name in _DIALECTS:
        return dialect_module(name)
    raise AttributeError(f"module 'tvm.script' has no attribute {name!r}")


register_dialect(
    "relax", "tvm.script.parser.relax",
    parser_module="tvm.script.parser.relax", builder_module="tvm.script.ir_builder.relax",
)
register_dialect(
    "tirx", "tvm.script.parser.tirx",
    parser_module="tvm.script.parser.tirx", builder_module="tvm.script.ir_builder.tirx",
)

from . import ir_builder, parser
from .parser import from_source, ir_module, parse
