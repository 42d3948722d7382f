"""``relax.Executable`` (``VMExecutable``): compiled kernels plus the VM code of each function.

An executable holds the ``tvm.runtime.Module`` of compiled kernels and, for each Relax function,
the generated Python source (see :mod:`.codegen`) with its constants. ``export_library`` writes
one shared library: the kernels plus an extra exported function ``__pytvm_relax_program`` that
returns the VM program (pickled, base64 text), so ``tvm.runtime.load_module(path)`` followed by
``relax.VirtualMachine(lib, dev)`` runs it again in another process.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import pickle
from typing import Any

from ...ir.module import IRModule
from ...runtime.hooks import get_runtime_hook

__all__ = ["PROGRAM_SYMBOL", "Executable", "VMExecutable"]

#: The exported function of a library that returns its VM program.
PROGRAM_SYMBOL = "__pytvm_relax_program"
_FORMAT = "pytvm-relax-vm-1"


class Executable:
    """The result of :func:`tvm.relax.build`: run it with :class:`tvm.relax.VirtualMachine`.

    Parameters
    ----------
    lib : tvm.runtime.Module or None
        The compiled kernels (None when the module has no PrimFunc).
    codes : dict
        ``name -> (FunctionCode, FunctionCode for profiling)`` for every Relax function. The
        profiling code may be None when ``mod`` is given: it is generated from ``mod[name]``
        the first time it is needed (``VirtualMachine.profile``, ``export_library``).
    mod : IRModule, optional
        The module after the Relax pipeline (what was compiled); None for a loaded library.
    """

    #: Whether ``relax.build(..., system_lib=True)`` made it (no effect on the kernels here).
    system_lib = False
    #: The ``tvm.target.Target`` it was built for (None for a loaded library).
    target: Any = None

    def __init__(self, lib, codes, mod=None):
        self.lib = lib
        #: ``relax.build(..., params=...)``: main's parameter name -> runtime tensor, kept as
        #: TVM 0.27 keeps them (not bound; ``main`` still takes every argument).
        self.params = {}
        if mod is None and any(prof is None for _, prof in codes.values()):
            raise ValueError("Executable: profiling code can only be left out with the module")
        self._codes = dict(codes)
        self.mod = mod
        # The functions as compiled: ``mod`` can be changed in place later (``mod[name] = f``),
        # which swaps its function table; a module over the table of now does not see that.
        self._compiled_mod = None if mod is None else IRModule(
            mod.functions, mod.attrs, mod.global_infos
        )

    def _profile_code(self, name):
        """The profiling variant of function ``name``, generated on first use.

        Why lazily: most executables are never profiled, and generating both variants at
        build time made the VM code generation cost twice what running needs.
        """
        code, prof = self._codes[name]
        if prof is None:
            from .codegen import compile_function  # lazy: codegen imports the Relax passes

            mod = self._compiled_mod
            prof = compile_function(name, mod[name], mod, profile=True)
            self._codes[name] = (code, prof)
        return prof

    # --- introspection ----------------------------------------------------------------------
    @property
    def imports(self) -> list:
        """The compiled kernels module as TVM's ``vm.module.imports`` (empty without one)."""
        return [] if self.lib is None else [self.lib]

    @property
    def function_names(self) -> list:
        """Names of the Relax functions the executable can run."""
        return list(self._codes)

    def as_python(self) -> str:
        """The generated Python source of every function (what the VM runs)."""
        return "\n".join(code.source for code, _ in self._codes.values())

    def as_text(self) -> str:
        """Alias of :meth:`as_python` (TVM prints VM bytecode here)."""
        return self.as_python()

    def stats(self) -> str:
        """A short summary: functions, kernels called, planned buffers, NumPy fallbacks.

        Planned buffers are given as their count and total size, then the bytes the VM
        allocates for them once bindings with disjoint lifetimes share storage (the peak).
        """
        lines = []
        for name, (code, _) in self._codes.items():
            info = _planned_memory(code)
            lines.append(
                f"{name}: {len(code.kernels)} kernel calls, {info['buffers']} planned "
                f"buffers ({info['bytes']} bytes, {info['shared_bytes']} bytes in "
                f"{info['storages']} shared storages), NumPy fallbacks: "
                f"{sorted(set(code.fallbacks)) or 0}"
            )
        return "\n".join(lines)

    def planned_memory(self) -> dict:
        """Per function: ``buffers``, ``bytes`` (their sum), ``storages`` and ``shared_bytes``.

        ``shared_bytes`` is what one ``VirtualMachine`` allocates for the planned buffers of
        the function after storage sharing; ``bytes`` is what it would take without sharing.
        """
        return {name: _planned_memory(code) for name, (code, _) in self._codes.items()}

    def __repr__(self) -> str:
        return f"relax.Executable(functions={self.function_names!r})"

    # --- export -------------------------------------------------------------------------------
    def _program_text(self) -> str:
        for name, (code, _) in self._codes.items():
            if code.fallbacks:
                raise ValueError(
                    f"export_library: function {name} runs {sorted(set(code.fallbacks))} with "
                    "NumPy reference rules (not legalized), which cannot be exported; legalize "
                    "every op before exporting"
                )
        for name in self._codes:
            self._profile_code(name)  # the library carries both variants
        payload = pickle.dumps((_FORMAT, self._codes), protocol=4)
        # ``<format>:<sha256 of the payload>:<base64 payload>``: a damaged library is refused
        # on load instead of running a changed program.
        digest = hashlib.sha256(payload).hexdigest()
        return f"{_FORMAT}:{digest}:{base64.b64encode(payload).decode('ascii')}"

    def export_library(self, file_name, *, fcompile=None, workspace_dir=None, **kwargs) -> str:
        """Write a shared library that ``tvm.runtime.load_module`` loads back.

        Parameters
        ----------
        file_name : str or os.PathLike
            The ``.so`` to write (linking needs a C compiler driver, see
            :meth:`tvm.runtime.Module.export_library`).
        fcompile, workspace_dir, **kwargs
            Passed to :meth:`tvm.runtime.Module.export_library`.
        """
        # The host backend (llvm) provides the carrier through a runtime hook.
        make_text_module = get_runtime_hook("text_module")
        carrier = make_text_module(PROGRAM_SYMBOL, self._program_text())
        # As TVM's VM executable module, the library answers ``lib["as_text"]()`` and
        # ``lib["as_python"]()`` with what this executable prints.
        texts = [make_text_module("as_text", self.as_text()),
                 make_text_module("as_python", self.as_python())]
        if self.lib is not None:
            # A fresh wrapper so the cached kernels module does not collect imports.
            from ...runtime.module import Module

            root = Module(self.lib.impl)
            root.import_module(carrier)
        else:
            root = carrier
        for text in texts:
            root.import_module(text)
        return root.export_library(
            file_name, fcompile=fcompile, workspace_dir=workspace_dir, **kwargs
        )

    @staticmethod
    def from_library(lib) -> Executable:
        """The executable stored in a library written by :meth:`export_library`."""
        try:
            getter = lib.get_function(PROGRAM_SYMBOL, query_imports=True)
        except (AttributeError, KeyError, ValueError, RuntimeError) as err:
            raise ValueError(
                "VirtualMachine: this runtime module holds no Relax VM program (it was not "
                "written by relax.Executable.export_library)"
            ) from err
        return Executable(lib, _decode_program(getter, getattr(lib, "library_path", None)))


def _decode_program(getter, path):
    """The per-function VM codes of a library's program text; ValueError naming the file when
    the text is damaged (checksum, base64, text encoding or pickle)."""
    where = f"library '{path}'" if path else "the library"
    try:
        text = str(getter())
    except (UnicodeDecodeError, ValueError, RuntimeError) as err:
        raise ValueError(
            f"VirtualMachine: the VM program stored in {where} is damaged (it is not valid "
            f"text: {err}); export the library again"
        ) from None
    fmt, sep1, rest = text.partition(":")
    digest, sep2, b64 = rest.partition(":")
    if fmt != _FORMAT or not sep1 or not sep2:
        raise ValueError(
            f"VirtualMachine: the VM program stored in {where} is damaged or of an unknown "
            f"format (expected {_FORMAT!r}); export the library again"
        )
    try:
        payload = base64.b64decode(b64, validate=True)
    except binascii.Error as err:
        raise ValueError(
            f"VirtualMachine: the VM program stored in {where} is damaged (bad base64: {err}); "
            "export the library again"
        ) from None
    if hashlib.sha256(payload).hexdigest() != digest:
        raise ValueError(
            f"VirtualMachine: the VM program stored in {where} is damaged (its checksum does "
            "not match); export the library again"
        )
    # The checksum matched: the bytes are the ones export_library wrote.
    data = pickle.loads(payload)
    if not isinstance(data, tuple) or len(data) != 2 or data[0] != _FORMAT:
        raise ValueError(f"VirtualMachine: unknown VM program format in {where}")
    return data[1]


#: TVM's class name for the same thing.
VMExecutable = Executable


def _planned_memory(code):
    total = sum(int(_size(shape, dtype)) for _, shape, dtype in code.planned)
    storage_of = getattr(code, "storage_of", None) or {}
    sizes = list(getattr(code, "storage_sizes", ()))
    # Slots outside any storage (an executable exported before sharing) count in full.
    unshared = sum(int(_size(shape, dtype)) for slot, shape, dtype in code.planned
                   if slot not in storage_of)
    return {
        "buffers": len(code.planned),
        "bytes": total,
        "storages": len(sizes) + sum(1 for slot, _, _ in code.planned if slot not in storage_of),
        "shared_bytes": sum(sizes) + unshared,
    }


def _size(shape, dtype):
    n = 1
    for d in shape:
        n *= d
    return n * dtype.itemsize
