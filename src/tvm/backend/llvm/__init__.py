"""The LLVM CPU backend: host code generation, JIT, shared-library export, packed API, threads.

:func:`register_backend` (run by ``tvm.backend.load("llvm")``, which ``import tvm.backend``
does) puts the ``llvm`` :class:`tvm.backend.Backend` in the backend table and registers the
runtime's hooks (``tvm.runtime.hooks``: the thread pool, the text module of exported VM
programs). The driver reaches everything here through
that table entry.

Submodules (import them directly; none imports llvmlite until it compiles something, except
``packed_api``, which builds llvmlite IR and is only imported by code generators):

- ``target_machine``: target options, optimization and object/assembly emission;
- ``jit``: :func:`build_module` (LLVM IR -> ``tvm.runtime.Module``), the compilation cache;
- ``packed_api``: emit ``__tvm_ffi_<name>`` wrappers that unpack and check arguments;
- ``intrin``: the intrinsic lowering rules (``INTRIN_RULES``);
- ``threadpool``: ``TVMBackendParallelLaunch`` for parallel loops.
"""

from __future__ import annotations

import gc

#: DLPack device type of the code this backend generates (kDLCPU).
DEVICE_TYPE = 1


def register_backend():
    """Hook for ``tvm.backend.load("llvm")``: the table entry and the runtime hooks.

    Cheap: everything behind them (llvmlite, the code generator, the rules) loads lazily.
    """
    from ...runtime.hooks import register_runtime_hook
    from .. import Backend, LazyRules
    from .. import register_backend as add_backend

    register_runtime_hook("parallel_launch_address", _launch_address, override=True)
    register_runtime_hook("num_threads", _num_threads, override=True)
    register_runtime_hook("text_module", text_module, override=True)
    add_backend(
        Backend(
            name="llvm",
            codegen=compile_lowered,
            intrin_rules=LazyRules("tvm.backend.llvm.intrin", "INTRIN_RULES"),
            device_type=DEVICE_TYPE,
            device_api=None,
            host=True,
            default_tir_pipeline="default",
            codegen_parts=compile_lowered_parts,
            compile_threads=compile_threads,
            prepare=prepare,
        ),
        override=True,
    )


def build_module(ir_module, target=None, name=None, *, use_cache=True):
    """Compile LLVM IR into a ``tvm.runtime.Module``; see ``tvm.backend.llvm.jit.build_module``."""
    # Lazy import keeps `import tvm.backend.llvm` free of llvmlite.
    from .jit import build_module as _build

    return _build(ir_module, target, name, use_cache=use_cache)


# --- the Backend entry ------------------------------------------------------------------------


# Not named ``codegen``: that is the code generator's submodule.
def compile_lowered(mod, target=None):
    """``Backend.codegen``: lowered ``IRModule`` of llvm functions -> ``tvm.runtime.Module``."""
    return compile_lowered_parts([mod], target)


def compile_lowered_parts(parts, target=None, name=None):
    """``Backend.codegen_parts``: generate and JIT-compile lowered ``IRModule`` parts.

    ``parts`` may be a generator that lowers each part when pulled: each part's LLVM IR is
    handed to a compile thread at once (``jit.PartCompiler``), so LLVM works on it while the
    next part is lowered. Two LLVM modules per part: the kernels, and their packed wrappers
    (argument unpacking and checks, then one call), which LLVM compiles at level 0 (fast
    instruction selection). The runtime helpers the kernels call JIT-compile meanwhile.
    """
    # Lazy: llvmlite is imported only when something is compiled.
    from .codegen import codegen_module
    from .jit import PartCompiler, prepare_runtime

    prepare_runtime()
    compiler = PartCompiler(target, name=name or "pytvm")
    for part in parts:
        kernels, wrappers = codegen_module(part, module_name=name or "pytvm",
                                           split_wrappers=True)
        compiler.submit(kernels)
        compiler.submit(wrappers, opt_level=0)
    if not compiler.keys:  # every function went to a device backend: an empty host module
        compiler.submit("")
    return compiler.finish(while_waiting=_collect_young_garbage)


def compile_threads() -> int:
    """Threads :func:`compile_lowered_parts` compiles on (``jit.COMPILE_THREADS``, else the CPUs)."""
    from .jit import compile_threads as _threads  # lazy: the JIT module loads on first build

    return _threads()


def _collect_young_garbage() -> None:
    """Collect the objects allocated since the driver paused the collector (``gc_paused``).

    The build leaves cyclic garbage (every llvmlite module is one big cycle) that only the
    collector frees; with it paused, the first collection after the build scanned all of it:
    ~20 ms at the end of an MLP training step's ``relax.build``. Run while the last part
    compiles in another thread, that collection costs no wall time.
    """
    gc.collect(0)


def prepare(target=None) -> None:
    """Start JIT-compiling the runtime helpers in the background (``relax.build`` calls it).

    The argument checks, workspace functions and thread pool that compiled kernels call are
    JIT-compiled once per process (loaded from the disk cache after the first). Started
    before the Relax passes, they compile on another CPU while Python runs them.
    """
    from .jit import prepare_runtime  # lazy: imports llvmlite

    prepare_runtime(("checks", "workspace", "pool"))


def text_module(symbol: str, text: str):
    """A module exporting the packed function ``symbol`` that returns ``text`` (a string).

    The runtime hook ``"text_module"``: ``relax.Executable.export_library`` stores the VM
    program in the shared library that way.
    """
    return build_module(_text_ir(symbol, text), name="pytvm_relax_program")


def _text_ir(symbol: str, text: str) -> str:
    """LLVM IR of a packed function ``symbol`` returning ``text`` as a ``tvm_ffi`` string."""
    data = text.encode("utf-8")
    escaped = "".join(
        chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data
    )
    n = len(data)
    return f"""
@.pytvm_program = private constant [{n} x i8] c"{escaped}"
@.pytvm_program_ba = private constant {{ ptr, i64 }} {{ ptr @.pytvm_program, i64 {n} }}
declare i32 @TVMFFIStringFromByteArray(ptr, ptr)
define dllexport i32 @__tvm_ffi_{symbol}(ptr %self, ptr %args, i32 %n, ptr %result) {{
entry:
  %r = call i32 @TVMFFIStringFromByteArray(ptr @.pytvm_program_ba, ptr %result)
  ret i32 %r
}}
"""


def _launch_address() -> int:
    from .threadpool import launch_address  # lazy: the pool is JIT-compiled on first use

    return launch_address()


def _num_threads() -> int:
    from .threadpool import num_threads  # lazy: the pool is JIT-compiled on first use

    return num_threads()
