"""``tvm.driver``: the compilation entry points ``tvm.compile`` and ``tvm.tirx.build``."""

from .build_module import build, clear_cache, compile, lower  # noqa: F401
