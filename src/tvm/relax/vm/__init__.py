"""The Relax virtual machine: executables, the VM, and the Relax -> Python code generator.

See ``docs/arch/build_and_vm.md``.
"""

from . import global_builtins as _global_builtins  # noqa: F401 - registers vm.builtin.*
from .exec_builder import ExecBuilder
from .executable import Executable, VMExecutable
from .machine import ProfileReport, VirtualMachine, VMInstrumentReturnKind

__all__ = [
    "ExecBuilder", "Executable", "ProfileReport", "VMExecutable", "VMInstrumentReturnKind",
    "VirtualMachine",
]
