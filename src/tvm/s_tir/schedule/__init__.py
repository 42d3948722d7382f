"""``tvm.s_tir.schedule``: the ``Schedule`` class, its handles, traces and ``ScheduleError``."""

from .base import ExprRV, LoopRV, SBlockRV  # noqa: F401
from .instruction import InstructionKind  # noqa: F401
from .sblock_scope import Dependency, DepKind, SBlockScope  # noqa: F401
from .schedule import Schedule, ScheduleError  # noqa: F401
from .state import ScheduleDebugMask, ScheduleState, StmtSRef  # noqa: F401
from .trace import Instruction, Trace  # noqa: F401
