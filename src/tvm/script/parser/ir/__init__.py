"""The ``I`` namespace of TVMScript: ``@I.ir_module``, module attributes, global infos.

``from tvm.script import ir as I`` gives this module (through :mod:`tvm.script.ir`).
"""

from __future__ import annotations

from tvm.ir import GlobalVar, IRModule, Range, StringType  # noqa: F401

from ...ir_builder.ir import (  # noqa: F401
    decl_function,
    def_function,
    module_attrs,
    module_get_attr,
    module_global_infos,
    module_set_attr,
)
from . import parser as _parser  # noqa: F401 - registers the "ir" handlers
from .entry import ir_module

__all__ = [
    "GlobalVar",
    "IRModule",
    "Range",
    "StringType",
    "ir_module",
    "decl_function",
    "def_function",
    "module_attrs",
    "module_get_attr",
    "module_set_attr",
    "module_global_infos",
]
