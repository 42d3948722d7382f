"""``from_fx``'s ``custom_convert_map`` with TVM 0.27's keys (torch functions, their names,
``nn.Module`` types) and with ATen names, checked against PyTorch on the evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from tvm import relax

torch = pytest.importorskip("torch")
F = torch.nn.functional


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(5, 3)

    def forward(self, x):
        return F.gelu(self.fc(torch.sigmoid(x) + 1))


def _run(mod, x):
    from tvm.relax.testing import evaluate

    out = evaluate(mod, x.numpy())
    return np.asarray(out[0] if isinstance(out, (list, tuple)) else out)


def _tanh_converter(node, importer):
    # replaces sigmoid by tanh, so the test sees that the custom converter ran
    x = importer.env[node.args[0]]
    return importer.block_builder.emit(relax.op.tanh(x))


def _expected(model, x, inner=torch.sigmoid, act=F.gelu):
    with torch.no_grad():
        return act(model.fc(inner(x) + 1)).numpy()


@pytest.mark.parametrize("key", [torch.sigmoid, "sigmoid", "sigmoid.default"])
def test_function_keys(key):
    from tvm.relax.frontend.torch import from_fx

    torch.manual_seed(0)
    model = Net().eval()
    graph_module = torch.fx.symbolic_trace(model)
    x = torch.randn(4, 5)
    mod = from_fx(graph_module, [((4, 5), "float32")], custom_convert_map={key: _tanh_converter})
    np.testing.assert_allclose(_run(mod, x), _expected(model, x, torch.tanh), rtol=1e-5, atol=1e-6)


def test_module_type_key_and_kwargs():
    """A module-type key gets the node (TVM's call); the node keeps the fx args and kwargs."""
    from tvm.relax.frontend.torch import from_fx

    torch.manual_seed(1)
    model = Net().eval()
    seen = {}

    def linear_double(node, importer):
        seen["target"] = node.target
        module = importer.named_modules[node.target]
        w = relax.const(module.weight.detach().numpy() * 2)
        x = importer.env[node.args[0]]
        return importer.block_builder.emit(relax.op.linear(x, w))

    def gelu_tanh(node, importer):
        seen["approximate"] = node.kwargs.get("approximate", "none")
        return importer.block_builder.emit(relax.op.nn.gelu_tanh(importer.env[node.args[0]]))

    x = torch.randn(3, 5)
    mod = from_fx(
        torch.fx.symbolic_trace(model),
        [((3, 5), "float32")],
        custom_convert_map={torch.nn.Linear: linear_double, F.gelu: gelu_tanh},
    )
    assert seen == {"target": "fc", "approximate": "none"}
    with torch.no_grad():
        expected = F.gelu(F.linear(torch.sigmoid(x) + 1, model.fc.weight * 2), approximate="tanh")
    np.testing.assert_allclose(_run(mod, x), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_unkeyed_model_unchanged():
    from tvm.relax.frontend.torch import from_fx

    model = Net().eval()
    x = torch.randn(2, 5)
    mod = from_fx(torch.fx.symbolic_trace(model), [((2, 5), "float32")], custom_convert_map={})
    np.testing.assert_allclose(_run(mod, x), _expected(model, x), rtol=1e-5, atol=1e-6)


def test_default_image_layout():
    from tvm.relax.frontend.torch import from_fx

    model = Net().eval()
    gm = torch.fx.symbolic_trace(model)
    mod = from_fx(gm, [((2, 5), "float32")], default_image_layout="NCHW")
    assert "main" in [gv.name_hint for gv in mod.get_global_vars()]
    with pytest.raises(ValueError, match="default_image_layout='NHWC' is not supported"):
        from_fx(gm, [((2, 5), "float32")], default_image_layout="NHWC")
