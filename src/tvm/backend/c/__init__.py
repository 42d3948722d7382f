"""The C backend (``tvm.backend.c``): target ``"c"`` builds, and :class:`~.codegen_c.CodeGenC`.

- ``codegen_c``: :class:`~.codegen_c.CodeGenC`, which prints lowered TIR as C; the CUDA
  generator (``tvm.backend.cuda.codegen_cuda``) builds on it;
- ``host``: :class:`~.host.CodeGenCHost`, host PrimFuncs as exported packed C functions with
  argument checks;
- ``intrin``: the math intrinsics as C math library calls (``LowerIntrin``'s rules);
- ``module``: compiles that source with the system C compiler and loads it
  (``tvm.compile(func, target="c")``).
"""

#: DLPack device type of the code this backend generates (kDLCPU).
DEVICE_TYPE = 1


def register_backend() -> None:
    """Hook for ``tvm.backend.load("c")``: put the ``c`` backend in the table.

    Cheap: the code generator and the compiler driver load on the first build.
    """
    from .. import Backend, LazyRules
    from .. import register_backend as add_backend

    add_backend(
        Backend(
            name="c",
            codegen=_build,
            intrin_rules=LazyRules("tvm.backend.c.intrin", "INTRIN_RULES"),
            device_type=DEVICE_TYPE,
            device_api=None,
            host=True,
            default_tir_pipeline="default",
        ),
        override=True,
    )


def _build(mod, target=None):
    """``Backend.codegen``: lowered ``IRModule`` -> compiled and loaded ``runtime.Module``."""
    from .module import build  # lazy: only a build needs the compiler driver

    return build(mod, target)
