"""The C backend: ``CodeGenC`` (C source printing) and the ``target="c"`` host target.

- ``codegen_c``: :class:`~.codegen_c.CodeGenC`, the C printer; the CUDA generator
  (``tvm.backend.cuda.codegen_cuda``) derives from it.
- ``codegen_c_host``: the host generator of ``target="c"``: kernels plus packed-API wrappers
  (``packed_c``) in one C file.
- ``module``: the runtime module: ``inspect_source()`` returns the C text; calling a function
  compiles it with the system C compiler (``cc``/``gcc``/``clang``) into a shared library;
  ``export_library`` compiles it into an object file.
- ``intrin``: the math rules of ``LowerIntrin`` for ``c`` (``<math.h>`` functions).

``tvm.compile(func, target="c")`` lowers with the default TIR pipeline (no default schedule:
functions compile as written, as Apache TVM does for this target) and returns a
``tvm.runtime.Module``. Parallel loops run on one thread; there is no thread pool in C code.
"""

#: DLPack device type of the code this backend generates (kDLCPU).
DEVICE_TYPE = 1


def register_backend() -> None:
    """Hook for ``tvm.backend.load("c")``: the ``c`` entry of the backend table (cheap)."""
    from .. import Backend, LazyRules
    from .. import register_backend as add_backend

    add_backend(
        Backend(
            name="c",
            codegen=compile_lowered,
            intrin_rules=LazyRules("tvm.backend.c.intrin", "INTRIN_RULES"),
            device_type=DEVICE_TYPE,
            device_api=None,
            host=True,
            default_tir_pipeline="default",
            default_schedule=_no_schedule,
        ),
        override=True,
    )


def _no_schedule(mod, target):
    """``Backend.default_schedule``: functions of the C target compile as written."""
    return mod


def compile_lowered(mod, target=None):
    """``Backend.codegen``: lowered ``IRModule`` of host functions -> a C source module."""
    # Lazy: the printer and the runtime module load on the first C build.
    from ...runtime.module import Module
    from .codegen_c_host import codegen_c_host
    from .module import CSourceModuleImpl

    source, names = codegen_c_host(mod)
    if target is not None:
        source = f"// tvm target: {target}\n" + source
    label = "_".join(names)[:64] or "pytvm"
    return Module(CSourceModuleImpl(source, names, name=label))
