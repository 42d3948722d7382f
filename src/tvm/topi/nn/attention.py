"""Scaled dot-product ``attention`` with Relax's ``nn.attention`` layout and options.

``query`` is ``(batch, seq, heads, head_dim)``, ``key`` ``(batch, seq_kv, kv_heads,
head_dim)``, ``value`` ``(batch, seq_kv, kv_heads, head_dim_v)``; the result is ``(batch, seq,
heads, head_dim_v)``. ``scores = q . k * scale (+ bias)``, with ``scale`` defaulting to
``1 / sqrt(head_dim)``; ``bias`` broadcasts to ``(batch, heads, seq, seq_kv)``;
``causal_mask`` ``"TopLeft"`` hides ``t > s``, ``"BottomRight"`` hides ``t > s + seq_kv -
seq``. With fewer key/value heads (grouped-query attention), query head ``h`` reads key/value
head ``h % kv_heads``, as the Relax reference. Masked scores are the dtype's lowest finite
value, so a row with every score masked (``"BottomRight"`` with ``seq > seq_kv``) averages
all values where the NumPy reference gives NaN. ``window_size`` ``W`` (sliding-window
attention, only with ``"BottomRight"``, as TVM 0.27 defines it through flash attention's
``window_size_left = W - 1``, ``window_size_right = 0``) also hides ``t < s + seq_kv - seq -
(W - 1)``: each query sees the last ``W`` keys up to its diagonal.
"""

from __future__ import annotations

import math

from ... import te, tirx
from ...tirx import generic as _g
from ..broadcast import broadcast_index
from ..utils import as_index, const_like, get_const_int, is_const_int, reduce_axis
from .softmax import softmax

__all__ = ["attention", "check_window_size"]


def check_window_size(window_size, causal_mask):
    """ValueError unless ``window_size`` is a positive int used with ``"BottomRight"``."""
    if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 1:
        raise ValueError(f"attention: window_size must be a positive int, got {window_size!r}")
    if causal_mask != "BottomRight":
        # TVM 0.27 defines sliding windows only for the bottom-right causal mask (its flash
        # attention offload asserts so; its legalization rejects any window).
        raise ValueError(
            "attention: window_size (sliding-window attention) is only defined with "
            f"causal_mask='BottomRight', got causal_mask={causal_mask!r}"
        )


def attention(query, key, value, bias=None, scale=None, causal_mask=None, window_size=None):
    """Scaled dot-product attention (see the module docstring)."""
    if window_size is not None:
        check_window_size(window_size, causal_mask)
    if causal_mask not in (None, "TopLeft", "BottomRight"):
        raise ValueError(f"attention: causal_mask must be None, 'TopLeft' or 'BottomRight', "
                         f"got {causal_mask!r}")
    if query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        raise ValueError("attention expects 4-D query, key and value (batch, seq, heads, dim)")
    b, s, heads, dim = query.shape
    t, kv_heads = key.shape[1], key.shape[2]
    dim_v = value.shape[3]
    dtype = query.dtype
    if scale is None:
        if not is_const_int(dim):
            raise ValueError("attention: a symbolic head dimension needs an explicit scale")
        scale = 1 / math.sqrt(get_const_int(dim))
    scale_c = const_like(scale, dtype)
    rd = reduce_axis(dim, "rd")
    score_shape = (b, heads, s, t)

    def kv_head(h):
        return h if kv_heads is heads else _g.floormod(h, as_index(kv_heads, h.dtype))

    def score_body(bi, h, si, ti):
        qk = te.sum(query(bi, si, h, rd.var) * key(bi, ti, kv_head(h), rd.var), axis=[rd])
        return qk

    raw = te.compute(score_shape, score_body, name="T_attention_qk")

    def scaled_body(bi, h, si, ti):
        v = raw(bi, h, si, ti) * scale_c
        if bias is not None:
            v = v + bias(*broadcast_index(bias, score_shape, (bi, h, si, ti)))
        if causal_mask is not None:
            limit = si if causal_mask == "TopLeft" else si + as_index(t, si.dtype) - \
                as_index(s, si.dtype)
            hidden = _g.greater(ti, limit)
            if window_size is not None:
                # Sliding window: only the last window_size keys up to the diagonal.
                start = limit - as_index(int(window_size) - 1, si.dtype)
                hidden = _g.logical_or(hidden, _g.less(ti, start))
            v = tirx.Select(hidden, tirx.min_value(dtype), v)
        return v

    scores = te.compute(score_shape, scaled_body, name="T_attention_scores")
    probs = softmax(scores, axis=-1)
    rt = reduce_axis(t, "rt")

    def out_body(bi, si, h, dv):
        return te.sum(probs(bi, h, si, rt.var) * value(bi, rt.var, kv_head(h), dv), axis=[rt])

    return te.compute((b, s, heads, dim_v), out_body, name="T_attention", tag="attention")
