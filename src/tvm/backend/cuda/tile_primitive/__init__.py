"""CUDA tile-primitive variants (``tvm.tirx.cuda.tile_primitive``) and their support code.

Importing the package registers the variants in the tile-primitive dispatch table
(:mod:`tvm.tirx.operator.tile_primitive.dispatcher`); the CUDA backend imports it when it
loads (:func:`tvm.backend.cuda.register_backend`). ``docs/arch/tirx_tile.md`` ("CUDA
variants") lists them.

* :mod:`.copy`: ``Tx.copy``: ``vec_auto``, ``vec_16b``...``vec_128b``, ``ldstmatrix``, ``fallback``;
* :mod:`.copy_async`: ``Tx.copy_async``: ``ldgsts``, ``tma_auto``/``tma_explicit``, ``dsmem``,
  ``tmem<->local``;
* :mod:`.elementwise`: ``reg`` and ``smem`` for fill, unary, binary, cast and fma;
* :mod:`.reduction`: ``shared`` for sum/max/min at warp and CTA scope;
* :mod:`.gemm`: ``Tx.gemm``: ``mma.m16n8k*`` (warp ``mma.sync`` over register fragments);
* :mod:`.gemm_async`: ``Tx.gemm_async``: ``wgmma`` (Hopper warpgroup MMA from shared-memory
  descriptors) and ``tcgen05`` (Blackwell, TMEM accumulator; compile-only);
* :mod:`.tma_utils`: TMA/MMA shared-memory layout helpers.
"""

from . import (  # noqa: F401  (register the variants)
    copy,
    copy_async,
    elementwise,
    gemm,
    gemm_async,
    reduction,
)
