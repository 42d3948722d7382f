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

from . import nn, utils  # noqa: F401
from .broadcast import *
from .creation import *
from .einsum import einsum  # noqa: F401
from .index import *
from .math import *
from .reduction import *
from .scan import cumprod, cumsum, scanop  # noqa: F401
from .sort import argsort, sort, topk  # noqa: F401
from .transform import *
from .utils import get_const_int, get_const_tuple  # noqa: F401
