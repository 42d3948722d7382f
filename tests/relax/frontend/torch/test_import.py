"""``from_exported_program`` / ``from_fx``: signatures, attributes, symbolic shapes, model
state, errors, and behaviour without PyTorch installed."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tvm
from tvm import relax
from tvm.error import OpNotImplemented
from tvm.relax.frontend.torch import from_exported_program, from_fx

nn = torch.nn


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        return torch.relu(self.fc(x)).reshape(-1, 2, 2).sum(1)


def _vm(mod):
    return relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())


def test_keep_params_as_input_signature_and_attrs():
    model = Small().eval()
    ep = torch.export.export(model, (torch.randn(3, 6),))
    mod = from_exported_program(ep, keep_params_as_input=True)
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x", "p_fc_weight", "p_fc_bias"]
    assert int(main.attrs["num_input"]) == 1
    params = main.attrs["params"]
    np.testing.assert_array_equal(params[0].numpy(), model.fc.weight.detach().numpy())
    np.testing.assert_array_equal(params[1].numpy(), model.fc.bias.detach().numpy())
    # Bound parameters (the default): only the user input is left.
    bound = from_exported_program(ep)
    assert [p.name_hint for p in bound["main"].params] == ["x"]
    assert isinstance(bound["main"].ret_ty, relax.TupleType)


def test_return_tuple_options():
    ep = torch.export.export(Small().eval(), (torch.randn(3, 6),))
    unwrapped = from_exported_program(ep, unwrap_unit_return_tuple=True)
    assert isinstance(unwrapped["main"].ret_ty, relax.TensorType)
    unbound = from_exported_program(ep, no_bind_return_tuple=True)
    assert isinstance(unbound["main"].body.body, relax.Tuple)


def test_symbolic_batch_from_dim():
    model = Small().eval()
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(model, (torch.randn(3, 6),), dynamic_shapes=({0: batch},))
    mod = from_exported_program(ep, unwrap_unit_return_tuple=True)
    main = mod["main"]
    first = main.params[0].ty.shape.values[0]
    assert isinstance(first, tvm.tirx.Var)
    name = first.name
    assert dict(main.attrs["tir_var_lower_bound"]) == {name: 2}
    assert dict(main.attrs["tir_var_upper_bound"]) == {name: 64}
    vm = _vm(mod)
    for n in (2, 5, 17):
        x = torch.randn(n, 6)
        got = vm["main"](tvm.runtime.tensor(x.numpy())).numpy()
        np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_from_fx_with_symbolic_input_info():
    model = Small().eval()
    gm = torch.fx.symbolic_trace(model)
    mod = from_fx(gm, [(("n", 6), "float32")])
    assert isinstance(mod["main"].ret_ty, relax.TensorType)  # one output: returned bare
    x = torch.randn(5, 6)
    got = _vm(mod)["main"](tvm.runtime.tensor(x.numpy())).numpy()
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=r"input_info\[0\] must be \(shape, dtype\)"):
        from_fx(gm, [(3, 6)])


class Unsupported(nn.Module):
    def forward(self, x):
        y = torch.special.bessel_j0(x) + torch.special.bessel_j0(x * 2)
        return torch.special.bessel_j1(y)


def test_unsupported_ops_listed_once_with_count_and_location():
    ep = torch.export.export(Unsupported(), (torch.randn(3),))
    with pytest.raises(OpNotImplemented) as info:
        from_exported_program(ep)
    message = str(info.value)
    assert "2 op(s) have no converter" in message
    assert "special_bessel_j0.default (x2)" in message
    assert "special_bessel_j1.default (x1)" in message
    assert "test_import.py:" in message and "in forward" in message


def test_custom_convert_map():
    def bessel_as_cos(node, importer):  # deliberately not Bessel: shows the map is used
        return relax.op.cos(importer.env[node.args[0]])

    ep = torch.export.export(Unsupported(), (torch.randn(3),))
    convert = {
        "special_bessel_j0.default": bessel_as_cos,
        "special_bessel_j1.default": bessel_as_cos,
    }
    mod = from_exported_program(ep, custom_convert_map=convert, unwrap_unit_return_tuple=True)
    x = torch.randn(3)
    expected = torch.cos(torch.cos(x) + torch.cos(x * 2))
    got = _vm(mod)["main"](tvm.runtime.tensor(x.numpy())).numpy()
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5, atol=1e-6)


def test_batch_norm_buffers_as_state_in_training_mode():
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)).train()
    x = torch.randn(4, 2, 6, 5)
    ep = torch.export.export(model, (x,))
    mod = from_exported_program(ep, keep_params_as_input=True, keep_buffers_as_state=True)
    main = mod["main"]
    assert int(main.attrs["state_num"]) == 3  # running mean, running var, batch count
    names = [p.name_hint for p in main.params]
    assert names[-3:] == ["b_1_running_mean", "b_1_running_var", "b_1_num_batches_tracked"]
    params = [p.numpy() for p in main.attrs["params"]]
    states = [s.numpy() for s in main.attrs["states"]]
    out = _vm(mod)["main"](*[tvm.runtime.tensor(a) for a in [x.numpy(), *params, *states]])
    expected = model(x)  # updates the running statistics
    np.testing.assert_allclose(out[0].numpy(), expected.detach().numpy(), rtol=1e-4, atol=1e-5)
    bn = model[1]
    np.testing.assert_allclose(out[1].numpy(), bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out[2].numpy(), bn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    assert int(out[3].numpy()) == 1
    with pytest.raises(ValueError, match="keep_buffers_as_state needs keep_params_as_input"):
        from_exported_program(ep, keep_buffers_as_state=True)


def test_rejects_non_exported_program():
    with pytest.raises(TypeError, match="expects a torch.export.ExportedProgram"):
        from_exported_program(Small())


NO_TORCH = """
import sys
sys.modules["torch"] = None  # as if torch were not installed
import tvm
import tvm.relax.frontend
import tvm.relax.frontend.torch as ft
try:
    ft.from_exported_program(object())
except ImportError as err:
    print("ImportError:", err)
"""

IMPORT_TVM = "import sys, tvm, tvm.relax.frontend.torch; print('torch' in sys.modules)"


def test_importable_without_torch_and_tvm_does_not_import_torch():
    run = [sys.executable, "-c"]
    out = subprocess.run(run + [NO_TORCH], capture_output=True, text=True, check=True).stdout
    assert "ImportError:" in out and "pip install torch==" in out
    out = subprocess.run(run + [IMPORT_TVM], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
