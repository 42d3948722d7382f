"""Relax operators (``tvm.relax.op``).

Layout: one folder per op family, ``<family>/__init__.py`` declares the ops (constructor
functions plus ``register_relax_op`` with the inference rule) and ``<family>/infer.py`` holds
the inference rules; attribute classes are in ``op_attrs.py``. The core call ops
(``call_tir``, ``print``, ...) are in ``base.py``.
"""

# ruff: noqa: F401
from . import op_attrs
from .base import (
    call_dps_packed,
    call_packed,
    call_pure_packed,
    call_tir,
    invoke_closure,
    invoke_pure_closure,
    make_closure,
    null_value,
    print,
    shape_of,
)
from .binary import add, multiply
from .create import ones, zeros
from .linear_algebra import matmul
from .manipulate import broadcast_to, permute_dims, reshape
from .statistical import sum

# The op library's families (unary, ternary, datatype, index, search, nn, grad) and the ops
# added to the core families.
from . import datatype, grad, index, nn, search, ternary, unary  # noqa: E402
from .binary import *  # noqa: E402,F403
from .create import *  # noqa: E402,F403
from .datatype import *  # noqa: E402,F403
from .index import *  # noqa: E402,F403
from .linear_algebra import *  # noqa: E402,F403
from .manipulate import *  # noqa: E402,F403
from .search import *  # noqa: E402,F403
from .statistical import *  # noqa: E402,F403
from .ternary import *  # noqa: E402,F403
from .unary import *  # noqa: E402,F403
