"""Train an imported PyTorch model with ``relax.training``.

The recipe (``docs/guide/pytorch.md``)::

    ep = torch.export.export(model, (x,))
    train_mod, init = train_step_module(ep, CrossEntropyLoss(), SGD(0.1),
                                        [relax.TensorType((32,), "int64")])
    vm = relax.VirtualMachine(tvm.compile(train_mod), tvm.cpu())
    trainer = Trainer(train_mod, vm, tvm.cpu())
    load_torch_params(trainer, init)        # start from the torch model's weights
    loss = trainer.update([x], [y])         # forward, loss, gradient, update in one call

:func:`as_backbone` is the step in the middle: an imported module (``keep_params_as_input``)
becomes the ``backbone`` module ``SetupTrainer`` expects (attributes ``param_num`` and
``state_num``). Buffers (batch-norm running statistics) become backbone states when the
program updates them (a model exported in ``train()`` mode).

Differences from torch's own training to keep in mind: the optimizer is pytvm's
(``SGD``, ``MomentumSGD``, ``Adam`` follow torch's update rules), dropout in training mode
is rejected by the importer (export in ``eval()`` mode or without dropout).
"""

from __future__ import annotations

from ....ir.module import IRModule
from ...expr import GlobalVar
from ...training import SetupTrainer
from ...ty import TupleType
from ._torch import require_torch
from .exported_program import from_exported_program


def as_backbone(mod, func_name: str = "main") -> IRModule:
    """An imported module as ``SetupTrainer``'s input: function ``backbone`` + attributes.

    Parameters
    ----------
    mod : tvm.IRModule
        From :func:`from_exported_program` with ``keep_params_as_input=True`` (and
        ``unwrap_unit_return_tuple=True`` when the model has one output and no state).
    func_name : str
        The imported function.

    Returns
    -------
    tvm.IRModule
        One function ``backbone(inputs..., params..., states...)``; module attributes
        ``param_num`` and ``state_num``.
    """
    func = mod[func_name]
    attrs = dict(func.attrs or {}) if func.attrs is not None else {}
    if "num_input" not in attrs:
        raise ValueError(
            "as_backbone: the function has no num_input attribute; import with "
            "from_exported_program(..., keep_params_as_input=True)"
        )
    num_input = int(attrs["num_input"])
    state_num = int(attrs.get("state_num", 0))
    param_num = len(func.params) - num_input - state_num
    if param_num < 1:
        raise ValueError("as_backbone: the imported model has no trainable parameters")
    ret = func.ret_ty
    if state_num == 0 and isinstance(ret, TupleType):
        raise ValueError(
            "as_backbone: the backbone must return one tensor (not a tuple): import with "
            "unwrap_unit_return_tuple=True"
        )
    func = func.with_attr("global_symbol", "backbone")
    out = IRModule({GlobalVar("backbone"): func})
    return out.with_attrs({"param_num": param_num, "state_num": state_num})


def _attr(func, name):
    attrs = func.attrs
    if attrs is None:
        return None
    return dict(attrs).get(name)


def train_step_module(
    exported_program,
    loss,
    optimizer,
    target_types,
    *,
    legalize: bool = True,
    run_ep_decomposition: bool = True,
):
    """Import ``exported_program`` and set it up for training with ``SetupTrainer``.

    Parameters
    ----------
    exported_program : torch.export.ExportedProgram
        The model (its parameters become trainable; buffers it updates become states).
    loss : relax.training.loss.Loss
    optimizer : relax.training.optimizer.Optimizer
    target_types : list of relax Type
        The loss's arguments after the prediction (e.g. the labels' type).
    legalize, run_ep_decomposition : bool
        Passed to ``SetupTrainer`` and :func:`from_exported_program`.

    Returns
    -------
    (tvm.IRModule, dict)
        The training module (``train_step``, ``backbone``...) and the initial values
        ``{"params": [...], "states": [...]}`` taken from the torch model, for
        :func:`load_torch_params`.
    """
    torch = require_torch("tvm.relax.frontend.torch.train_step_module")
    kinds = torch.export.graph_signature.OutputKind
    ep = exported_program.run_decompositions() if run_ep_decomposition else exported_program
    has_state = any(s.kind == kinds.BUFFER_MUTATION for s in ep.graph_signature.output_specs)
    mod = from_exported_program(
        ep,
        keep_params_as_input=True,
        unwrap_unit_return_tuple=not has_state,
        keep_buffers_as_state=has_state,
        run_ep_decomposition=False,
    )
    backbone = as_backbone(mod)
    func = backbone["backbone"]
    ret = func.ret_ty
    pred_ty = ret.fields[0] if has_state else ret
    train_mod = SetupTrainer(loss, optimizer, [pred_ty, *target_types], legalize)(backbone)
    init = {
        "params": list(_attr(mod["main"], "params") or []),
        "states": list(_attr(mod["main"], "states") or []) if has_state else [],
    }
    return train_mod, init


def load_torch_params(trainer, init) -> None:
    """Load the torch model's parameters (and states) into a ``relax.training.Trainer``.

    ``init`` is the dict from :func:`train_step_module`, or an imported module whose
    ``main`` has the ``params`` (and ``states``) attributes.
    """
    if isinstance(init, IRModule):
        func = init["main"]
        init = {
            "params": list(_attr(func, "params") or []),
            "states": list(_attr(func, "states") or []),
        }
    trainer.load_params(list(init["params"]))
    if init.get("states"):
        trainer.load_states(list(init["states"]))
