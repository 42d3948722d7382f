"""Legalization rules of the index family (``take``, ``strided_slice``,
``dynamic_strided_slice``).

``dynamic_strided_slice`` has a data-dependent output shape, so (as in TVM) it becomes three
steps: a kernel computing the output shape into an int64 tensor, the runtime builtin
``vm.builtin.tensor_to_shape`` with a ``match_cast`` binding fresh symbolic dims, and the
slicing kernel (NumPy slice semantics: negative indices count from the end, out-of-range
bounds are clamped).
"""

from __future__ import annotations

from .... import te, tirx, topi
from ...expr import PrimValue
from ...transform.legalize_ops.common import prim_value, register_legalize, tuple_fields


@register_legalize("relax.take")
def _take(bb, call):
    x, indices = call.args
    axis = call.attrs.axis
    mode = call.attrs.mode or "fast"
    if isinstance(indices, PrimValue) and isinstance(indices.value, tirx.IntImm):
        # A constant scalar index is folded into the kernel (no scalar parameter).
        indices = indices.value
    return bb.call_te(
        topi.take,
        x,
        indices,
        None if axis is None else int(axis),
        mode=mode,
        primfunc_name_hint="take",
    )


def _values(expr):
    return [prim_value(f) for f in tuple_fields(expr)]


@register_legalize("relax.strided_slice")
def _strided_slice(bb, call):
    x, axes, begin, end = call.args[:4]
    strides = _values(call.args[4]) if len(call.args) > 4 else None
    return bb.call_te(
        topi.strided_slice,
        x,
        _values(begin),
        _values(end),
        strides,
        _values(axes),
        assume_inbound=bool(call.attrs.assume_inbound),
        primfunc_name_hint="strided_slice",
    )


def _canonical_bounds(begin, end, stride, dim):
    """NumPy's normalized (begin, end) of one sliced axis of extent ``dim``."""
    zero, one = tirx.const(0, "int64"), tirx.const(1, "int64")

    def wrap(v, low, high):
        v = tirx.Select(v < zero, v + dim, v)
        return tirx.min(tirx.max(v, low), high)

    forward = stride > zero
    b = tirx.Select(forward, wrap(begin, zero, dim), wrap(begin, -one, dim - one))
    e = tirx.Select(forward, wrap(end, zero, dim), wrap(end, -one, dim - one))
    return b, e


def _slice_length(b, e, stride):
    zero, one = tirx.const(0, "int64"), tirx.const(1, "int64")
    span = tirx.Select(stride > zero, e - b, b - e)
    step = tirx.Select(stride > zero, stride, zero - stride)
    return tirx.max(tirx.floordiv(span + step - one, step), zero)


def _dynamic_slice_shape(x, begin, end, strides):
    """The output shape of a dynamic strided slice, as an int64 tensor."""
    naxes = int(begin.shape[0])
    dims = list(x.shape)

    def body(i):
        out = tirx.const(0, "int64")
        for axis in range(len(dims) - 1, -1, -1):
            dim = tirx.const(dims[axis], "int64") if isinstance(dims[axis], int) else dims[axis]
            if axis < naxes:
                k = tirx.const(axis, "int64")
                s = strides[k].astype("int64")
                b, e = _canonical_bounds(begin[k].astype("int64"), end[k].astype("int64"), s, dim)
                value = _slice_length(b, e, s)
            else:
                value = dim.astype("int64")
            out = tirx.Select(i == tirx.const(axis, i.dtype), value, out)
        return out

    return te.compute((len(dims),), body, name="T_shape_func_strided_slice_dynamic")


def _dynamic_slice_te(out_shape):
    def dynamic_strided_slice(x, begin, end, strides):
        naxes = int(begin.shape[0])

        def body(*idx):
            src = []
            for axis, i in enumerate(idx):
                if axis < naxes:
                    k = tirx.const(axis, "int64")
                    s = strides[k].astype("int64")
                    b, _ = _canonical_bounds(
                        begin[k].astype("int64"), end[k].astype("int64"), s, x.shape[axis]
                    )
                    src.append(b + i.astype("int64") * s)
                else:
                    src.append(i)
            return x(*src)

        return te.compute(out_shape, body, name="T_dynamic_strided_slice")

    return dynamic_strided_slice


@register_legalize("relax.dynamic_strided_slice")
def _dynamic_strided_slice(bb, call):
    from ...op.base import call_pure_packed
    from ...ty import ShapeType

    x, begin, end, strides = call.args
    shape_tensor = bb.emit_te(
        _dynamic_slice_shape,
        x,
        begin,
        end,
        strides,
        primfunc_name_hint="shape_func_dynamic_strided_slice",
    )
    ndim = x.ty.ndim
    shape = bb.emit(
        call_pure_packed("vm.builtin.tensor_to_shape", shape_tensor, ty_args=ShapeType(ndim=ndim))
    )
    # Fresh symbolic dims bound at run time by the match_cast; the slicing kernel receives
    # them as tir_vars.
    # Named apart per call: a kernel that reads two slices' results (as their gradient does)
    # needs distinct names for their dims.
    serial = bb.get_unique_name("dynamic_strided_slice_dims")[len("dynamic_strided_slice_dims") :]
    dims = [tirx.Var(f"s{i}_{serial}" if serial else f"s{i}", "int64") for i in range(ndim)]
    matched = bb.match_cast(shape, ShapeType(dims))
    call = bb.call_te(
        _dynamic_slice_te(dims),
        x,
        begin,
        end,
        strides,
        primfunc_name_hint="dynamic_strided_slice",
    )
    # The kernel's output buffer carries (s0, s1); the match_cast that defines them stays live
    # because the call's output type reads them.
    del matched
    return call


# The result shape is unknown before run time: LegalizeOps must not skip the call for that.
_dynamic_strided_slice.legalizes_unknown_output_shape = True
