"""Legalization rules of the grad family.

``no_grad``, ``start_checkpoint`` and ``end_checkpoint`` are markers for the Gradient pass:
they legalize to their argument. The ``*_backward`` ops become te/topi computes.
"""

from __future__ import annotations

from .... import te, tirx
from ....topi import nn as tnn
from ...transform.legalize_ops.common import call_topi_with_attrs, reduce_axis, register_legalize


def _identity(bb, call):
    return call.args[0]


for _name in ("no_grad", "start_checkpoint", "end_checkpoint"):
    register_legalize(f"relax.grad.{_name}", _identity)


def _take_backward_te(axis):
    def take_backward(output_grad, x, indices):
        """``dx[.., i, ..] = sum_j (indices[j] == i) * output_grad[.., j, ..]`` (1-D or N-D
        indices; the indices' dims replace dim ``axis`` of ``x`` in ``output_grad``; with
        ``axis=None`` they index the flattened ``x``)."""
        idx_dims = list(indices.shape)
        rs = [reduce_axis(d, f"j{k}") for k, d in enumerate(idx_dims)]
        zero = tirx.const(0, output_grad.dtype)
        if axis is None:
            # take of the flattened x: compare each index with the row-major position of i.
            def flat_body(*i):
                flat = i[0]
                for k in range(1, len(i)):
                    flat = flat * x.shape[k] + i[k]
                pos = indices(*rs).astype(flat.dtype)
                return te.sum(tirx.Select(tirx.EQ(pos, flat), output_grad(*rs), zero), axis=rs)

            return te.compute(x.shape, flat_body, name="T_take_backward")
        ax = axis if axis >= 0 else axis + len(x.shape)

        def body(*i):
            i = list(i)
            pos = indices(*rs).astype(i[ax].dtype)
            g_idx = i[:ax] + rs + i[ax + 1 :]
            return te.sum(tirx.Select(tirx.EQ(pos, i[ax]), output_grad(*g_idx), zero), axis=rs)

        return te.compute(x.shape, body, name="T_take_backward")

    return take_backward


@register_legalize("relax.grad.take_backward")
def _take_backward(bb, call):
    axis = call.attrs.axis
    output_grad, x, indices = call.args
    return bb.call_te(
        _take_backward_te(None if axis is None else int(axis)),
        output_grad,
        x,
        indices,
        primfunc_name_hint="take_backward",
    )


@register_legalize("relax.grad.nll_loss_backward")
def _nll_loss_backward(bb, call):
    a = call.attrs

    def nll_loss_backward(output_grad, pred, tgt, *weight):
        return tnn.nll_loss_backward(
            output_grad, pred, tgt, weight[0] if weight else None, a.reduction, int(a.ignore_index)
        )

    return bb.call_te(nll_loss_backward, *call.args, primfunc_name_hint="nll_loss_backward")


for _kind in ("max", "avg"):
    register_legalize(
        f"relax.grad.{_kind}_pool2d_backward",
        call_topi_with_attrs(
            tnn.pool_grad, f"{_kind}_pool2d_backward", "ints:pool_size", "ints:strides",
            "ints:padding", [_kind], "bool:ceil_mode", "bool:count_include_pad", "layout",
            "ints:dilation", num_args=2,
        ),
    )  # fmt: skip
