"""``tvm.tirx.lang.tile_scheduler``: the names of ``tvm.backend.cuda.lang.tile_scheduler``."""

import importlib


def __getattr__(name):
    # Lazy: the real module is in the backend layer (it uses the TVMScript builder).
    module = importlib.import_module("tvm.backend.cuda.lang.tile_scheduler")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'tvm.tirx.lang.tile_scheduler' has no attribute {name!r}") from None


def __dir__():
    return sorted(importlib.import_module("tvm.backend.cuda.lang.tile_scheduler").__all__)
