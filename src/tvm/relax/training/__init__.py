"""``tvm.relax.training``: losses, optimizers, ``SetupTrainer``, ``AppendLoss``, ``Trainer`` and
``distributed`` (data-parallel training on ``torch.distributed``; torch is imported on use).

See ``docs/arch/training.md``.
"""

from . import distributed, loss, optimizer, utils
from .setup_trainer import SetupTrainer
from .trainer import Trainer
from .utils import AppendLoss

__all__ = ["AppendLoss", "SetupTrainer", "Trainer", "distributed", "loss", "optimizer", "utils"]
