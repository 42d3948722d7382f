"""``tvm.topi``: operator computes written in ``te`` (what Relax legalization lowers to).

Each function takes ``te.Tensor`` inputs and returns ``te.Tensor`` outputs; wrap them in a
PrimFunc with :func:`tvm.te.create_prim_func`. Families: :mod:`.math` (unary elementwise),
:mod:`.broadcast` (binary with NumPy broadcasting), :mod:`.reduction`, :mod:`.transform`
(shape manipulation, indexing, creation), :mod:`.scan`, :mod:`.sort`, :mod:`.einsum` and
:mod:`.nn` (dense/matmul, softmax, convolutions, pooling, norms, losses, attention).

Examples
--------
>>> import numpy as np
>>> from tvm import te, topi
>>> from tvm.tirx.interpreter import run_prim_func
>>> A = te.placeholder((2, 3), name="A")
>>> B = topi.sum(topi.exp(A), axis=1)
>>> a, b = np.zeros((2, 3), "float32"), np.zeros(2, "float32")
>>> run_prim_func(te.create_prim_func([A, B]), [a, b]); b.tolist()
[3.0, 3.0]
"""

from . import nn, utils
from .broadcast import *
from .creation import *
from .einsum import einsum
from .index import *
from .math import *
from .reduction import *
from .scan import cumprod, cumsum, scanop
from .sort import argsort, sort, topk
from .transform import *
from .utils import get_const_int, get_const_tuple

# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "abs", "acos", "acosh", "add", "all", "any", "arange", "argmax", "argmin", "argsort", "asin",
    "asinh", "atan", "atan2", "atanh", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
    "broadcast_shape", "broadcast_to", "cast", "ceil", "clip", "collapse_sum", "concatenate",
    "cos", "cosh", "cumprod", "cumsum", "divide", "dynamic_strided_slice", "einsum", "equal",
    "erf", "exp", "expand_dims", "eye", "fast_erf", "fast_exp", "fast_tanh", "flatten", "flip",
    "floor", "floor_divide", "floor_mod", "full", "full_like", "gather", "gather_elements",
    "get_const_int", "get_const_tuple", "greater", "greater_equal", "identity", "isfinite",
    "isinf", "isnan", "layout_transform", "layout_transform_index_map", "left_shift", "less",
    "less_equal", "log", "log2", "log10", "log_add_exp", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "max", "maximum", "mean", "min", "minimum", "mod",
    "multiply", "negative", "nn", "not_equal", "one_hot", "ones", "power", "prod", "reinterpret",
    "repeat", "reshape", "right_shift", "round", "rsqrt", "scanop", "scatter_elements", "sigmoid",
    "sign", "sin", "sinh", "sort", "split", "sqrt", "square", "squeeze", "stack", "std",
    "strided_slice", "subtract", "sum", "take", "tan", "tanh", "tile", "topk", "transpose", "tril",
    "trilu", "triu", "trunc", "trunc_divide", "trunc_mod", "utils", "variance", "where", "zeros",
]
