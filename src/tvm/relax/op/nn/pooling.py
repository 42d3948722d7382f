"""1-D and 3-D pooling (``R.nn.max_pool1d`` ... ``R.nn.adaptive_avg_pool3d``) and the type
inference shared by every pooling op, including packed layouts such as ``NCHW16c``.

A layout is a string of primal axes (upper case: ``N``, ``C``, ``D``, ``H``, ``W``) and
sub-axes (``16c``: the primal ``C`` axis split by 16, innermost part). A tensor in
``NCHW16c`` has 5 dims; its primal channel extent is ``dim1 * 16``. The output layout may
pack differently: its primal extents are divided by its own factors.

Legalization (lowering to TIR) exists for the 2-D ops in unpacked layouts only; the 1-D and
3-D ops and packed layouts are type-checked and printed/parsed but not lowered yet
(``LegalizeOps`` leaves them in place).
"""

from __future__ import annotations

from ...expr import Call
from ...ir_types import IntImm64
from ..infer_utils import known_shape, make_tensor_type, op_name, simplify_dim, tensor_arg
from ..registry import register_op_table
from .args import ints, padding_values
from .attrs import (
    AdaptivePool1DAttrs,
    AdaptivePool3DAttrs,
    Pool1DAttrs,
    Pool3DAttrs,
)
from .infer import window_out

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool3d",
    "avg_pool1d",
    "avg_pool3d",
    "infer_adaptive_pool",
    "infer_pool",
    "max_pool1d",
    "max_pool3d",
    "parse_layout",
]

#: Primal axes of the data layout, by number of spatial dims.
_PRIMAL = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def parse_layout(call, layout: str, letters: str, role: str):
    """The dims of ``layout`` as ``[(axis, factor)]``: ``factor`` is None for a primal axis,
    the split factor for a sub-axis (written lower case). The primal axes must permute
    ``letters``; each sub-axis must name one of them, once."""
    dims = []
    i = 0
    while i < len(layout):
        j = i
        while j < len(layout) and layout[j].isdigit():
            j += 1
        if j == len(layout):
            raise ValueError(f"{op_name(call)}: {role} layout {layout!r} ends with a number")
        axis = layout[j]
        if j > i:
            if not axis.islower() or int(layout[i:j]) <= 0:
                raise ValueError(
                    f"{op_name(call)}: in {role} layout {layout!r}, a split factor must be a "
                    f"positive number followed by a lower-case axis, got {layout[i:j + 1]!r}"
                )
            dims.append((axis, int(layout[i:j])))
        elif axis.isupper():
            dims.append((axis, None))
        else:
            raise ValueError(
                f"{op_name(call)}: in {role} layout {layout!r}, sub-axis {axis!r} needs a split "
                f"factor (e.g. 16{axis})"
            )
        i = j + 1
    primal = [a for a, f in dims if f is None]
    subs = [a.upper() for a, f in dims if f is not None]
    if sorted(primal) != sorted(letters) or len(set(subs)) != len(subs) or not set(subs) <= set(
        letters
    ):
        raise ValueError(
            f"{op_name(call)} supports {role} layouts whose primal axes permute {letters} "
            f"(optionally with split sub-axes such as 16c), got {layout!r}"
        )
    return dims


def _primal_extents(values, dims):
    """``{axis: primal extent}`` of a shape in layout ``dims``."""
    ext = {a: values[k] for k, (a, f) in enumerate(dims) if f is None}
    for a, f in dims:
        if f is not None:
            ext[a.upper()] = simplify_dim(ext[a.upper()] * f)
    return ext


def _shape_in(ext, dims):
    """The shape of primal extents ``ext`` laid out as ``dims`` (split axes divided)."""
    factors = {a.upper(): f for a, f in dims if f is not None}
    out = []
    for a, f in dims:
        if f is not None:
            out.append(IntImm64(f))
        elif a in factors:
            out.append(simplify_dim(ext[a] // factors[a]))
        else:
            out.append(ext[a])
    return out


def _pool_input(call, spatial: int):
    """``(data type, attrs, input dims, output dims, known shape)`` of a pooling call."""
    data = tensor_arg(call, 0, "input data")
    attrs = call.attrs
    letters = _PRIMAL[spatial]
    in_dims = parse_layout(call, attrs.layout, letters, "data")
    out_dims = parse_layout(call, attrs.out_layout, letters, "output")
    if data.ndim not in (-1, len(in_dims)):
        raise ValueError(
            f"In {op_name(call)}, layout {attrs.layout} requires the input to be "
            f"{len(in_dims)}-dim tensor. However, the given input has ndim {data.ndim}"
        )
    return data, attrs, in_dims, out_dims, known_shape(data)


def infer_pool(call, _bb=None):
    """``max_pool{1,2,3}d``/``avg_pool{1,2,3}d``: sliding-window extents per spatial axis
    (``ceil_mode`` rounds up), in ``out_layout``."""
    spatial = len(call.attrs.pool_size)
    data, attrs, in_dims, out_dims, values = _pool_input(call, spatial)
    if values is None:
        return make_tensor_type(None, data.dtype, len(out_dims), data.vdevice)
    ext = _primal_extents(values, in_dims)
    for k, axis in enumerate(_PRIMAL[spatial][2:]):
        ext[axis] = window_out(
            ext[axis],
            attrs.pool_size[k],
            attrs.strides[k],
            attrs.dilation[k],
            attrs.padding[k],
            attrs.padding[k + spatial],
            bool(attrs.ceil_mode),
        )
    return make_tensor_type(_shape_in(ext, out_dims), data.dtype, len(out_dims), data.vdevice)


def _adaptive_spatial(call) -> int:
    return {"AdaptivePool1DAttrs": 1, "AdaptivePool3DAttrs": 3}.get(type(call.attrs).__name__, 2)


def infer_adaptive_pool(call, _bb=None):
    """``adaptive_avg_pool{1,2,3}d``: the ``output_size`` spatial extents (the input's when
    None), in ``out_layout``."""
    spatial = _adaptive_spatial(call)
    data, attrs, in_dims, out_dims, values = _pool_input(call, spatial)
    if attrs.output_size is None and attrs.layout == attrs.out_layout and data.shape is not None:
        return data  # the identity on shapes: keep the input's type (shape variables too)
    if values is None:
        return make_tensor_type(None, data.dtype, len(out_dims), data.vdevice)
    ext = _primal_extents(values, in_dims)
    if attrs.output_size is not None:
        for axis, size in zip(_PRIMAL[spatial][2:], attrs.output_size):
            ext[axis] = IntImm64(size) if isinstance(size, int) else size
    return make_tensor_type(_shape_in(ext, out_dims), data.dtype, len(out_dims), data.vdevice)


POOL_OPS = (
    ("max_pool1d", 1, infer_pool, "Pool1DAttrs", "1-D max pooling."),
    ("avg_pool1d", 1, infer_pool, "Pool1DAttrs", "1-D average pooling."),
    ("max_pool3d", 1, infer_pool, "Pool3DAttrs", "3-D max pooling."),
    ("avg_pool3d", 1, infer_pool, "Pool3DAttrs", "3-D average pooling."),
    ("adaptive_avg_pool1d", 1, infer_adaptive_pool, "AdaptivePool1DAttrs", "1-D adaptive pooling."),
    ("adaptive_avg_pool3d", 1, infer_adaptive_pool, "AdaptivePool3DAttrs", "3-D adaptive pooling."),
)

_OPS = register_op_table("nn.", "nn", POOL_OPS)


def _pool(name, attrs_cls, spatial, data, pool_size, strides, padding, dilation, ceil_mode,
          count_include_pad, layout, out_layout):
    attrs = attrs_cls(
        ints(pool_size, spatial, "pool_size", name),
        ints(strides, spatial, "strides", name),
        ints(dilation, spatial, "dilation", name),
        padding_values(padding, spatial, name),
        bool(ceil_mode),
        bool(count_include_pad),
        layout,
        out_layout or layout,
    )
    return Call(_OPS[name], [data], attrs)


def max_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), dilation=(1,),
               ceil_mode=False, count_include_pad=False, layout="NCW", out_layout=None) -> Call:
    """``R.nn.max_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), ...)``.

    Parameters
    ----------
    data : Expr
        A 3-D tensor in ``layout`` (default NCW; packed layouts such as NCW16c allowed).
    pool_size, strides, dilation : int or tuple of 1 int
    padding : int or tuple of 1 or 2 (before, after) ints
    ceil_mode : bool
        Round the output size up.
    count_include_pad : bool
        Kept for TVM's signature (max pooling ignores padding).
    layout, out_layout : str
        Input and output layouts (``out_layout`` defaults to ``layout``).

    Examples
    --------
    >>> from tvm import relax
    >>> x = relax.Var("x", relax.TensorType([1, 3, 32], "float32"))
    >>> print(relax.BlockBuilder().normalize(relax.op.nn.max_pool1d(x, 3, 2)).ty)
    R.Tensor((1, 3, 15), dtype="float32")
    """
    return _pool("max_pool1d", Pool1DAttrs, 1, data, pool_size, strides, padding, dilation,
                 ceil_mode, count_include_pad, layout, out_layout)


def avg_pool1d(data, pool_size=(1,), strides=(1,), padding=(0, 0), dilation=(1,),
               ceil_mode=False, count_include_pad=True, layout="NCW", out_layout=None) -> Call:
    """``R.nn.avg_pool1d(...)``: as :func:`max_pool1d`; ``count_include_pad`` (default True,
    as in TVM) counts padded positions in the average."""
    return _pool("avg_pool1d", Pool1DAttrs, 1, data, pool_size, strides, padding, dilation,
                 ceil_mode, count_include_pad, layout, out_layout)


def max_pool3d(data, pool_size=(1, 1, 1), strides=(1, 1, 1), padding=(0, 0, 0),
               dilation=(1, 1, 1), ceil_mode=False, count_include_pad=False, layout="NCDHW",
               out_layout=None) -> Call:
    """``R.nn.max_pool3d(...)``: a 5-D tensor in ``layout`` (default NCDHW); ``padding`` is 1,
    3 or 6 (front, top, left, back, bottom, right) ints; otherwise as :func:`max_pool1d`."""
    return _pool("max_pool3d", Pool3DAttrs, 3, data, pool_size, strides, padding, dilation,
                 ceil_mode, count_include_pad, layout, out_layout)


def avg_pool3d(data, pool_size=(1, 1, 1), strides=(1, 1, 1), padding=(0, 0, 0),
               dilation=(1, 1, 1), ceil_mode=False, count_include_pad=True, layout="NCDHW",
               out_layout=None) -> Call:
    """``R.nn.avg_pool3d(...)``: as :func:`max_pool3d`, averaging (``count_include_pad``
    defaults to True, as in TVM)."""
    return _pool("avg_pool3d", Pool3DAttrs, 3, data, pool_size, strides, padding, dilation,
                 ceil_mode, count_include_pad, layout, out_layout)


def _adaptive(name, attrs_cls, spatial, data, output_size, layout, out_layout):
    if output_size is not None:
        output_size = ints(output_size, spatial, "output_size", name)
    return Call(_OPS[name], [data], attrs_cls(output_size, layout, out_layout or layout))


def adaptive_avg_pool1d(data, output_size=None, layout="NCW", out_layout=None) -> Call:
    """``R.nn.adaptive_avg_pool1d(data, output_size=None, layout="NCW", out_layout=None)``:
    average pooling to ``output_size`` (an int or 1-tuple; None keeps the input width)."""
    return _adaptive("adaptive_avg_pool1d", AdaptivePool1DAttrs, 1, data, output_size, layout,
                     out_layout)


def adaptive_avg_pool3d(data, output_size=None, layout="NCDHW", out_layout=None) -> Call:
    """``R.nn.adaptive_avg_pool3d(data, output_size=None, layout="NCDHW", out_layout=None)``:
    average pooling to ``output_size`` (an int or 3-tuple; None keeps the input extents)."""
    return _adaptive("adaptive_avg_pool3d", AdaptivePool3DAttrs, 3, data, output_size, layout,
                     out_layout)
