"""Type inference of shape manipulation: ``broadcast_to``, ``permute_dims``, ``reshape``."""

from __future__ import annotations

from ...ir_types import IntImm64
from ..infer_utils import (
    dim_text,
    is_one,
    known_shape,
    make_tensor_type,
    normalize_axes,
    op_name,
    prove_equal,
    shape_arg_values,
    shape_text,
    static_dim,
    tensor_arg,
)


def infer_broadcast_to(call, _bb=None):
    """The target shape, after checking each input dim is 1 or equal to the target's."""
    data = tensor_arg(call, 0)
    target, target_ndim = shape_arg_values(call, 1)
    if data.ndim != -1 and target_ndim != -1 and data.ndim > target_ndim:
        raise ValueError(
            f"broadcast_to expects the input tensor to have no more dims than the target "
            f"shape, but the input has ndim {data.ndim} and the target shape has ndim "
            f"{target_ndim}"
        )
    values = known_shape(data)
    if values is not None and target is not None:
        offset = len(target) - len(values)
        for i, dim in enumerate(values):
            want = target[offset + i]
            if not is_one(dim) and prove_equal(dim, want) is False:
                raise ValueError(
                    f"broadcast_to expects the input tensor shape to be broadcastable to the "
                    f"target shape.  The target shape at dim {offset + i} is {dim_text(want)} "
                    f"while the input tensor shape at dim {i} is {dim_text(dim)}, which are "
                    "not equal"
                )
    shape = call.args[1]
    if target is not None:
        return make_tensor_type(target, data.dtype, target_ndim, data.vdevice)
    return make_tensor_type(None, data.dtype, target_ndim, data.vdevice) if shape is None else (
        _shape_var_type(shape, data, target_ndim)
    )


def _shape_var_type(shape, data, ndim):
    from ...ty import TensorType

    if hasattr(shape, "name_hint"):  # a shape-typed Var: the type refers to it
        return TensorType(shape, data.dtype, data.vdevice)
    return TensorType(None, data.dtype, data.vdevice, ndim)


def infer_permute_dims(call, _bb=None):
    """Permute the dims by ``attrs.axes`` (reverse them when None)."""
    data = tensor_arg(call, 0)
    axes = call.attrs.axes
    if data.ndim == -1:
        ndim = -1 if axes is None else len(axes)
        return make_tensor_type(None, data.dtype, ndim, data.vdevice)
    if axes is None:
        order = list(range(data.ndim - 1, -1, -1))
    else:
        if len(axes) != data.ndim:
            raise ValueError(
                f"PermuteDims expects the number of input axes to equal the ndim of the input "
                f"tensor.  However, the tensor ndim is {data.ndim} while the given number of "
                f"axes is {len(axes)}"
            )
        order = normalize_axes(call, data.ndim, axes, "axis")
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, data.ndim, data.vdevice)
    return make_tensor_type([values[i] for i in order], data.dtype, data.ndim, data.vdevice)


def infer_reshape(call, _bb=None):
    """The new shape; a ``-1`` dim is solved from the element count when it is static."""
    data = tensor_arg(call, 0)
    target, target_ndim = shape_arg_values(call, 1)
    if target is None:
        return make_tensor_type(None, data.dtype, target_ndim, data.vdevice)
    values = known_shape(data)
    statics = [static_dim(v) for v in target]
    if statics.count(-1) > 1:
        raise ValueError(f"{op_name(call)} accepts at most one -1 in the new shape, got "
                         f"{shape_text(call.args[1].ty)}")
    old_static = None if values is None else [static_dim(v) for v in values]
    old_count = None
    if old_static is not None and None not in old_static:
        old_count = 1
        for v in old_static:
            old_count *= v
    if -1 in statics:
        known = 1
        for v in statics:
            if v is None:
                known = None
                break
            if v != -1:
                known *= v
        if known is None or old_count is None:
            return make_tensor_type(None, data.dtype, len(target), data.vdevice)
        target = list(target)
        target[statics.index(-1)] = IntImm64(old_count // known if known else 0)
        statics = [static_dim(v) for v in target]
    if old_count is not None and None not in statics:
        new_count = 1
        for v in statics:
            new_count *= v
        if new_count != old_count:
            raise ValueError(
                "Reshape expects the new shape to be convertible from the old shape.  However, "
                f"the old shape is {shape_text(data)}, with product {old_count}, while the new "
                f"shape is R.shape([{', '.join(str(v) for v in statics)}]), with product "
                f"{new_count}"
            )
    return make_tensor_type(target, data.dtype, len(target), data.vdevice)
