"""``tvm.topi.nn``: neural-network computes (dense/matmul, activations, softmax, convolutions,
pooling, normalization, losses, attention, padding)."""

from .attention import attention
from .conv import (
    conv,
    conv1d,
    conv1d_ncw,
    conv1d_nwc,
    conv2d,
    conv2d_nchw,
    conv2d_nhwc,
    conv2d_transpose,
    conv2d_transpose_nchw,
    get_pad_tuple,
    group_conv2d_nchw,
    group_conv2d_transpose_nchw,
)
from .conv_transpose import (
    conv1d_transpose_ncw,
    conv3d_transpose_ncdhw,
    group_conv1d_transpose_ncw,
    group_conv3d_transpose_ncdhw,
)
from .dense import batch_matmul, dense, matmul
from .dilate import dilate
from .elemwise import (
    dropout,
    gelu,
    gelu_tanh,
    leaky_relu,
    prelu,
    relu,
    silu,
    softplus,
)
from .loss import cross_entropy_with_logits, nll_loss, nll_loss_backward
from .norm import batch_norm, group_norm, layer_norm, rms_norm
from .pad import mirror_pad, pad, replicate_pad
from .pooling import (
    adaptive_pool,
    global_pool,
    layout_spatial_axes,
    pool2d,
    pool_grad,
    pool_nd,
)
from .softmax import log_softmax, softmax


def flatten(data):
    """``data`` reshaped to ``(batch, product of the other extents)`` (TVM's batch flatten)."""
    # Lazy: transform sits beside nn in topi; imported at call time to keep nn's imports flat.
    from ..transform import reshape

    rest = data.shape[1] if data.ndim > 1 else 1
    for dim in data.shape[2:]:
        rest = rest * dim
    return reshape(data, (data.shape[0], rest))


# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "adaptive_pool", "attention", "batch_matmul", "batch_norm", "conv", "conv1d", "conv1d_ncw",
    "conv1d_nwc", "conv1d_transpose_ncw", "conv2d", "conv2d_nchw", "conv2d_nhwc",
    "conv2d_transpose", "conv2d_transpose_nchw", "conv3d_transpose_ncdhw",
    "cross_entropy_with_logits", "dense", "dilate", "dropout", "flatten", "gelu", "gelu_tanh",
    "get_pad_tuple", "global_pool", "group_conv1d_transpose_ncw", "group_conv2d_nchw",
    "group_conv2d_transpose_nchw", "group_conv3d_transpose_ncdhw", "group_norm", "layer_norm",
    "layout_spatial_axes", "leaky_relu", "log_softmax", "matmul", "mirror_pad", "nll_loss",
    "nll_loss_backward", "pad", "pool2d", "pool_grad", "pool_nd", "prelu", "relu", "replicate_pad",
    "rms_norm", "silu", "softmax", "softplus",
]
