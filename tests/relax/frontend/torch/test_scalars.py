"""Non-tensor user inputs and outputs of ``from_exported_program`` (issue 24): int, float and
bool arguments as ``R.Prim`` parameters (a symbolic int defines its TIR variable), scalar,
symbolic-size and ``None`` results, nested output tuples and lists flattened; checked against
PyTorch on the reference evaluator and compiled."""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import evaluate

torch = pytest.importorskip("torch")


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [v for item in value for v in _flat(item)]
    return [value]


def _runs(mod, args):
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    vm_args = [tvm.runtime.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args]
    np_args = [a.numpy() if isinstance(a, torch.Tensor) else a for a in args]
    return {"evaluator": evaluate(mod, *np_args), "compiled": vm["main"](*vm_args)}


def _compare(runs, expected):
    expected = _flat(expected)
    for how, got in runs.items():
        got = list(got)
        assert len(got) == len(expected), how
        for i, (g, e) in enumerate(zip(got, expected)):
            if isinstance(e, torch.Tensor):
                g = g.numpy() if hasattr(g, "numpy") else np.asarray(g)
                assert g.shape == tuple(e.shape), f"{how} {i}"
                np.testing.assert_allclose(g, e.numpy(), rtol=1e-5, atol=1e-6, err_msg=how)
            elif e is None:
                assert g is None, f"{how} {i}: {g!r}"
            elif isinstance(e, bool) and how == "compiled":
                # pytvm's VM returns a bool PrimValue as the int 0 / 1
                assert g == e and isinstance(g, int), f"{how} {i}: {g!r} != {e!r}"
            else:
                assert type(g) is type(e) and g == e, f"{how} {i}: {g!r} != {e!r}"


class Scalars(torch.nn.Module):
    def forward(self, x, n: int, f: float, b: bool):
        y = x * f + n
        if b:
            y = y + 1
        return y, (x.shape[0], n * 2), [x.sum(dim=1), None], f, b


def test_static_scalar_inputs_and_outputs():
    from tvm.relax.frontend.torch import from_exported_program

    model = Scalars()
    x = _rand(3, 5)
    ep = torch.export.export(model, (x, 3, 0.5, True))
    mod = from_exported_program(ep)
    params = mod["main"].params
    assert [str(p.ty) for p in params[1:]] == ["int64", "float64", "bool"]
    text = mod.script()
    assert "R.null_value()" in text
    # torch.export specialized the graph to the example scalars: the same values run here
    _compare(_runs(mod, [x, 3, 0.5, True]), model(x, 3, 0.5, True))


class SymbolicInt(torch.nn.Module):
    def forward(self, x, n: int):
        return x.reshape(n, -1) * 2.0, x.shape[0] + n, x.shape[0] * 2


def test_symbolic_int_input_defines_its_size():
    from tvm.relax.frontend.torch import from_exported_program

    model = SymbolicInt()
    batch = torch.export.Dim("batch", min=2, max=16)
    ep = torch.export.export(
        model, (_rand(6, 4), 2), dynamic_shapes=({0: batch}, torch.export.Dim.DYNAMIC)
    )
    mod = from_exported_program(ep)
    n_param = mod["main"].params[1]
    assert isinstance(n_param.ty.value, tvm.tirx.Var)
    for rows, n in ((9, 3), (5, 5), (8, 2)):
        x = _rand(rows, 4, seed=rows)
        _compare(_runs(mod, [x, n]), model(x, n))


def test_unwrap_single_scalar_output():
    from tvm.relax.frontend.torch import from_exported_program

    class Size(torch.nn.Module):
        def forward(self, x):
            return x.shape[0] * x.shape[1]

    batch = torch.export.Dim("batch", min=2, max=16)
    ep = torch.export.export(Size(), (_rand(3, 7),), dynamic_shapes=({0: batch},))
    mod = from_exported_program(ep, unwrap_unit_return_tuple=True)
    vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
    x = _rand(5, 7)
    assert vm["main"](tvm.runtime.tensor(x.numpy())) == 35
    assert evaluate(mod, x.numpy()) == 35


def test_unsupported_input_kind_names_it():
    from tvm.relax.frontend.torch import from_exported_program

    class WithStr(torch.nn.Module):
        def forward(self, x, mode: str):
            return x + 1.0 if mode == "a" else x

    ep = torch.export.export(WithStr(), (_rand(2, 3), "a"))
    with pytest.raises(TypeError, match="user input mode is a str"):
        from_exported_program(ep)
