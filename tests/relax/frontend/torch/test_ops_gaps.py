"""The gaps of the torch frontend closed after its first pass (issue 24): advanced indexing on
non-adjacent dims, boolean masks (rejected, data-dependent shape), ``padding="same"``, 3-D
pooling, train-mode dropout (rejected: no RNG op), ``custom_convert_map`` keyed by torch
functions. Each translation is checked against PyTorch's own output on the reference
evaluator and compiled, with odd sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

import tvm

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


# ----- advanced indexing -------------------------------------------------------------------
class NonAdjacentIndex(torch.nn.Module):
    def forward(self, x, i, j, k):
        return (
            x[:, i, :, j],  # non-adjacent: broadcast index shape first
            x[i, :, :, j],
            x[:, i, k],  # adjacent pair, 2-D broadcast indices
            x[:, i, :, k.flatten()[:1]],  # broadcast (2,) with (1,)
            x[..., j],
            x[:, -1 - i],  # negative indices
        )


def test_index_non_adjacent(torch_check):
    x = _rand(3, 5, 4, 7)
    i = torch.tensor([0, 2, 4, 1, 2])[:2]
    j = torch.tensor([6, 0])
    k = torch.tensor([[1, 3], [0, 2]])
    torch_check.check(NonAdjacentIndex(), [x, i, j, k])


def test_index_bool_mask_rejected(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    class Masked(torch.nn.Module):
        def forward(self, x, m):
            return x[m]

    x = _rand(3, 4)
    ep = torch_check.export(Masked(), [x, x > 0])
    with pytest.raises(tvm.error.OpNotImplemented, match="boolean mask.*data-dependent"):
        from_exported_program(ep)


# ----- padding="same", 3-D convolution and pooling ---------------------------------------------
class SameConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(3, 4, 4, padding="same")  # even kernel: extra pad at the end
        self.c1d = torch.nn.Conv1d(3, 2, 3, padding="same", dilation=3)
        self.c2 = torch.nn.Conv2d(3, 5, (4, 3), padding="same", dilation=(1, 2))
        self.c2v = torch.nn.Conv2d(3, 2, 2, padding="valid", bias=False)

    def forward(self, x1, x2):
        return self.c1(x1), self.c1d(x1), self.c2(x2), self.c2v(x2)


@pytest.mark.parametrize("decompose", [True, False])
def test_conv_padding_same(torch_check, decompose):
    torch.manual_seed(0)
    args = [_rand(2, 3, 11), _rand(1, 3, 9, 8)]
    torch_check.check(SameConv(), args, run_ep_decomposition=decompose, rtol=1e-4, atol=1e-5)


class Conv3d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv3d(4, 6, 3, padding=1)
        self.b = torch.nn.Conv3d(4, 2, (2, 3, 1), stride=(2, 1, 2), dilation=(2, 1, 1), groups=2)
        self.c = torch.nn.Conv3d(4, 3, (4, 2, 3), padding="same", bias=False)

    def forward(self, x):
        return self.a(x), self.b(x), self.c(x)


@pytest.mark.parametrize("decompose", [True, False])
def test_conv3d(torch_check, decompose):
    torch.manual_seed(1)
    torch_check.check(Conv3d(), [_rand(2, 4, 7, 5, 6)], run_ep_decomposition=decompose, rtol=1e-4)


class Pool3d(torch.nn.Module):
    def forward(self, x):
        return (
            F.max_pool3d(x, 3, stride=2, padding=1),
            F.max_pool3d(x, (2, 3, 2), ceil_mode=True),
            F.avg_pool3d(x, 3, stride=(1, 2, 2), padding=1),
            F.avg_pool3d(x, 2, count_include_pad=False, padding=1),
            F.adaptive_avg_pool3d(x, (3, 2, 4)),
            F.adaptive_max_pool3d(x[:, :, :6, :4, :6], (3, 2, 3)),
        )


def test_pool3d(torch_check):
    torch_check.check(Pool3d(), [_rand(2, 3, 7, 5, 9)])


def test_adaptive_pool_indices_rejected(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    class WithIndices(torch.nn.Module):
        def forward(self, x):
            return F.adaptive_max_pool2d(x, 2, return_indices=True)

    ep = torch_check.export(WithIndices(), [_rand(1, 2, 6, 4)])
    with pytest.raises(ValueError, match="adaptive max pooling indices.*not supported"):
        from_exported_program(ep)


# ----- dropout -------------------------------------------------------------------------------
class DropMLP(torch.nn.Module):
    def __init__(self, p):
        super().__init__()
        self.fc = torch.nn.Linear(5, 3)
        self.drop = torch.nn.Dropout(p)

    def forward(self, x):
        return self.drop(self.fc(x))


@pytest.mark.parametrize("decompose", [True, False])
def test_train_mode_dropout_rejected(decompose):
    from tvm.relax.frontend.torch import from_exported_program

    model = DropMLP(0.3).train()
    ep = torch.export.export(model, (_rand(2, 5),))
    with pytest.raises(tvm.error.OpNotImplemented, match="training mode.*no random-number op"):
        from_exported_program(ep, run_ep_decomposition=decompose)


def test_train_mode_dropout_p0_is_identity():
    from tvm.relax.frontend.torch import from_exported_program
    from tvm.relax.testing import evaluate

    model = DropMLP(0.0).train()
    x = _rand(3, 5)
    mod = from_exported_program(torch.export.export(model, (x,)))
    got = evaluate(mod, x.numpy())
    got = got[0] if isinstance(got, (list, tuple)) else got
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, atol=1e-6)


# ----- printing a module with params ------------------------------------------------------------
def test_print_params_compact():
    """``params`` (runtime arrays) print as ``metadata["ffi.Tensor"][i]`` (as TVM 0.27)."""
    from tvm.relax.frontend.torch import from_exported_program

    model = torch.nn.Sequential(torch.nn.Linear(7, 300), torch.nn.ReLU(), torch.nn.Linear(300, 2))
    x = _rand(3, 7)
    mod = from_exported_program(torch.export.export(model.eval(), (x,)), keep_params_as_input=True)
    text = str(mod)
    attr_line = next(line for line in text.splitlines() if "R.func_attr" in line)
    refs = ", ".join(f'metadata["ffi.Tensor"][{i}]' for i in range(4))
    assert f'"params": [{refs}]' in attr_line
    assert text.rstrip().endswith(
        "# Metadata omitted. Use show_meta=True in script() method to show it."
    )
    assert len(text) < 2000, "the weights were printed"
    # show_meta=True writes the arrays themselves (here the first bias, 300 values)
    full = mod.script(show_meta=True)
    bias = mod["main"].attrs["params"][1].numpy()
    assert full.startswith("metadata = {") and '"ffi.Tensor": [' in full
    assert f"{bias[0]:.6g}"[:6] in full


class PoolIndices(torch.nn.Module):
    def forward(self, x2, x1, x3):
        a, ia = F.max_pool2d(x2, 3, stride=2, padding=1, return_indices=True)
        b, ib = F.max_pool2d(x2, (2, 3), dilation=(2, 1), ceil_mode=True, return_indices=True)
        c, ic = F.max_pool1d(x1, 4, stride=3, padding=2, return_indices=True)
        d, id_ = F.max_pool3d(x3, 2, return_indices=True)
        return a, ia, b, ib, c, ic, d, id_


def test_max_pool_return_indices(torch_check):
    args = [_rand(2, 3, 9, 8), _rand(2, 3, 13), _rand(1, 2, 5, 4, 7)]
    # ties (torch keeps the first maximum): a plane of repeated values
    args[0][1, 2] = torch.tensor([0.0, 1.0, 1.0]).repeat(24)[:72].reshape(9, 8)
    torch_check.check(PoolIndices(), args)
