"""The ``I`` namespace of TVMScript: ``@I.ir_module``, module attributes, global infos.

``from tvm.script import ir as I`` gives this module (through :mod:`tvm.script.ir`).
"""

from __future__ import annotations

from tvm.ir import GlobalVar, IRModule, Range, StringType

from ...ir_builder.ir import (
    decl_function,
    def_function,
    module_attrs,
    module_get_attr,
    module_global_infos,
    module_set_attr,
)
from ...ir_builder.ir.vdevice import lookup_vdevice, vdevice
from ...ir_builder.tirx.kernel import meta_var  # ``I.meta_var is T.meta_var``, as in TVM 0.27
from . import parser as _parser  # noqa: F401 - registers the "ir" handlers
from .entry import ir_module


def Op(name: str):
    """``I.Op("name")``: the registered op ``name`` (an op operand of a tile primitive)."""
    from tvm.ir import Op as _Op

    return _Op.get(name)

__all__ = [
    "GlobalVar",
    "IRModule",
    "Op",
    "Range",
    "StringType",
    "decl_function",
    "def_function",
    "ir_module",
    "lookup_vdevice",
    "meta_var",
    "module_attrs",
    "module_get_attr",
    "module_global_infos",
    "module_set_attr",
    "vdevice",
]
