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
from .structural import (  # noqa: F401
    format_path,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
)
