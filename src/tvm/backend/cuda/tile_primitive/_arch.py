"""The target's SM version for variants that need a minimum GPU generation."""

from __future__ import annotations

import re

from ....tirx.ptx.spec import arch_satisfies

__all__ = ["arch_mismatch", "target_arch", "target_sm"]


def target_arch(ctx):
    """The target's ``arch`` string (``"sm_90a"``), or None when it names none."""
    attrs = getattr(ctx.target, "attrs", None)
    arch = attrs.get("arch") if attrs is not None and hasattr(attrs, "get") else None
    return str(arch) if arch else None


def target_sm(ctx):
    """``90`` for ``sm_90a``, ``100`` for ``sm_100a``...; None when the target names no arch."""
    match = re.fullmatch(r"sm_(\d+)[a-z]?", target_arch(ctx) or "")
    return int(match.group(1)) if match else None


def arch_mismatch(ctx, instruction: str, required: str):
    """None when the target may use ``instruction`` (which needs ``required``, e.g.
    ``"sm_90a"``; rules of :func:`tvm.tirx.ptx.spec.arch_satisfies`), else the reason:
    ``"<instruction> needs <required>, the target is <arch>"``. A target without an arch
    (or with the kind's placeholder ``sm_50``) is not checked here: nvcc judges it, as the
    codegen's arch check does."""
    arch = target_arch(ctx)
    if arch is None or arch == "sm_50" or re.fullmatch(r"sm_\d+[a-z]?", arch) is None:
        return None
    if arch_satisfies(arch, required):
        return None
    return f"{instruction} needs {required}, the target is {arch}"
