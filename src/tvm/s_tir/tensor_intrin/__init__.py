"""``tvm.s_tir.tensor_intrin``: the tensor intrinsics pytvm registers for ``Schedule.tensorize``.

Importing the package registers them in :class:`tvm.tirx.TensorIntrin`'s table:

* x86 (:mod:`.x86`): the AVX-512 VNNI ``uint8 x int8 -> int32`` 16x4 dot product
  (``dot_16x4_vnni``, ``vpdpbusd``);
* AArch64 (:mod:`.arm_cpu`): the NEON dot products ``dot_4x4_i8i8s32_sdot`` and
  ``dot_4x4_u8u8u32_udot`` (``sdot``/``udot``, Armv8.2 ``+dotprod``).

Apache TVM also registers the AVX-512 ``pmaddubs`` dot product, NEON without ``dotprod``, SME,
CUDA (WMMA/MMA), ROCm, Metal, Hexagon and RISC-V intrinsics; those are not written yet, so
``TensorIntrin.get`` of their names raises.
"""

from . import arm_cpu, x86  # noqa: F401  (registers the intrinsics)
