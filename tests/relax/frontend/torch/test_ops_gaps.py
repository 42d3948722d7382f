"""The gaps of the torch frontend closed after its first pass (issue 24): advanced indexing on
non-adjacent dims, boolean masks (rejected, data-dependent shape), ``padding="same"``, 3-D
pooling, train-mode dropout (rejected: no RNG op), ``custom_convert_map`` keyed by torch
functions. Each translation is checked against PyTorch's own output on the reference
evaluator and compiled, with odd sizes.
"""

from __future__ import annotations

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
