"""``tvm.tirx.lang.pipeline``: the names of ``tvm.backend.cuda.lang.pipeline``."""

import importlib


def __getattr__(name):
    # Lazy: the real module is in the backend layer (it uses the TVMScript builder).
    module = importlib.import_module("tvm.backend.cuda.lang.pipeline")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module 'tvm.tirx.lang.pipeline' has no attribute {name!r}") from None


def __dir__():
    return sorted(importlib.import_module("tvm.backend.cuda.lang.pipeline").__all__)
