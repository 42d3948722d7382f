"""IR-builder frames for modules: ``ir_module``, ``decl_function``, ``def_function``, attrs."""

from .frame import (  # noqa: F401
    IRModuleFrame,
    decl_function,
    def_function,
    ir_module,
    module_attrs,
    module_get_attr,
    module_global_infos,
    module_set_attr,
)
from .vdevice import lookup_vdevice, parse_vdevice, vdevice  # noqa: F401
