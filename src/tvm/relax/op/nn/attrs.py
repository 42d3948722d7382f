"""Attribute classes of the ``relax.nn`` ops (type keys ``relax.attrs.<Name>`` as in TVM 0.27).

Field order is TVM's printed order, so ``R.nn.conv2d(x, w, strides=[1, 1], ...)`` prints and
parses back the same.
"""

from __future__ import annotations

from ..op_attrs import Attrs

__all__ = [
    "AdaptivePool1DAttrs",
    "AdaptivePool2DAttrs",
    "AdaptivePool3DAttrs",
    "AttentionAttrs",
    "BatchNormAttrs",
    "Conv1DAttrs",
    "Conv2DAttrs",
    "Conv2DTransposeAttrs",
    "DropoutAttrs",
    "GroupNormAttrs",
    "LayerNormAttrs",
    "LeakyReluAttrs",
    "NLLLossAttrs",
    "PReluAttrs",
    "PadAttrs",
    "Pool1DAttrs",
    "Pool2DAttrs",
    "Pool3DAttrs",
    "RMSNormAttrs",
    "SoftmaxAttrs",
    "SoftplusAttrs",
]


class LeakyReluAttrs(Attrs, type_key="relax.attrs.LeakyReluAttrs"):
    """``leakyrelu``: the negative slope ``alpha``."""

    alpha: float = 0.01


class SoftplusAttrs(Attrs, type_key="relax.attrs.SoftplusAttrs"):
    """``softplus``: ``beta`` and the linear ``threshold``."""

    beta: float = 1.0
    threshold: float = 20.0


class SoftmaxAttrs(Attrs, type_key="relax.attrs.SoftmaxAttrs"):
    """``softmax``/``log_softmax``: the ``axis``."""

    axis: int = -1


class NLLLossAttrs(Attrs, type_key="relax.attrs.NLLLossAttrs"):
    """``nll_loss``: the ``reduction`` (none/mean/sum) and ``ignore_index``."""

    reduction: str = "mean"
    ignore_index: int = -100


class Conv1DAttrs(Attrs, type_key="relax.attrs.Conv1DAttrs"):
    """``conv1d``: strides, padding (before, after), dilation, groups, layouts, out dtype."""

    strides: object = (1,)
    padding: object = (0, 0)
    dilation: object = (1,)
    groups: int = 1
    data_layout: str = "NCW"
    kernel_layout: str = "OIW"
    out_layout: str = "NCW"
    out_dtype: object = None


class Conv2DAttrs(Attrs, type_key="relax.attrs.Conv2DAttrs"):
    """``conv2d``: strides, padding (top, left, bottom, right), dilation, groups, layouts."""

    strides: object = (1, 1)
    padding: object = (0, 0, 0, 0)
    dilation: object = (1, 1)
    groups: int = 1
    data_layout: str = "NCHW"
    kernel_layout: str = "OIHW"
    out_layout: str = "NCHW"
    out_dtype: object = None


class Conv2DTransposeAttrs(Attrs, type_key="relax.attrs.Conv2DTransposeAttrs"):
    """``conv2d_transpose``: like conv2d plus ``output_padding``; kernel layout IOHW."""

    strides: object = (1, 1)
    padding: object = (0, 0, 0, 0)
    output_padding: object = (0, 0)
    dilation: object = (1, 1)
    groups: int = 1
    data_layout: str = "NCHW"
    kernel_layout: str = "IOHW"
    out_layout: str = "NCHW"
    out_dtype: object = None


class Pool2DAttrs(Attrs, type_key="relax.attrs.Pool2DAttrs"):
    """``max_pool2d``/``avg_pool2d`` (and their backward ops)."""

    pool_size: object = (1, 1)
    strides: object = (1, 1)
    dilation: object = (1, 1)
    padding: object = (0, 0, 0, 0)
    ceil_mode: bool = False
    count_include_pad: bool = False
    layout: str = "NCHW"
    out_layout: str = "NCHW"


class Pool1DAttrs(Attrs, type_key="relax.attrs.Pool1DAttrs"):
    """``max_pool1d``/``avg_pool1d``: one value per spatial dim (padding: before, after)."""

    pool_size: object = (1,)
    strides: object = (1,)
    dilation: object = (1,)
    padding: object = (0, 0)
    ceil_mode: bool = False
    count_include_pad: bool = False
    layout: str = "NCW"
    out_layout: str = "NCW"


class Pool3DAttrs(Attrs, type_key="relax.attrs.Pool3DAttrs"):
    """``max_pool3d``/``avg_pool3d``: three values per field (padding: 3 before, 3 after)."""

    pool_size: object = (1, 1, 1)
    strides: object = (1, 1, 1)
    dilation: object = (1, 1, 1)
    padding: object = (0, 0, 0, 0, 0, 0)
    ceil_mode: bool = False
    count_include_pad: bool = False
    layout: str = "NCDHW"
    out_layout: str = "NCDHW"


class AdaptivePool1DAttrs(Attrs, type_key="relax.attrs.AdaptivePool1DAttrs"):
    """``adaptive_avg_pool1d``: ``output_size`` (None: the input size) and layouts."""

    output_size: object = None
    layout: str = "NCW"
    out_layout: str = "NCW"


class AdaptivePool3DAttrs(Attrs, type_key="relax.attrs.AdaptivePool3DAttrs"):
    """``adaptive_avg_pool3d``: ``output_size`` (None: the input size) and layouts."""

    output_size: object = None
    layout: str = "NCDHW"
    out_layout: str = "NCDHW"


class AdaptivePool2DAttrs(Attrs, type_key="relax.attrs.AdaptivePool2DAttrs"):
    """``adaptive_avg_pool2d``: ``output_size`` (None: the input size) and layouts."""

    output_size: object = None
    layout: str = "NCHW"
    out_layout: str = "NCHW"


class LayerNormAttrs(Attrs, type_key="relax.attrs.LayerNormAttrs"):
    """``layer_norm``: the normalized ``axes``, ``epsilon``, ``center``, ``scale``."""

    axes: object = (-1,)
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True


class GroupNormAttrs(Attrs, type_key="relax.attrs.GroupNormAttrs"):
    """``group_norm``: ``num_groups``, ``channel_axis``, ``axes``, ``epsilon``, center/scale."""

    num_groups: int = 1
    channel_axis: int = 1
    axes: object = ()
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True


class RMSNormAttrs(Attrs, type_key="relax.attrs.RMSNormAttrs"):
    """``rms_norm``: the normalized ``axes`` and ``epsilon``."""

    axes: object = (-1,)
    epsilon: float = 1e-5


class BatchNormAttrs(Attrs, type_key="relax.attrs.BatchNormAttrs"):
    """``batch_norm``: channel ``axis``, ``epsilon``, center/scale, ``momentum``, ``training``."""

    axis: int = 1
    epsilon: float = 1e-5
    center: bool = True
    scale: bool = True
    momentum: float = 0.1
    training: bool = True


class DropoutAttrs(Attrs, type_key="relax.attrs.DropoutAttrs"):
    """``dropout``: the drop ``rate``."""

    rate: float = 0.5


class AttentionAttrs(Attrs, type_key="relax.attrs.AttentionAttrs"):
    """``attention``: ``scale`` (None: 1/sqrt(head dim)), ``causal_mask``, ``window_size``."""

    scale: object = None
    causal_mask: object = None
    window_size: object = None


class PadAttrs(Attrs, type_key="relax.attrs.PadAttrs"):
    """``pad``: ``pad_width`` (before/after per dim), ``pad_value``, ``pad_mode``."""

    pad_width: object = ()
    pad_value: float = 0.0
    pad_mode: str = "constant"


class PReluAttrs(Attrs, type_key="relax.attrs.PReluAttrs"):
    """``prelu``: the channel ``axis`` that ``alpha`` runs along."""

    axis: int = 1
