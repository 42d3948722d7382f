"""Target tags: named, ready-made target configs such as ``"nvidia/nvidia-h100"``."""

from __future__ import annotations

__all__ = ["get_tag_config", "list_tags", "register_tag"]

_TAGS: dict[str, dict] = {}


def register_tag(name: str, config: dict, override: bool = False) -> None:
    """Register ``name`` as a shorthand for the target config dict ``config``."""
    if "kind" not in config:
        raise ValueError(f"tag {name!r}: the config needs a 'kind'")
    if name in _TAGS and not override:
        raise ValueError(f"Target tag {name!r} is already registered")
    _TAGS[name] = dict(config)


def list_tags() -> dict:
    """Every registered tag and its config."""
    return {name: dict(config) for name, config in _TAGS.items()}


def get_tag_config(name: str):
    """The config of tag ``name``, or None."""
    config = _TAGS.get(name)
    return dict(config) if config is not None else None


def _register_nvidia(name, arch, shared=49152, l2=None):
    config = {
        "kind": "cuda",
        "arch": arch,
        "max_num_threads": 1024,
        "max_threads_per_block": 1024,
        "thread_warp_size": 32,
        "registers_per_block": 65536,
        "max_shared_memory_per_block": shared,
    }
    if l2 is not None:
        config["l2_cache_size_bytes"] = l2
    register_tag(f"nvidia/{name}", config)


_register_nvidia("nvidia-h100", "sm_90a", l2=52428800)
_register_nvidia("nvidia-h200", "sm_90a", l2=52428800)
_register_nvidia("nvidia-a100", "sm_80", l2=41943040)
_register_nvidia("nvidia-b200", "sm_100a", l2=134217728)
_register_nvidia("geforce-rtx-4090", "sm_89", l2=75497472)
