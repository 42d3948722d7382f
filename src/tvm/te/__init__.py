"""``tvm.te``: tensor expressions (``placeholder``, ``compute``, reductions) and
``create_prim_func``, which lowers them to an s_tir ``PrimFunc``."""

from ..tirx.expr import Var  # noqa: F401
from ..tirx.generic import const, floordiv, floormod, truncdiv, truncmod  # noqa: F401
from .create_prim_func import create_prim_func  # noqa: F401
from .reduction import (  # noqa: F401
    CommReducer,
    Reduce,
    comm_reducer,
    max,
    max_value,
    min,
    min_value,
    reduce_axis,
    sum,
    thread_axis,
)
from .tensor import (  # noqa: F401
    ComputeOp,
    Operation,
    PlaceholderOp,
    ProducerLoad,
    Tensor,
    compute,
    placeholder,
    size_var,
    var,
)
