"""The target's SM version for variants that need a minimum GPU generation."""

from __future__ import annotations

import re

__all__ = ["target_sm"]


def target_sm(ctx):
    """``90`` for ``sm_90a``, ``100`` for ``sm_100a``...; None when the target names no arch."""
    attrs = getattr(ctx.target, "attrs", None)
    arch = attrs.get("arch") if attrs is not None and hasattr(attrs, "get") else None
    match = re.fullmatch(r"sm_(\d+)[a-z]?", str(arch or ""))
    return int(match.group(1)) if match else None
