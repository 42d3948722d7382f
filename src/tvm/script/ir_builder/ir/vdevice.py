"""Virtual devices in TVMScript: ``I.vdevice(...)`` and the lookup of ``vdevice="llvm:0"``.

A tensor annotation names a virtual device of the module's ``global_infos["vdevice"]`` list by
``"<kind>"`` (the first of that target kind), ``"<kind>:<i>"`` (the i-th of that kind) or
``"vdevice:<i>"`` (the i-th of the list); a third part (``"llvm:0:global"``, the printed form)
names the memory scope and is not needed to find the device.
"""

from __future__ import annotations

from tvm.ir.global_info import VDevice

from ..base import IRBuilder
from .frame import IRModuleFrame

__all__ = ["lookup_vdevice", "parse_vdevice", "vdevice"]


def vdevice(target=None, vdevice_id: int = 0, memory_scope: str = "global") -> VDevice:
    """``I.vdevice(target, vdevice_id=0, memory_scope="global")``: a virtual device.

    ``target`` is a Target, a target string (``"llvm"``) or a target config dict.
    """
    return VDevice(target, vdevice_id, memory_scope)


def lookup_vdevice(target_kind: str, device_index: int = 0) -> VDevice:
    """The ``device_index``-th virtual device of kind ``target_kind`` (``"vdevice"``: of any
    kind) in the module being built.

    Outside an ``I.ir_module`` frame an unplaced ``VDevice()`` is returned (as in TVM, which
    also logs a warning; Python evaluates a decorated function's annotations once before the
    parser reads them, so pytvm stays silent); inside one, a missing list or device is a
    ValueError.
    """
    frame = IRBuilder.current().find_frame(IRModuleFrame) if IRBuilder.is_in_scope() else None
    if frame is None:
        return VDevice()
    devices = list((frame.global_infos or {}).get("vdevice", []))
    if not devices:
        raise ValueError(
            "The module has no virtual devices: declare them with "
            'I.module_global_infos({"vdevice": [I.vdevice(...)]})'
        )
    if device_index < 0 or device_index >= len(devices):
        raise ValueError(f"The target VDevice {target_kind}:{device_index} was not found")
    if target_kind == "vdevice":
        return devices[device_index]
    same_kind = [d for d in devices if d.target is not None and d.target.kind.name == target_kind]
    if device_index >= len(same_kind):
        raise ValueError(
            f"The target VDevice {target_kind}:{device_index} was not found: the module has "
            f"{len(same_kind)} {target_kind} virtual device(s)"
        )
    return same_kind[device_index]


def parse_vdevice(text: str) -> VDevice:
    """The virtual device an annotation string (``"llvm"``, ``"cuda:1"``, ``"vdevice:3"``,
    ``"llvm:0:global"``) names."""
    parts = text.split(":")
    if len(parts) == 1:
        return lookup_vdevice(parts[0], 0)
    try:
        index = int(parts[1])
    except ValueError:
        raise ValueError(
            f"vdevice {text!r}: expected '<kind>', '<kind>:<index>' or '<kind>:<index>:<scope>'"
        ) from None
    return lookup_vdevice(parts[0], index)
