"""``tvm.target``: compilation targets (``Target``) and target kinds; no code generation here."""

from .kind import TargetKind, list_kinds, register_target_kind
from .tag import list_tags, register_tag
from .target import Target

__all__ = [
    "Target",
    "TargetKind",
    "list_kinds",
    "list_tags",
    "register_tag",
    "register_target_kind",
]
