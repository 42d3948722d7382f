"""Transposed 1-D and 3-D convolutions: ``R.nn.conv1d_transpose`` and
``R.nn.conv3d_transpose`` (their attrs, type inference and builders; 2-D lives beside the
other nn ops in ``__init__``).

Output extent per spatial axis: ``(n - 1) * stride - pad_before - pad_after +
dilation * (k - 1) + output_padding + 1``; output channels are the kernel's ``O`` times
``groups``. Layouts are permutations of ``NCW`` / ``NCDHW`` (data) and ``IOW`` / ``IODHW``
(kernel).
"""

from __future__ import annotations

from ...expr import Call
from ..infer_utils import (
    binary_dtype,
    dim_text,
    known_shape,
    make_tensor_type,
    prove_equal,
    simplify_dim,
    tensor_args,
)
from ..op_attrs import Attrs
from ..registry import register_op_table
from .args import dtype_arg, ints, padding_values
from .infer import _dims, _out_tensor, layout_axes

__all__ = [
    "Conv1DTransposeAttrs",
    "Conv3DTransposeAttrs",
    "conv1d_transpose",
    "conv3d_transpose",
    "infer_conv_transpose",
]


class Conv1DTransposeAttrs(Attrs, type_key="relax.attrs.Conv1DTransposeAttrs"):
    """``conv1d_transpose``: strides, padding (before, after), output padding, dilation,
    groups, layouts (NCW data, IOW kernel by default), out dtype."""

    strides: object = (1,)
    padding: object = (0, 0)
    output_padding: object = (0,)
    dilation: object = (1,)
    groups: int = 1
    data_layout: str = "NCW"
    kernel_layout: str = "IOW"
    out_layout: str = "NCW"
    out_dtype: object = None


class Conv3DTransposeAttrs(Attrs, type_key="relax.attrs.Conv3DTransposeAttrs"):
    """``conv3d_transpose``: as ``conv1d_transpose`` over D, H, W (NCDHW data, IODHW kernel;
    padding is the three leading then the three trailing widths)."""

    strides: object = (1, 1, 1)
    padding: object = (0, 0, 0, 0, 0, 0)
    output_padding: object = (0, 0, 0)
    dilation: object = (1, 1, 1)
    groups: int = 1
    data_layout: str = "NCDHW"
    kernel_layout: str = "IODHW"
    out_layout: str = "NCDHW"
    out_dtype: object = None


_SPATIAL = {1: "W", 3: "DHW"}
_NAMES = {1: "Conv1dTranspose", 3: "Conv3dTranspose"}  # TVM's spelling in messages


def infer_conv_transpose(call, _bb=None):
    """``(N, O * groups, out spatial)`` in ``out_layout`` (see the module docstring)."""
    data, weight = tensor_args(call, 2)
    attrs = call.attrs
    k = len(attrs.strides)
    spatial, name = _SPATIAL[k], _NAMES[k]
    out_dtype = attrs.out_dtype if attrs.out_dtype not in (None, "", "void") else None
    dtype = out_dtype or binary_dtype(call, data, weight)
    ndim = 2 + k
    daxes = layout_axes(call, attrs.data_layout, "NC" + spatial, "data")
    kaxes = layout_axes(call, attrs.kernel_layout, "IO" + spatial, "kernel")
    for ty, role in ((data, "data"), (weight, "weight")):
        if ty.ndim not in (-1, ndim):
            raise ValueError(
                f"{name} expects the {role} to be a {ndim}-D tensor, but it has ndim {ty.ndim}"
            )
    dv, kv = known_shape(data), known_shape(weight)
    if dv is None or kv is None:
        return make_tensor_type(None, dtype, ndim)
    n, c = _dims(dv, daxes, "NC")
    i, o = _dims(kv, kaxes, "IO")
    groups = int(attrs.groups)
    if prove_equal(c, i) is False:
        raise ValueError(
            f"{name} expects the channel size of the data should equal to the input channel "
            f"size of the weight. However, the data channel size is {dim_text(c)} while the "
            f"weight input channel size is {dim_text(i)}"
        )
    out = {"N": n, "C": o * groups}
    for s, letter in enumerate(spatial):
        extent, kernel = dv[daxes[letter]], kv[kaxes[letter]]
        out[letter] = simplify_dim(
            (extent - 1) * attrs.strides[s]
            - attrs.padding[s]
            - attrs.padding[s + k]
            + attrs.dilation[s] * (kernel - 1)
            + attrs.output_padding[s]
            + 1
        )
    return _out_tensor(call, out, attrs.out_layout, dtype, ndim)


_OPS = register_op_table(
    "nn.",
    "nn",
    (
        ("conv1d_transpose", 2, infer_conv_transpose, "Conv1DTransposeAttrs",
         "1-D transposed convolution."),
        ("conv3d_transpose", 2, infer_conv_transpose, "Conv3DTransposeAttrs",
         "3-D transposed convolution."),
    ),
)  # fmt: skip


def _build(name, attrs_cls, k, data, weight, strides, padding, output_padding, dilation,
           groups, data_layout, kernel_layout, out_layout, out_dtype):
    attrs = attrs_cls(
        ints(strides, k, "strides", name),
        padding_values(padding, k, name),
        ints(output_padding, k, "output_padding", name),
        ints(dilation, k, "dilation", name),
        int(groups),
        data_layout,
        kernel_layout,
        out_layout or data_layout,
        dtype_arg(out_dtype),
    )
    return Call(_OPS[name], [data, weight], attrs)


def conv1d_transpose(data, weight, strides=1, padding=0, output_padding=0, dilation=1,
                     groups=1, data_layout="NCW", kernel_layout="IOW", out_layout=None,
                     out_dtype=None):
    """``R.nn.conv1d_transpose(data, weight, ...)``: the gradient of ``conv1d`` with respect
    to its data (see the module docstring for the output shape).

    Examples
    --------
    >>> from tvm import relax
    >>> x = relax.Var("x", relax.TensorType([1, 4, 5], "float32"))
    >>> w = relax.Var("w", relax.TensorType([4, 2, 3], "float32"))
    >>> call = relax.op.nn.conv1d_transpose(x, w, strides=2, output_padding=1)
    >>> print(relax.BlockBuilder().normalize(call).ty)
    R.Tensor((1, 2, 12), dtype="float32")
    """
    return _build("conv1d_transpose", Conv1DTransposeAttrs, 1, data, weight, strides, padding,
                  output_padding, dilation, groups, data_layout, kernel_layout, out_layout,
                  out_dtype)


def conv3d_transpose(data, weight, strides=(1, 1, 1), padding=(0, 0, 0),
                     output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1,
                     data_layout="NCDHW", kernel_layout="IODHW", out_layout=None,
                     out_dtype=None):
    """``R.nn.conv3d_transpose(data, weight, ...)``: the 3-D form of
    :func:`conv1d_transpose`."""
    return _build("conv3d_transpose", Conv3DTransposeAttrs, 3, data, weight, strides, padding,
                  output_padding, dilation, groups, data_layout, kernel_layout, out_layout,
                  out_dtype)
