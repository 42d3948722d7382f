"""``tvm.relax.training``: losses, optimizers, ``SetupTrainer``, ``AppendLoss`` and ``Trainer``.

See ``docs/arch/training.md``.
"""

from . import loss, optimizer, utils
from .setup_trainer import SetupTrainer
from .trainer import Trainer
from .utils import AppendLoss

__all__ = ["AppendLoss", "SetupTrainer", "Trainer", "loss", "optimizer", "utils"]
