"""The IR builder behind TVMScript, also usable directly from Python.

``tvm.script.ir_builder.ir`` builds modules; ``tvm.script.ir_builder.relax`` (and ``.tirx``,
supplied by the TIR dialect) resolve through the dialect registry of :mod:`tvm.script`.
"""

from .base import IRBuilder, IRBuilderFrame  # noqa: F401


def __getattr__(name):
    # ``tvm.script.ir_builder.<dialect>`` resolves through the dialect registry.
    from tvm import script

    if name in script.registered_dialects():
        return script.dialect_module(name, "builder")
    raise AttributeError(f"module 'tvm.script.ir_builder' has no attribute {name!r}")
