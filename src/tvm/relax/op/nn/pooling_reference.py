"""NumPy references (``FReference``) of the 1-D and 3-D pooling ops: the same window rules as
their lowering (``pooling_lower.py``), on unpacked layouts, computed in float64."""

from __future__ import annotations

import itertools

import numpy as np

from ..registry import register_reference

__all__ = []

_PRIMAL = {1: "NCW", 3: "NCDHW"}


def _canonical(x, layout, primal):
    return np.transpose(np.asarray(x, dtype=np.float64), [layout.index(c) for c in primal])


def _from_canonical(x, layout, primal):
    return np.transpose(x, [primal.index(c) for c in layout])


def _ref_pool(attrs, x, reduce_max):
    nsp = len(attrs.pool_size)
    primal = _PRIMAL[nsp]
    data = _canonical(x, attrs.layout, primal)
    extents = data.shape[2:]
    outs = []
    for s, n in enumerate(extents):
        k, st, d = attrs.pool_size[s], attrs.strides[s], attrs.dilation[s]
        span = n + attrs.padding[s] + attrs.padding[s + nsp] - (d * (k - 1) + 1)
        outs.append((span + (st - 1 if attrs.ceil_mode else 0)) // st + 1)
    out = np.zeros(data.shape[:2] + tuple(outs))
    for o in itertools.product(*(range(m) for m in outs)):
        vals, count = [], 0
        for ks in itertools.product(*(range(k) for k in attrs.pool_size)):
            pos = [o[s] * attrs.strides[s] - attrs.padding[s] + ks[s] * attrs.dilation[s]
                   for s in range(nsp)]
            inside = all(0 <= p < n for p, n in zip(pos, extents))
            in_pad = all(-attrs.padding[s] <= pos[s] < extents[s] + attrs.padding[s + nsp]
                         for s in range(nsp))
            if inside:
                vals.append(data[(slice(None), slice(None), *pos)])
            count += inside or (attrs.count_include_pad and in_pad)
        where = (slice(None), slice(None), *o)
        if reduce_max:
            out[where] = np.max(vals, axis=0) if vals else -np.inf
        else:
            out[where] = np.sum(vals, axis=0) / max(count, 1) if vals else 0.0
    return _from_canonical(out, attrs.out_layout, primal).astype(x.dtype)


def _ref_adaptive(attrs, x):
    primal = _PRIMAL[len(attrs.layout) - 2]
    data = _canonical(x, attrs.layout, primal)
    extents = data.shape[2:]
    outs = list(attrs.output_size) if attrs.output_size is not None else list(extents)
    out = np.zeros(data.shape[:2] + tuple(outs))
    for o in itertools.product(*(range(m) for m in outs)):
        window = tuple(slice((o[s] * n) // m, -((-(o[s] + 1) * n) // m))
                       for s, (n, m) in enumerate(zip(extents, outs)))
        out[(slice(None), slice(None), *o)] = data[(slice(None), slice(None), *window)].mean(
            axis=tuple(range(2, 2 + len(extents)))
        )
    return _from_canonical(out, attrs.out_layout, primal).astype(x.dtype)


for _d in (1, 3):
    register_reference(f"nn.max_pool{_d}d")(lambda attrs, x: _ref_pool(attrs, x, True))
    register_reference(f"nn.avg_pool{_d}d")(lambda attrs, x: _ref_pool(attrs, x, False))
    register_reference(f"nn.adaptive_avg_pool{_d}d")(_ref_adaptive)
