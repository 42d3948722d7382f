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
