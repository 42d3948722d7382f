"""``tvm.target.codegen``: facts about the LLVM that pytvm's LLVM backend uses (llvmlite's).

``llvm_version_major()``, the host's triple, CPU name and CPU features, and
``target_has_features``. The LLVM queries import llvmlite when called, not at import time.
Not implemented yet: ``llvm_get_cpu_archlist``, ``llvm_get_intrinsic_name`` and
``llvm_lookup_intrinsic_id`` (llvmlite exposes no intrinsic table).
"""

from __future__ import annotations

__all__ = [
    "llvm_cpu_has_features",
    "llvm_get_system_cpu",
    "llvm_get_system_triple",
    "llvm_version_major",
    "target_has_features",
]


def _binding():
    # Lazy: llvmlite is heavy and only needed when LLVM is asked about.
    import llvmlite.binding as llvm

    return llvm


def llvm_version_major(allow_none: bool = False) -> int:
    """The major version of the LLVM the backend links (llvmlite's)."""
    try:
        return int(_binding().llvm_version_info[0])
    except ImportError:
        if allow_none:
            return None
        raise


def llvm_get_system_triple() -> str:
    """The host's target triple (``x86_64-unknown-linux-gnu``)."""
    return _binding().get_process_triple()


def llvm_get_system_cpu() -> str:
    """The host's CPU name as LLVM calls it (``skylake-avx512``)."""
    return _binding().get_host_cpu_name()


def _features_of(target):
    """The ``+feature`` names enabled for ``target`` (the host's when ``target`` is None or
    names no CPU or attributes)."""
    # Lazy: Target sits in this package; keeps this module importable on its own.
    from .target import Target

    if target is not None and not isinstance(target, Target):
        target = Target(target)
    attrs = dict(target.attrs) if target is not None else {}
    mattr = [str(m) for m in attrs.get("mattr", []) or []]
    if target is None or not (attrs.get("mcpu") or mattr):
        features = {f[1:] for f in _binding().get_host_cpu_features().flatten().split(",")
                    if f.startswith("+")}
    else:
        features = set()
    for m in mattr:
        if m.startswith("+"):
            features.add(m[1:])
        elif m.startswith("-"):
            features.discard(m[1:])
    return features


def llvm_cpu_has_features(cpu_features, target=None) -> bool:
    """Whether ``target`` (default: the host) enables every feature in ``cpu_features`` (a
    name or a list of names, without ``+``).

    Only the host's features and a target's explicit ``-mattr`` are known: a target naming a
    CPU (``-mcpu=skylake``) without ``-mattr`` reports just those listed features.
    """
    if isinstance(cpu_features, str):
        cpu_features = [cpu_features]
    have = _features_of(target)
    return all(f in have for f in cpu_features)


def target_has_features(cpu_features, target=None) -> bool:
    """Whether ``target`` (default: the current target, else the host) has ``cpu_features``."""
    if target is None:
        from .target import Target  # Lazy: see _features_of.

        target = Target.current(allow_none=True)
    return llvm_cpu_has_features(cpu_features, target)
