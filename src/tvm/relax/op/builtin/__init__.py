"""``R.builtin.alloc_tensor``: the output allocation that ``CallTIRRewrite`` makes explicit."""

from __future__ import annotations

from ...expr import Call
from ..memory._args import as_dtype, as_int, as_shape, as_str, tensor_of
from ..registry import register_relax_op

__all__ = ["alloc_tensor"]


def _infer_alloc_tensor(call, _bb=None):
    return tensor_of(call.args[0], call.args[1])


_ALLOC_TENSOR = register_relax_op(
    "builtin.alloc_tensor",
    4,
    "builtin",
    _infer_alloc_tensor,
    purity=False,
    description="Allocate a tensor (planned into storage by StaticPlanBlockMemory).",
)


def alloc_tensor(shape, dtype, runtime_device_index, storage_scope="global") -> Call:
    """``R.builtin.alloc_tensor(shape, dtype, runtime_device_index, storage_scope="global")``."""
    args = [as_shape(shape), as_dtype(dtype), as_int(runtime_device_index), as_str(storage_scope)]
    call = Call(_ALLOC_TENSOR, args)
    # As in TVM, the call carries its tensor type as ty_args (printed ``ty_args=(...)``).
    return Call(_ALLOC_TENSOR, args, None, [_infer_alloc_tensor(call)])
