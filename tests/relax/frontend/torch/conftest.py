"""Helpers for the torch frontend tests: import, then run on the evaluator and compiled.

Every test module here starts with ``pytest.importorskip("torch")``, so the directory is
skipped cleanly where PyTorch is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest


class TorchCheck:
    """Export a torch module, import it, and compare its outputs with torch's."""

    def __init__(self):
        import torch  # the fixture is only used by modules that importorskip torch

        self.torch = torch

    def export(self, model, args, dynamic_shapes=None):
        model.eval()
        return self.torch.export.export(model, tuple(args), dynamic_shapes=dynamic_shapes)

    def torch_outputs(self, model, args):
        with self.torch.no_grad():
            out = model(*args)
        out = out if isinstance(out, (list, tuple)) else (out,)
        return [o.detach().numpy() for o in out]

    def evaluate(self, mod, args):
        from tvm.relax.testing import evaluate

        out = evaluate(mod, *[a.numpy() for a in args])
        return [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else (out,))]

    def compiled(self, mod, args):
        import tvm
        from tvm import relax

        vm = relax.VirtualMachine(tvm.compile(mod, target="llvm"), tvm.cpu())
        out = vm["main"](*[tvm.runtime.tensor(a.numpy()) for a in args])
        return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else (out,))]

    def check(
        self,
        model,
        args,
        *,
        rtol=1e-5,
        atol=1e-5,
        evaluator=True,
        compiled=True,
        names=None,
        **import_kwargs,
    ):
        """Import ``model`` and assert its evaluator and compiled outputs match torch's."""
        from tvm.relax.frontend.torch import from_exported_program

        model.eval()
        expected = self.torch_outputs(model, args)
        mod = from_exported_program(self.export(model, args), **import_kwargs)
        runs = []
        if evaluator:
            runs.append(("evaluator", self.evaluate(mod, args)))
        if compiled:
            runs.append(("compiled", self.compiled(mod, args)))
        names = names or [f"output {i}" for i in range(len(expected))]
        for how, got in runs:
            assert len(got) == len(expected), how
            for name, g, e in zip(names, got, expected):
                assert g.shape == e.shape, f"{how} {name}: shape {g.shape} != {e.shape}"
                if e.dtype == np.bool_ or e.dtype.kind in "iu":
                    np.testing.assert_array_equal(g, e, err_msg=f"{how} {name}")
                else:
                    np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"{how} {name}")
        return mod


@pytest.fixture(scope="session")
def torch_check():
    return TorchCheck()
