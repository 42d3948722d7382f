"""Import PyTorch models into Relax: ``from_exported_program``, ``from_fx``, and training.

PyTorch is optional: this package imports without it, and each entry point imports torch
when it is called (an ``ImportError`` naming ``pip install torch`` when it is missing).

* :func:`from_exported_program` takes ``torch.export.export(model, args)``;
* :func:`from_fx` takes a ``torch.fx.GraphModule`` and ``input_info``;
* :func:`as_backbone` and :func:`train_step_module` turn an imported model into the input of
  ``relax.training.SetupTrainer`` (see ``docs/guide/pytorch.md``).

The op coverage table is in ``docs/arch/frontend_torch.md``.
"""

from .exported_program import from_exported_program
from .fx import from_fx
from .training import as_backbone, load_torch_params, train_step_module

__all__ = [
    "as_backbone",
    "from_exported_program",
    "from_fx",
    "load_torch_params",
    "train_step_module",
]
