"""Relax operators (``tvm.relax.op``).

Layout: one folder per op family, ``<family>/__init__.py`` declares the ops (constructor
functions plus ``register_relax_op`` with the inference rule) and ``<family>/infer.py`` holds
the inference rules; attribute classes are in ``op_attrs.py``. The core call ops
(``call_tir``, ``print``, ...) are in ``base.py``.
"""

# ruff: noqa: F401
# Every family's ops are re-exported here (``relax.op.exp``); ``nn`` and ``grad`` stay
# namespaces (``relax.op.nn.conv2d``), as in TVM.
# builtin, memory and vm are the explicit-memory ops of the build passes.
from . import (
    builtin,
    datatype,
    grad,
    index,
    memory,
    nn,
    op_attrs,
    qdq,
    search,
    set,
    ternary,
    unary,
    vm,
)
from .base import (
    assert_op,
    call_dps_packed,
    call_packed,
    call_pure_packed,
    call_tir,
    call_tir_inplace,
    call_tir_with_grad,
    invoke_closure,
    invoke_pure_closure,
    make_closure,
    null_value,
    print,
    register_gradient,
    shape_of,
    shape_to_tensor,
    tensor_to_shape,
)
from .binary import *
from .binary import add, multiply

# Gradient rules (FPrimalGradient) use ops of several families, so they register once every
# family is loaded: one ``<family>/grad.py`` per family.
from .binary import grad as _binary_grad
from .create import *
from .create import grad as _create_grad
from .create import ones, zeros
from .datatype import *
from .datatype import grad as _datatype_grad
from .grad import grad as _grad_grad
from .index import *
from .index import grad as _index_grad
from .linear_algebra import *
from .linear_algebra import grad as _linear_algebra_grad
from .linear_algebra import matmul
from .manipulate import *
from .manipulate import broadcast_to, permute_dims, reshape
from .manipulate import grad as _manipulate_grad
from .nn import grad as _nn_grad
from .qdq import *
from .search import *
from .search import grad as _search_grad
from .set import *
from .statistical import *
from .statistical import grad as _statistical_grad
from .statistical import sum
from .ternary import *
from .ternary import grad as _ternary_grad
from .unary import *
from .unary import grad as _unary_grad
from .vm import call_builtin_with_ctx

# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "abs", "acos", "acosh", "add", "arange", "argmax", "argmin", "argsort", "asin", "asinh",
    "assert_op", "astype", "atan", "atan2", "atanh", "bitwise_and", "bitwise_not", "bitwise_or",
    "bitwise_xor", "broadcast_to", "builtin", "call_builtin_with_ctx", "call_dps_packed",
    "call_packed", "call_pure_packed", "call_tir", "call_tir_inplace", "call_tir_with_grad",
    "ceil", "clip", "collapse_sum_like", "collapse_sum_to", "concat", "cos", "cosh", "cumprod",
    "cumsum", "datatype", "dequantize", "divide", "dynamic_strided_slice", "einsum", "equal",
    "erf", "ewise_fma", "exp", "expand_dims", "eye", "flatten", "flip", "floor", "floor_divide",
    "floor_mod", "full", "full_like", "gather_elements", "grad", "greater", "greater_equal",
    "index", "invoke_closure", "invoke_pure_closure", "isfinite", "isinf", "isnan",
    "layout_transform", "left_shift", "less", "less_equal", "linear", "log", "log_add_exp",
    "logical_and", "logical_not", "logical_or", "logical_xor", "make_closure", "matmul", "max",
    "maximum", "mean", "median", "memory", "min", "minimum", "mod", "multiply", "negative", "nn",
    "not_equal", "null_value", "one_hot", "ones", "ones_like", "op_attrs", "outer", "permute_dims",
    "power", "print", "prod", "qdq", "quantize", "register_gradient", "repeat", "reshape",
    "right_shift", "round", "rsqrt", "scatter_elements", "search", "set", "shape_of",
    "shape_to_tensor", "sigmoid", "sign", "sin", "sinh", "sort", "split", "sqrt", "square",
    "squeeze", "stack", "std", "strided_slice", "subtract", "sum", "take", "tan", "tanh",
    "tensor_to_shape", "ternary", "tile", "topk", "tril", "triu", "trunc", "unary", "unique",
    "variance", "vm", "where", "wrap_param", "zeros", "zeros_like",
]
