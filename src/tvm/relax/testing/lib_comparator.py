"""``LibCompareVMInstrument``: check every kernel a VM runs against another library.

Set it with ``vm.set_instrument(LibCompareVMInstrument(ref_lib, dev))``: after each kernel
call it runs the function of the same name from ``ref_lib`` on copies of the arguments and
compares every argument afterwards (the outputs of destination-passing kernels are arguments).
"""

from __future__ import annotations

import numpy as np

__all__ = ["LibCompareVMInstrument"]


def _copy(value):
    from ...runtime.tensor import tensor  # lazy: only when a kernel is compared

    if hasattr(value, "numpy") and hasattr(value, "shape"):
        return tensor(np.array(value.numpy()))
    if isinstance(value, np.ndarray):
        return tensor(value.copy())
    return value


def _array(value):
    if hasattr(value, "numpy"):
        return value.numpy()
    return value if isinstance(value, np.ndarray) else None


class LibCompareVMInstrument:
    """A VM instrument comparing each kernel call with ``mod``'s function of the same name.

    Parameters
    ----------
    mod : tvm.runtime.Module
        The reference library (kernels looked up by name; missing ones are skipped).
    device : Device
        Where the reference runs (the copies are made on the CPU; accepted for TVM's API).
    verbose : bool
        Print each comparison.
    rtol, atol : float
        Tolerances of ``np.testing.assert_allclose``.
    """

    def __init__(self, mod, device, verbose=True, rtol=1e-5, atol=1e-5):
        self.mod, self.device, self.verbose = mod, device, verbose
        self.rtol, self.atol = rtol, atol
        self.compared = []  # names of the kernels compared, in call order

    def _reference(self, name):
        try:
            return self.mod.get_function(name, query_imports=True)
        except (AttributeError, KeyError, ValueError, RuntimeError):
            return None

    def __call__(self, func, name, before_run, ret_val, *args):
        if before_run:
            return 0
        ref = self._reference(name)
        if ref is None:
            return 0
        copies = [_copy(a) for a in args]
        ref(*copies)
        for index, (ours, theirs) in enumerate(zip(args, copies)):
            a, b = _array(ours), _array(theirs)
            if a is None or b is None:
                continue
            np.testing.assert_allclose(
                a, b, rtol=self.rtol, atol=self.atol,
                err_msg=f"LibCompareVMInstrument: kernel {name}, argument {index} differs",
            )
        self.compared.append(name)
        if self.verbose:
            print(f"LibCompareVMInstrument: {name} matches")
        return 0
