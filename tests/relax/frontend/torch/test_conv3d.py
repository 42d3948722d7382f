"""3-D convolutions the frontend spells with 2-D ones (issue 24): transposed 3-D convolution
(stride, padding, output_padding, dilation, groups) and conv3d with a symbolic depth, checked
against PyTorch with odd sizes on the reference evaluator and compiled."""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax

torch = pytest.importorskip("torch")


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


class ConvT3d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.ConvTranspose3d(4, 6, 3, padding=1)
        self.b = torch.nn.ConvTranspose3d(
            4, 2, (2, 3, 1), stride=(2, 1, 2), dilation=(2, 1, 1), groups=2,
            output_padding=(1, 0, 1),
        )
        self.c = torch.nn.ConvTranspose3d(
            4, 3, (3, 2, 3), stride=(3, 2, 1), padding=(2, 1, 0), output_padding=(2, 1, 0),
            bias=False,
        )

    def forward(self, x):
        return self.a(x), self.b(x), self.c(x)


@pytest.mark.parametrize("decompose", [True, False])
def test_conv_transpose3d(torch_check, decompose):
    torch.manual_seed(2)
    torch_check.check(
        ConvT3d(), [_rand(2, 4, 5, 3, 7)], run_ep_decomposition=decompose, rtol=1e-4
    )


def test_conv_transpose3d_functional(torch_check):
    class Functional(torch.nn.Module):
        def forward(self, x, w):
            return torch.nn.functional.conv_transpose3d(x, w, stride=2, padding=1)

    torch_check.check(Functional(), [_rand(1, 3, 3, 4, 5), _rand(3, 2, 3, 2, 3, seed=1)])


def test_conv_transpose3d_symbolic_depth_rejected(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    model = torch.nn.ConvTranspose3d(2, 2, 3).eval()
    d = torch.export.Dim("d", min=3, max=16)
    ep = torch.export.export(model, (_rand(1, 2, 5, 4, 4),), dynamic_shapes=({2: d},))
    with pytest.raises(ValueError, match="conv_transpose3d with a symbolic input depth"):
        from_exported_program(ep)


class Conv3d(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv3d(4, 6, 3, padding=1)
        self.b = torch.nn.Conv3d(4, 2, (2, 3, 1), stride=(2, 1, 2), dilation=(2, 1, 1), groups=2)

    def forward(self, x):
        return self.a(x), self.b(x)


def test_conv3d_symbolic_depth(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    model = Conv3d().eval()
    d = torch.export.Dim("d", min=6, max=32)
    ep = torch.export.export(model, (_rand(2, 4, 7, 5, 6),), dynamic_shapes=({2: d},))
    mod = from_exported_program(ep)
    text = mod.script()
    # the output depths are TIR expressions of the input's
    assert "R.Tensor((2, 6, s" in text and "// 2 + 1, 3, 3)" in text
    # Compiled without fusion: the default pipeline's FuseTIR does not yet pass a symbolic
    # size that a fused kernel can only see as ``2 * d`` (the depth folded into the batch).
    pipeline = relax.pipeline.default_build_pipeline()
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm", relax_pipeline=pipeline), tvm.cpu())
    for depth in (6, 9, 12):
        x = _rand(2, 4, depth, 5, 6, seed=depth)
        expected = torch_check.torch_outputs(model, [x])
        runs = [torch_check.evaluate(mod, [x])]
        runs.append([o.numpy() for o in vm["main"](tvm.runtime.tensor(x.numpy()))])
        for got in runs:
            for g, e in zip(got, expected):
                assert g.shape == e.shape
                np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)
