"""``tvm.ffi``: the object model (declared nodes, structural equality) and our namespace
over ``tvm_ffi`` (function registry, tensors, devices, modules)."""

from .node import (  # noqa: F401
    DEF,
    IGNORE,
    USE,
    Field,
    Node,
    field,
    iter_children,
    iter_fields,
    node_types,
    set_field,
    walk,
)
from .registry import (  # noqa: F401
    Device,
    Function,
    Module,
    Object,
    Tensor,
    convert,
    get_global_func,
    init_ffi_api,
    list_global_func_names,
    register_func,
    register_global_func,
    register_object,
    remove_global_func,
)
from .structural import (  # noqa: F401
    format_path,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
)
