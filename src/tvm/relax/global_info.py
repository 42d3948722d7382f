"""Module-level information used by Relax: re-exports of ``tvm.ir.global_info``.

``VDevice`` and ``DummyGlobalInfo`` are declared in ``tvm.ir`` (their home in Apache TVM 0.27);
``tvm.relax.VDevice`` is the same class.
"""

from ..ir.global_info import DummyGlobalInfo, VDevice

__all__ = ["DummyGlobalInfo", "VDevice"]
