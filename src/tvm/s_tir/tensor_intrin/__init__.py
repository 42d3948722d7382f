"""``tvm.s_tir.tensor_intrin``: the tensor intrinsics pytvm registers for ``Schedule.tensorize``.

Importing the package registers them in :class:`tvm.tirx.TensorIntrin`'s table. What exists
now: the x86 AVX-512 VNNI ``uint8 x int8 -> int32`` 16x4 dot product (:mod:`.x86`). Apache
TVM also registers ARM, CUDA (WMMA/MMA), ROCm, Metal, Hexagon and RISC-V intrinsics; those
are not written yet, so ``TensorIntrin.get`` of their names raises.
"""

from . import x86  # noqa: F401  (registers the x86 intrinsics)
