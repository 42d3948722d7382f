"""Normalization: ``layer_norm``, ``group_norm``, ``rms_norm`` and ``batch_norm``.

Statistics are computed in two passes (mean, then the mean of squared deviations: the biased
variance, as NumPy's ``var``). ``layer_norm`` and ``rms_norm`` are staged as TVM's and
accumulate float16 inputs in float32; the others compute in the input dtype.
"""

from __future__ import annotations

from ... import te, tirx
from ...tirx import generic as _g
from ..utils import (
    as_index,
    compute,
    const_like,
    get_const_int,
    is_const_int,
    normalize_axes,
    normalize_axis,
    reduce_axis,
    simplify,
)

__all__ = ["batch_norm", "group_norm", "layer_norm", "rms_norm"]


def _count(shape, axes, dtype):
    total = None
    for a in axes:
        dim = shape[a]
        term = const_like(get_const_int(dim), dtype) if is_const_int(dim) else _g.cast(dim, dtype)
        total = term if total is None else total * term
    return const_like(1, dtype) if total is None else total


def _mean_over(data, axes, value, name):
    """``mean(value(idx))`` over ``axes`` with the reduced axes kept as extent 1."""
    raxes = {a: reduce_axis(data.shape[a], f"k{a}") for a in axes}
    shape = tuple(const_like(1, s.dtype) if d in raxes else s for d, s in enumerate(data.shape))
    count = _count(data.shape, axes, data.dtype)

    def body(*i):
        idx = [raxes[d].var if d in raxes else v for d, v in enumerate(i)]
        return te.sum(value(idx), axis=list(raxes.values()))

    total = te.compute(shape, body, name=f"{name}_sum")
    return te.compute(shape, lambda *i: total(*i) / count, name=name)


def _stat_index(i, axes):
    return [const_like(0, v.dtype) if d in axes else v for d, v in enumerate(i)]


def _mean_var(data, axes, prefix):
    mean = _mean_over(data, axes, lambda idx: data(*idx), f"{prefix}_mean")

    def sq_dev(idx):
        diff = data(*idx) - mean(*_stat_index(idx, axes))
        return diff * diff

    var = _mean_over(data, axes, sq_dev, f"{prefix}_var")
    return mean, var


def _kept(i, axes):
    """The indices of ``i`` on the axes not in ``axes`` (a statistic's index)."""
    return [v for d, v in enumerate(i) if d not in axes]



def layer_norm(data, gamma, beta, axis, epsilon=1e-5):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over ``axis``; ``gamma``/``beta``
    have the normalized axes' shape (either may be ``None``).

    Staged as TVM's: ``<x>_sum`` and ``<x>_mean`` (shape without the normalized axes), then
    ``<x>_var_sum`` (sum of squared deviations), then ``T_layer_norm``, which divides the
    variance sum by the count. float16 inputs accumulate and normalize in float32 and are
    cast back before ``gamma``/``beta`` apply.
    """
    axes = normalize_axes(axis, data.ndim, "layer_norm")
    fp16 = data.dtype == "float16"
    acc = "float32" if fp16 else data.dtype
    raxes = {a: reduce_axis(data.shape[a], f"k{a}") for a in axes}
    stat_shape = tuple(s for d, s in enumerate(data.shape) if d not in axes)
    count = _count(data.shape, axes, acc)

    def read(idx):
        value = data(*idx)
        return _g.cast(value, acc) if fp16 else value

    def full_index(i):
        it = iter(i)
        return [raxes[d].var if d in raxes else next(it) for d in range(data.ndim)]

    total = compute(stat_shape, lambda *i: te.sum(read(full_index(i)),
                                                   axis=list(raxes.values())),
                    name=f"{data.name}_sum", tag="comm_reduce")
    mean = compute(stat_shape, lambda *i: total(*i) / count, name=f"{data.name}_mean",
                   tag="injective")

    def sq_dev(*i):
        diff = read(full_index(i)) - mean(*i)
        return te.sum(diff * diff, axis=list(raxes.values()))

    var_sum = compute(stat_shape, sq_dev, name=f"{data.name}_var_sum", tag="comm_reduce")
    eps = const_like(epsilon, acc)

    def body(*i):
        s = _kept(i, axes)
        out = (read(i) - mean(*s)) * tirx.rsqrt(var_sum(*s) / count + eps)
        if fp16:
            out = _g.cast(out, data.dtype)
        p = [i[a] for a in axes]
        if gamma is not None:
            out = out * gamma(*p)
        if beta is not None:
            out = out + beta(*p)
        return out

    return compute(data.shape, body, name="T_layer_norm", tag="injective")


def rms_norm(data, weight, axis, epsilon=1e-5):
    """``x / sqrt(mean(x^2) + epsilon) * weight`` over ``axis`` (``weight`` may be ``None``).

    Staged as TVM's, in float32 (float64 for float64 inputs): ``T_cast`` of ``x``, ``T_multiply``
    (the squares), ``T_multiply_red`` (their sum), ``rsqrt``, ``T_cast`` of ``weight``,
    ``T_rms_norm`` and a final ``T_cast`` back to the input dtype.
    """
    axes = normalize_axes(axis, data.ndim, "rms_norm")
    # TVM computes in float32; float64 inputs keep their precision here (a pytvm extension).
    acc = "float64" if data.dtype == "float64" else "float32"
    x32 = compute(data.shape, lambda *i: _g.cast(data(*i), acc), name="T_cast",
                  tag="elemwise")
    square = compute(data.shape, lambda *i: x32(*i) * x32(*i), name="T_multiply",
                     tag="broadcast")
    raxes = {a: reduce_axis(data.shape[a], f"k{a}") for a in axes}
    stat_shape = tuple(s for d, s in enumerate(data.shape) if d not in axes) or \
        (const_like(1, data.shape[0].dtype),)

    def total_body(*i):
        it = iter(i if len(axes) < data.ndim else ())
        idx = [raxes[d].var if d in raxes else next(it) for d in range(data.ndim)]
        return te.sum(square(*idx), axis=list(raxes.values()))

    total = compute(stat_shape, total_body, name="T_multiply_red", tag="comm_reduce")
    count = _count(data.shape, axes, acc)
    eps = const_like(epsilon, acc)

    def stat_index(i):
        kept = _kept(i, axes)
        return kept if kept else [const_like(0, stat_shape[0].dtype)]

    norm = compute(stat_shape, lambda *i: tirx.rsqrt(total(*i) / count + eps), name="rsqrt",
                   tag="injective")
    w32 = None
    if weight is not None:
        w32 = compute(weight.shape, lambda *i: _g.cast(weight(*i), acc), name="T_cast",
                      tag="elemwise")

    def body(*i):
        out = norm(*stat_index(i)) * x32(*i)
        return out if w32 is None else out * w32(*[i[a] for a in axes])

    out = compute(data.shape, body, name="T_rms_norm", tag="injective")
    return compute(data.shape, lambda *i: _g.cast(out(*i), data.dtype), name="T_cast",
                   tag="elemwise")


_tuple_sum = te.comm_reducer(lambda x, y: (x[0] + y[0], x[1] + y[1]),
                             lambda t0, t1: (const_like(0, t0), const_like(0, t1)),
                             name="tuple_sum")


def group_norm(data, gamma, beta, num_groups, channel_axis, axes, epsilon=1e-5):
    """Group normalization: channels split into ``num_groups`` groups; each group is
    normalized over its channels and ``axes``; ``gamma``/``beta`` are per channel.

    float32 and float16 inputs are staged as TVM's: ``data`` reshaped to split the channel
    axis into ``(groups, channels per group)`` (then cast to float32 for float16), one
    two-value reduction ``<x>_red_temp`` of ``x`` and ``x * x``, the variance as
    ``E[x^2] - E[x]^2``, ``T_group_norm`` in the split shape and a reshape back. Other dtypes
    (float64) use two passes (mean, then squared deviations) in the input dtype.
    """
    if data.dtype in ("float32", "float16"):
        return _group_norm_split(data, gamma, beta, num_groups, channel_axis, axes, epsilon)
    groups = get_const_int(num_groups)
    ch = normalize_axis(channel_axis, data.ndim, "group_norm")
    axes = [a for a in normalize_axes(axes, data.ndim, "group_norm") if a != ch]
    channels = data.shape[ch]
    if is_const_int(channels) and get_const_int(channels) % groups:
        raise ValueError(f"group_norm: {get_const_int(channels)} channels are not divisible "
                         f"into {groups} groups")
    per_group = _g.floordiv(channels, const_like(groups, channels.dtype))
    rc = reduce_axis(per_group, "rc")
    raxes = {a: reduce_axis(data.shape[a], f"k{a}") for a in axes}
    stat_shape = tuple(const_like(groups, s.dtype) if d == ch else
                       const_like(1, s.dtype) if d in raxes else s
                       for d, s in enumerate(data.shape))
    count = _count(data.shape, axes, data.dtype) * _g.cast(per_group, data.dtype)

    def src(i):
        idx = [raxes[d].var if d in raxes else v for d, v in enumerate(i)]
        idx[ch] = i[ch] * as_index(per_group, i[ch].dtype) + as_index(rc.var, i[ch].dtype)
        return idx

    all_axes = [rc] + list(raxes.values())
    total = te.compute(stat_shape, lambda *i: te.sum(data(*src(i)), axis=all_axes),
                       name="T_group_norm_sum")
    mean = te.compute(stat_shape, lambda *i: total(*i) / count, name="T_group_norm_mean")
    rc2 = reduce_axis(per_group, "rc")
    raxes2 = {a: reduce_axis(data.shape[a], f"k{a}") for a in axes}

    def sq_dev(*i):
        idx = [raxes2[d].var if d in raxes2 else v for d, v in enumerate(i)]
        idx[ch] = i[ch] * as_index(per_group, i[ch].dtype) + as_index(rc2.var, i[ch].dtype)
        diff = data(*idx) - mean(*i)
        return te.sum(diff * diff, axis=[rc2] + list(raxes2.values()))

    sq = te.compute(stat_shape, sq_dev, name="T_group_norm_sqsum")
    eps = const_like(epsilon, data.dtype)

    def body(*i):
        s = [const_like(0, v.dtype) if d in raxes else v for d, v in enumerate(i)]
        s[ch] = _g.floordiv(i[ch], as_index(per_group, i[ch].dtype))
        out = (data(*i) - mean(*s)) * tirx.rsqrt(sq(*s) / count + eps)
        if gamma is not None:
            out = out * gamma(i[ch])
        if beta is not None:
            out = out + beta(i[ch])
        return out

    return te.compute(data.shape, body, name="T_group_norm", tag="injective")


def _group_norm_split(data, gamma, beta, num_groups, channel_axis, axes, epsilon):
    """:func:`group_norm` for float32/float16, staged as TVM's (see there)."""
    from ..transform import reshape  # lazy: transform sits beside nn in topi

    groups = get_const_int(num_groups)
    ch = normalize_axis(channel_axis, data.ndim, "group_norm")
    channels = data.shape[ch]
    if is_const_int(channels) and get_const_int(channels) % groups:
        raise ValueError(f"group_norm: {get_const_int(channels)} channels are not divisible "
                         f"into {groups} groups")
    dt = channels.dtype
    per_group = _g.floordiv(channels, const_like(groups, dt))
    split_shape = [*data.shape[:ch], const_like(groups, dt), per_group, *data.shape[ch + 1:]]
    fp16 = data.dtype == "float16"
    x = reshape(data, split_shape)
    if fp16:
        x16 = x
        x = compute(x16.shape, lambda *i: _g.cast(x16(*i), "float32"), name="T_cast",
                    tag="elemwise")
    gamma_r = None if gamma is None else reshape(gamma, [const_like(groups, dt), per_group])
    beta_r = None if beta is None else reshape(beta, [const_like(groups, dt), per_group])
    new_axes = [ch + 1]
    for a in normalize_axes(axes, data.ndim, "group_norm"):
        if a == ch:
            raise ValueError("group_norm: axes must not contain the channel axis")
        new_axes.append(a if a < ch else a + 1)
    new_axes = sorted(new_axes)
    raxes = {a: reduce_axis(x.shape[a], f"k{a}") for a in new_axes}
    stat_shape = tuple(s for d, s in enumerate(x.shape) if d not in raxes)

    def sums(*i):
        it = iter(i)
        idx = [raxes[d].var if d in raxes else next(it) for d in range(len(x.shape))]
        value = x(*idx)
        return _tuple_sum((value, value * value), axis=list(raxes.values()))

    total, total_sq = compute(stat_shape, sums, name=f"{data.name}_red_temp",
                              tag="comm_reduce")
    count = _count(x.shape, new_axes, "float32")
    eps = const_like(epsilon, "float32")

    def body(*i):
        s = _kept(i, new_axes)
        mean = total(*s) / count
        var = total_sq(*s) / count - mean * mean
        out = (x(*i) - mean) * tirx.rsqrt(var + eps)
        if fp16:
            out = _g.cast(out, "float16")
        p = (i[ch], i[ch + 1])
        if gamma_r is not None:
            out = out * gamma_r(*p)
        if beta_r is not None:
            out = out + beta_r(*p)
        return out

    out = compute(x.shape, body, name="T_group_norm", tag="injective")
    return reshape(out, data.shape)


def _batch_norm_composed(data, gamma, beta, moving_mean, moving_var, axis, epsilon, center,
                         scale, training, momentum):
    """:func:`batch_norm` composed of topi's elementwise, reshape and sum computes, as TVM's
    topi composes it (statistics reshaped to broadcast along ``axis``; the output divides by
    ``sqrt(var + epsilon)``)."""
    from ... import topi  # lazy: the broadcast/reduce computes sit above nn in topi

    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    mean = var = None
    if training:
        reduce_axes = [d for d in range(data.ndim) if d != axis]
        count = const_like(1, data.shape[0].dtype)
        for d in reduce_axes:
            count = count * data.shape[d]
        count = simplify(count)
        mean = topi.divide(topi.sum(data, axis=reduce_axes), count)
        mean_rs = topi.reshape(mean, shape)
        diff = topi.multiply(topi.subtract(data, mean_rs), topi.subtract(data, mean_rs))
        var = topi.divide(topi.sum(diff, axis=reduce_axes), count)
        var_rs = topi.reshape(var, shape)
        out = topi.divide(topi.subtract(data, mean_rs),
                          topi.sqrt(topi.add(var_rs, const_like(epsilon, data.dtype))))
    else:
        mean_rs = topi.reshape(moving_mean, shape)
        var_rs = topi.reshape(moving_var, shape)
        out = topi.divide(topi.subtract(data, mean_rs),
                          topi.sqrt(topi.add(var_rs, const_like(epsilon, data.dtype))))
    if scale:
        out = topi.multiply(out, topi.reshape(gamma, shape))
    if center:
        out = topi.add(out, topi.reshape(beta, shape))
    if training:
        keep, take = const_like(1 - momentum, data.dtype), const_like(momentum, data.dtype)
        return [out,
                topi.add(topi.multiply(keep, moving_mean), topi.multiply(take, mean)),
                topi.add(topi.multiply(keep, moving_var), topi.multiply(take, var))]
    one = const_like(1, data.dtype)
    return [out, topi.multiply(moving_mean, one), topi.multiply(moving_var, one)]


def batch_norm(data, gamma, beta, moving_mean, moving_var, axis=None, epsilon=None,
               center=None, scale=None, training=None, momentum=None):
    """Batch normalization over every axis but ``axis`` (default 1).

    Returns ``[out, mean, var]``. Inference (``training`` false): normalizes with the moving
    statistics and returns them unchanged. Training: normalizes with the batch statistics and
    returns the updated moving statistics ``(1 - momentum) * moving + momentum * batch``
    (as Relax's ``batch_norm``). ``center``/``scale`` (default true) add ``beta`` and
    multiply by ``gamma``.
    """
    axis = normalize_axis(1 if axis is None else axis, data.ndim, "batch_norm")
    epsilon = 1e-5 if epsilon is None else epsilon
    center = True if center is None else center
    scale = True if scale is None else scale
    momentum = 0.1 if momentum is None else momentum
    if all(t.dtype == data.dtype for t in (gamma, beta, moving_mean, moving_var)):
        return _batch_norm_composed(data, gamma, beta, moving_mean, moving_var, axis, epsilon,
                                    center, scale, training, momentum)
    reduce = [d for d in range(data.ndim) if d != axis]
    if training:
        mean4, var4 = _mean_var(data, reduce, "T_batch_norm")
        zeros = [None] * data.ndim

        def stat(t):
            def read(c):
                idx = list(zeros)
                for d in range(data.ndim):
                    idx[d] = c if d == axis else const_like(0, c.dtype)
                return t(*idx)

            return read

        mean, var = stat(mean4), stat(var4)
        m = const_like(momentum, moving_mean.dtype)
        one = const_like(1, moving_mean.dtype)
        new_mean = te.compute(moving_mean.shape, lambda c: (one - m) * moving_mean(c) + m *
                              _g.cast(mean(c), moving_mean.dtype), name="T_batch_norm_mean")
        new_var = te.compute(moving_var.shape, lambda c: (one - m) * moving_var(c) + m *
                             _g.cast(var(c), moving_var.dtype), name="T_batch_norm_var")
    else:
        mean, var = moving_mean, moving_var
        new_mean = te.compute(moving_mean.shape, lambda c: moving_mean(c),
                              name="T_batch_norm_mean")
        new_var = te.compute(moving_var.shape, lambda c: moving_var(c), name="T_batch_norm_var")
    eps = const_like(epsilon, data.dtype)

    def body(*i):
        c = i[axis]
        mu, sigma2 = mean(c), var(c)
        out = (data(*i) - _g.cast(mu, data.dtype)) * tirx.rsqrt(_g.cast(sigma2, data.dtype) +
                                                                 eps)
        if scale:
            out = out * gamma(c)
        if center:
            out = out + beta(c)
        return out

    out = te.compute(data.shape, body, name="T_batch_norm", tag="injective")
    return [out, new_mean, new_var]
