"""The Relax virtual machine: executables, the VM, and the Relax -> Python code generator.

See ``docs/arch/build_and_vm.md``.
"""

from .executable import Executable, VMExecutable
from .machine import ProfileReport, VirtualMachine

__all__ = ["Executable", "ProfileReport", "VMExecutable", "VirtualMachine"]
