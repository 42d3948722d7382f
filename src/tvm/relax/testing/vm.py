"""Helpers for tests of the Relax VM: small global functions ``test.vm.*`` and
:func:`check_saved_func`.

Importing this module registers (replacing earlier registrations of the same names):

* ``test.vm.move(x)`` returns ``x``; ``test.vm.add(a, b)``, ``test.vm.mul(a, b)`` return the
  elementwise sum/product of two tensors; ``test.vm.equal_zero(a)`` a 0-d bool tensor "all
  zero"; ``test.vm.subtract_one(a)`` ``a - 1``;
* destination-passing ``test.vm.identity(a, out)`` and ``test.vm.tile(a, out)`` (tile twice
  along the last axis of a 2-D tensor) write into ``out``;
* ``test.vm.add_scalar(a, b)`` adds two scalars; ``test.vm.get_device_id(dev)`` is
  ``dev.index``; ``test.vm.check_if_defined(obj)`` is ``obj is not None``.
"""

from __future__ import annotations

import numpy as np

from ...ffi import register_func
from ...runtime import tensor as _tensor

__all__ = ["check_saved_func"]


def _np(value):
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _write(out, values):
    out.copyfrom(np.ascontiguousarray(values, dtype=out.dtype))


_FUNCS = {
    "test.vm.move": lambda x: x,
    "test.vm.add": lambda a, b: _tensor(_np(a) + _np(b)),
    "test.vm.mul": lambda a, b: _tensor(_np(a) * _np(b)),
    "test.vm.equal_zero": lambda a: _tensor(np.array(np.all(_np(a) == 0))),
    "test.vm.subtract_one": lambda a: _tensor(np.subtract(_np(a), 1)),
    "test.vm.identity": lambda a, out: _write(out, _np(a)),
    "test.vm.tile": lambda a, out: _write(out, np.tile(_np(a), (1, 2))),
    "test.vm.add_scalar": lambda a, b: a + b,
    "test.vm.get_device_id": lambda dev: dev.index,
    "test.vm.check_if_defined": lambda obj: obj is not None,
}
for _name, _fn in _FUNCS.items():
    register_func(_name, _fn, override=True)


def check_saved_func(vm, func_name: str, *inputs):
    """Call ``vm[func_name](*inputs)`` directly and through ``vm.save_function``; assert both
    results are equal and return the direct one."""
    saved_name = f"{func_name}_saved"
    vm.save_function(func_name, saved_name, *inputs)
    direct = vm[func_name](*inputs)
    saved = vm[saved_name]()
    np.testing.assert_allclose(_np(direct), _np(saved), rtol=1e-7, atol=1e-7)
    return direct
