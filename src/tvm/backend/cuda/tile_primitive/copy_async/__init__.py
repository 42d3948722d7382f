"""CUDA variants of ``Tx.copy_async`` (asynchronous copies), one module each:

* :mod:`.ldgsts`: ``ldgsts`` (priority 20), ``cp.async`` global -> shared over the scope's
  threads;
* :mod:`.tma`: ``tma_auto`` and ``tma_explicit`` (priority 10, one thread), the Tensor Memory
  Accelerator (``cp.async.bulk.tensor``) global <-> shared, with the ``CUtensorMap``
  descriptor encoded on the host;
* :mod:`.dsmem`: ``dsmem`` (priority 10, one thread), ``cp.async.bulk`` shared -> shared of
  another CTA of the cluster (``shared::cluster`` through ``mapa``);
* :mod:`.tcgen05`: ``tmem<->local`` (``tcgen05.ld``/``tcgen05.st`` ``.32x32b``, a warpgroup)
  for Blackwell tensor memory (``smem->tmem`` with ``tcgen05.cp`` is not supported yet).

``docs/arch/tirx_tile.md`` ("CUDA variants") describes each.
"""

from . import dsmem, ldgsts, tcgen05, tma  # noqa: F401  (register the variants)
from .ldgsts import LDGSTS_BYTES

__all__ = ["LDGSTS_BYTES"]
