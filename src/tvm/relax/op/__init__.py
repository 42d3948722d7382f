"""Relax operators (``tvm.relax.op``).

Layout: one folder per op family, ``<family>/__init__.py`` declares the ops (constructor
functions plus ``register_relax_op`` with the inference rule) and ``<family>/infer.py`` holds
the inference rules; attribute classes are in ``op_attrs.py``. The core call ops
(``call_tir``, ``print``, ...) are in ``base.py``.
"""

# ruff: noqa: F401
# Every family's ops are re-exported here (``relax.op.exp``); ``nn`` and ``grad`` stay
# namespaces (``relax.op.nn.conv2d``), as in TVM.
from . import datatype, grad, index, nn, op_attrs, search, ternary, unary
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
    register_gradient,
    shape_of,
)
from .binary import *
from .binary import add, multiply
from .create import *
from .create import ones, zeros
from .datatype import *
from .index import *
from .linear_algebra import *
from .linear_algebra import matmul
from .manipulate import *
from .manipulate import broadcast_to, permute_dims, reshape
from .search import *
from .statistical import *
from .statistical import sum
from .ternary import *
from .unary import *
