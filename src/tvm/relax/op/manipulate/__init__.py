"""Shape manipulation ops: ``relax.broadcast_to``, ``relax.permute_dims``, ``relax.reshape``."""

from __future__ import annotations

from ....ir.expr import PrimExpr
from ....ir.op import register_op_attr
from ....tirx import IndexMap, const
from ...expr import Call, PrimValue, ShapeExpr
from ..op_attrs import PermuteDimsAttrs
from ..registry import register_op_table, register_relax_op
from .infer import infer_broadcast_to, infer_permute_dims, infer_reshape, normalize_reshape

__all__ = ["broadcast_to", "permute_dims", "reshape"]

_BROADCAST_TO = register_relax_op(
    "broadcast_to",
    2,
    "manipulate",
    infer_broadcast_to,
    description="Broadcast a tensor to a shape.",
)
_PERMUTE_DIMS = register_relax_op(
    "permute_dims",
    1,
    "manipulate",
    infer_permute_dims,
    attrs_type_key="relax.attrs.PermuteDimsAttrs",
    description="Permute the dims of a tensor.",
)
_RESHAPE = register_relax_op(
    "reshape", 2, "manipulate", infer_reshape, description="Reshape a tensor."
)
# Reshape has an op-specific normal form (a -1 dim resolved), applied by the normalizer.
register_op_attr(_RESHAPE.name, "FNormalize", normalize_reshape)


def _shape(shape):
    return ShapeExpr(shape) if isinstance(shape, (list, tuple)) else shape


def broadcast_to(x, shape) -> Call:
    """``R.broadcast_to(x, shape)``."""
    return Call(_BROADCAST_TO, [x, _shape(shape)])


def permute_dims(x, axes=None) -> Call:
    """``R.permute_dims(x, axes=None)``: reverse the dims when ``axes`` is None."""
    if axes is not None:
        axes = tuple(int(a) for a in axes)
    return Call(_PERMUTE_DIMS, [x], PermuteDimsAttrs(axes))


def reshape(x, shape) -> Call:
    """``R.reshape(x, shape)``; one dim may be -1 (solved from the element count)."""
    return Call(_RESHAPE, [x, _shape(shape)])


# --- the op library's shape manipulation ops ---------------------------------------------------

from ...expr import Tuple
from ..infer_utils import prim_value_arg
from ..op_attrs import (
    ConcatAttrs,
    ExpandDimsAttrs,
    FlipAttrs,
    GatherElementsAttrs,
    LayoutTransformAttrs,
    OneHotAttrs,
    RepeatAttrs,
    ScatterElementsAttrs,
    SplitAttrs,
    SqueezeAttrs,
    StackAttrs,
    TileAttrs,
)
from . import infer as _infer

# Each op's rule is ``infer.infer_<name>``, so the rows name only the op, arity, attrs, doc.
_M = register_op_table(
    "",
    "manipulate",
    (
        (name, n, getattr(_infer, f"infer_{name}"), key, doc)
        for name, n, key, doc in (
            ("expand_dims", 1, "ExpandDimsAttrs", "Insert size-1 dims."),
            ("squeeze", 1, "SqueezeAttrs", "Remove size-1 dims."),
            ("flatten", 1, "", "Flatten to 1-D."),
            ("concat", 1, "ConcatAttrs", "Join tensors along an axis."),
            ("stack", 1, "StackAttrs", "Stack tensors along a new axis."),
            ("split", 1, "SplitAttrs", "Split a tensor into a tuple of pieces."),
            ("collapse_sum_like", 2, "", "Sum a tensor down to another tensor's shape."),
            ("collapse_sum_to", 2, "", "Sum a tensor down to a shape."),
            ("repeat", 1, "RepeatAttrs", "Repeat elements along an axis."),
            ("tile", 1, "TileAttrs", "Tile a tensor."),
            ("flip", 1, "FlipAttrs", "Reverse the order along an axis."),
            ("gather_elements", 2, "GatherElementsAttrs", "Gather elements along an axis."),
            ("scatter_elements", 3, "ScatterElementsAttrs", "Scatter updates along an axis."),
            ("one_hot", 3, "OneHotAttrs", "One-hot encode integer indices."),
            ("layout_transform", 1, "LayoutTransformAttrs", "Transform the layout of a tensor."),
        )
    ),
)


def _int_list(value):
    return [int(value)] if isinstance(value, int) else [int(v) for v in value]


def _tensors(tensors):
    return Tuple(list(tensors)) if isinstance(tensors, (list, tuple)) else tensors


def expand_dims(x, axis) -> Call:
    """``R.expand_dims(x, axis)``: insert size-1 dims at ``axis`` (positions in the output)."""
    return Call(_M["expand_dims"], [x], ExpandDimsAttrs(_int_list(axis)))


def squeeze(x, axis=None) -> Call:
    """``R.squeeze(x, axis=None)``: remove size-1 dims (all of them when ``axis`` is None)."""
    return Call(_M["squeeze"], [x], SqueezeAttrs(None if axis is None else _int_list(axis)))


def flatten(x) -> Call:
    """``R.flatten(x)``: a 1-D tensor of all elements."""
    return Call(_M["flatten"], [x])


def concat(tensors, axis=0) -> Call:
    """``R.concat(tensors, axis=0)``: join along ``axis`` (None: flatten each first)."""
    return Call(_M["concat"], [_tensors(tensors)], ConcatAttrs(None if axis is None else int(axis)))


def stack(tensors, axis=0) -> Call:
    """``R.stack(tensors, axis=0)``: stack equal-shaped tensors along a new ``axis``."""
    return Call(_M["stack"], [_tensors(tensors)], StackAttrs(int(axis)))


def split(x, indices_or_sections, axis=0) -> Call:
    """``R.split(x, indices_or_sections, axis=0)``: a tuple of pieces.

    An int ``k`` gives ``k`` pieces of ``ceil(n / k)`` elements (the last one shorter, as in
    TVM); a list gives the split points.
    """
    if not isinstance(indices_or_sections, int):
        indices_or_sections = [int(getattr(i, "value", i)) for i in indices_or_sections]
    return Call(_M["split"], [x], SplitAttrs(indices_or_sections, int(axis)))


def collapse_sum_like(data, collapse_target) -> Call:
    """``R.collapse_sum_like(data, collapse_target)``: sum down to the target's shape."""
    return Call(_M["collapse_sum_like"], [data, collapse_target])


def collapse_sum_to(data, shape) -> Call:
    """``R.collapse_sum_to(data, shape)``: sum down to ``shape`` (the reverse of broadcasting)."""
    return Call(_M["collapse_sum_to"], [data, _shape(shape)])


def repeat(data, repeats, axis=None) -> Call:
    """``R.repeat(data, repeats, axis=None)``: repeat each element (``axis=None``: flattened)."""
    return Call(
        _M["repeat"], [data], RepeatAttrs(int(repeats), None if axis is None else int(axis))
    )


def tile(data, repeats) -> Call:
    """``R.tile(data, repeats)``: tile ``data`` (``numpy.tile`` semantics)."""
    return Call(_M["tile"], [data], TileAttrs(_int_list(repeats)))


def flip(data, axis) -> Call:
    """``R.flip(data, axis)``: reverse the order of elements along ``axis``."""
    return Call(_M["flip"], [data], FlipAttrs(int(axis)))


def gather_elements(data, indices, axis=0) -> Call:
    """``R.gather_elements(data, indices, axis=0)``: ``out[i][j] = data[indices[i][j]][j]``."""
    return Call(_M["gather_elements"], [data, indices], GatherElementsAttrs(int(axis)))


def scatter_elements(data, indices, updates, axis=0, reduction="update") -> Call:
    """``R.scatter_elements(data, indices, updates, axis=0, reduction="update")``.

    ``reduction`` is update, add, mul, max, min or mean; as in TVM 0.27, ``mean`` replaces the
    current value by its average with each update in turn (a running pairwise mean).
    """
    return Call(
        _M["scatter_elements"],
        [data, indices, updates],
        ScatterElementsAttrs(int(axis), str(reduction)),
    )


def one_hot(indices, on_value, off_value, depth, axis=-1) -> Call:
    """``R.one_hot(indices, on_value, off_value, depth, axis=-1)``; values are PrimValues."""
    on_value = prim_value_arg(on_value, "one_hot", "on_value")
    off_value = prim_value_arg(off_value, "one_hot", "off_value")
    return Call(_M["one_hot"], [indices, on_value, off_value], OneHotAttrs(int(depth), int(axis)))


def layout_transform(x, index_map, pad_value=None) -> Call:
    """``R.layout_transform(x, index_map, pad_value=None)``: ``out[index_map(i)] = x[i]``.

    ``index_map`` is a ``tirx.IndexMap`` or a callable (converted with
    ``IndexMap.from_func``, int64 indices). Output positions no input index reaches (a split
    by a factor that does not divide the dim) hold ``pad_value``, stored as a constant of
    ``x``'s dtype (0 when None).
    """
    if not isinstance(index_map, IndexMap):
        if not callable(index_map):
            raise TypeError(
                f"layout_transform expects index_map to be a tirx.IndexMap or a callable, "
                f"got {index_map!r}"
            )
        index_map = IndexMap.from_func(index_map, index_dtype="int64")
    if isinstance(pad_value, PrimValue):
        pad_value = pad_value.value
    if pad_value is not None and not isinstance(pad_value, PrimExpr):
        if isinstance(pad_value, bool) or not isinstance(pad_value, (int, float)):
            raise TypeError(
                f"layout_transform expects pad_value to be an int, a float or a PrimExpr, "
                f"got {pad_value!r}"
            )
        dtype = getattr(getattr(x, "ty", None), "dtype", None)
        if not dtype or dtype == "void":
            dtype = "float32" if isinstance(pad_value, float) else "int64"
        pad_value = const(pad_value, dtype)
    return Call(_M["layout_transform"], [x], LayoutTransformAttrs(index_map, pad_value))


__all__ += [
    "collapse_sum_like",
    "collapse_sum_to",
    "concat",
    "expand_dims",
    "flatten",
    "flip",
    "gather_elements",
    "layout_transform",
    "one_hot",
    "repeat",
    "scatter_elements",
    "split",
    "squeeze",
    "stack",
    "tile",
]

from . import reference  # noqa: F401 - registers FReference after the ops exist
