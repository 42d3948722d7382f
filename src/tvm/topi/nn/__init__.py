"""``tvm.topi.nn``: neural-network computes (dense/matmul, activations, softmax, convolutions,
pooling, normalization, losses, attention, padding)."""

from .attention import attention  # noqa: F401
from .conv import (  # noqa: F401
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
from .conv_transpose import (  # noqa: F401
    conv1d_transpose_ncw,
    conv3d_transpose_ncdhw,
    group_conv1d_transpose_ncw,
    group_conv3d_transpose_ncdhw,
)
from .dense import batch_matmul, dense, matmul  # noqa: F401
from .dilate import dilate  # noqa: F401
from .elemwise import (  # noqa: F401
    dropout,
    gelu,
    gelu_tanh,
    leaky_relu,
    prelu,
    relu,
    silu,
    softplus,
)
from .loss import cross_entropy_with_logits, nll_loss, nll_loss_backward  # noqa: F401
from .norm import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401
from .pad import mirror_pad, pad, replicate_pad  # noqa: F401
from .pooling import (  # noqa: F401
    adaptive_pool,
    global_pool,
    layout_spatial_axes,
    pool2d,
    pool_grad,
    pool_nd,
)
from .softmax import log_softmax, softmax  # noqa: F401


def flatten(data):
    """``data`` reshaped to ``(batch, product of the other extents)`` (TVM's batch flatten)."""
    # Lazy: transform sits beside nn in topi; imported at call time to keep nn's imports flat.
    from ..transform import reshape

    rest = data.shape[1] if data.ndim > 1 else 1
    for dim in data.shape[2:]:
        rest = rest * dim
    return reshape(data, (data.shape[0], rest))
