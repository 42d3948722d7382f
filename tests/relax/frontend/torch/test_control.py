"""``torch.cond`` as a Relax ``If`` with both branches imported as functions of the module
(issue 24), checked against PyTorch for both branch outcomes, on the reference evaluator and
compiled."""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax

torch = pytest.importorskip("torch")


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


class OneResult(torch.nn.Module):
    def forward(self, x, y):
        def on_true(x, y):
            return x.sin() + y

        def on_false(x, y):
            return x.cos() * 2.0 - y

        return torch.cond(x.sum() > 0, on_true, on_false, (x, y))


class TwoResults(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(5, 3)

    def forward(self, x):
        def on_true(x):
            return self.lin(x).relu(), x.sum(dim=1)

        def on_false(x):
            return self.lin(x * 2.0), x.amax(dim=1)

        a, b = torch.cond(x.mean() < 0.1, on_true, on_false, (x,))
        return a * 3.0, b + 1.0


class Nested(torch.nn.Module):
    def forward(self, x):
        def inner_true(x):
            return x + 1.0

        def inner_false(x):
            return x - 1.0

        def on_true(x):
            return torch.cond(x[0, 0] > 0, inner_true, inner_false, (x,)) * 2.0

        def on_false(x):
            return x.exp()

        return torch.cond(x.max() > 0.5, on_true, on_false, (x,))


def _modes(x):
    """``x`` and a shifted copy, so that the predicates take both outcomes."""
    return [x + 3.0, x - 3.0]


def test_cond_one_result_both_branches(torch_check):
    y = _rand(3, 7, seed=1)
    for x in _modes(_rand(3, 7)):
        mod = torch_check.check(OneResult(), [x, y])
    names = sorted(gv.name_hint for gv in mod.functions)
    assert names == ["cond_false_branch_1", "cond_true_branch_0", "main"]
    text = mod.script()
    assert "if gt:" in text and "cls.cond_true_branch_0(x, y)" in text
    # If may not sit in a dataflow block: main has plain binding blocks
    assert not any(isinstance(b, relax.DataflowBlock) for b in mod["main"].body.blocks)


def test_cond_two_results_with_params(torch_check):
    for x in _modes(_rand(4, 5)):
        torch_check.check(TwoResults(), [x], rtol=1e-4, atol=1e-5)


def test_cond_two_results_keep_params_as_input(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    model = TwoResults()
    for x in _modes(_rand(4, 5)):
        ep = torch_check.export(model, [x])
        mod = from_exported_program(ep, keep_params_as_input=True)
        params = [p.numpy() for p in mod["main"].attrs["params"]]
        got = torch_check.evaluate(mod, [x] + [torch.from_numpy(p) for p in params])
        for g, e in zip(got, torch_check.torch_outputs(model, [x])):
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def test_cond_nested(torch_check):
    x = _rand(3, 5)
    for shift in (3.0, -3.0):
        for corner in (1.0, -1.0):
            xs = x.clone() * 0.1 + shift
            xs[0, 0] = corner if shift > 0 else xs[0, 0]
            torch_check.check(Nested(), [xs])


def test_cond_symbolic_batch(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    model = OneResult()
    x, y = _rand(5, 3), _rand(5, 3, seed=2)
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(model, (x, y), dynamic_shapes=({0: batch}, {0: batch}))
    mod = from_exported_program(ep)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    for n, shift in ((7, 3.0), (3, -3.0)):
        xn, yn = _rand(n, 3) + shift, _rand(n, 3, seed=4)
        got = vm["main"](tvm.runtime.tensor(xn.numpy()), tvm.runtime.tensor(yn.numpy()))
        np.testing.assert_allclose(got[0].numpy(), model(xn, yn).numpy(), rtol=1e-5, atol=1e-5)


def test_cond_on_symbolic_size():
    from tvm.relax.frontend.torch import from_exported_program

    class BySize(torch.nn.Module):
        def forward(self, x):
            return torch.cond(x.shape[0] > 4, lambda x: x + 1.0, lambda x: x * 3.0, (x,))

    model = BySize()
    batch = torch.export.Dim("batch", min=2, max=10)
    ep = torch.export.export(model, (_rand(5, 3),), dynamic_shapes=({0: batch},))
    mod = from_exported_program(ep)
    assert "T.bool = s" in mod["main"].script()
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    from tvm.relax.testing import evaluate

    for n in (3, 4, 5, 9):  # both outcomes, and the boundary
        x = _rand(n, 3, seed=n)
        expected = model(x).numpy()
        np.testing.assert_allclose(evaluate(mod, x.numpy())[0], expected, rtol=1e-6)
        got = vm["main"](tvm.runtime.tensor(x.numpy()))[0].numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_cond_missing_op_in_branch_is_listed(torch_check):
    from tvm.relax.frontend.torch import from_exported_program

    class Missing(torch.nn.Module):
        def forward(self, x):
            return torch.cond(
                x.sum() > 0, lambda x: torch.special.i0(x), lambda x: x + 1.0, (x,)
            )

    ep = torch_check.export(Missing(), [_rand(3, 4)])
    with pytest.raises(tvm.error.OpNotImplemented, match="i0"):
        from_exported_program(ep)
