"""``tvm.relax.analysis``: type relations, variable analyses, dead-code removal."""

# ruff: noqa: F401
from .binding_analysis import (
    contains_impure_call,
    get_var2val,
    name_to_binding,
    post_order_visit,
    udchain,
    used_vars,
)
from .kept_bytes import estimate_kept_bytes
from .remove_unused import remove_all_unused
from .reshape_pattern import has_reshape_pattern
from .type_analysis import (
    BaseCheckResult,
    definable_tir_vars_in_type,
    derive_call_ret_type,
    erase_to_well_defined,
    get_static_type,
    is_base_of,
    struct_info_base_check,
    struct_info_lca,
    substitute_type,
    tir_vars_in_type,
    type_base_check,
    type_lca,
)
from .var_analysis import (
    all_global_vars,
    all_vars,
    bound_vars,
    defined_symbolic_vars,
    free_symbolic_vars,
    free_vars,
)
from .well_formed import check_well_formed, well_formed
