"""``tvm.driver``: the compile pipeline, ``tvm.compile``, ``tvm.tirx.build`` and ``relax.build``."""

from .build_module import as_target, build, clear_cache, compile, host_target, lower

__all__ = ["as_target", "build", "clear_cache", "compile", "host_target", "lower"]
