"""TMA/MMA shared-memory layout helpers; the layouts themselves live in ``tvm.tirx.layout``."""

from ....tirx.layout.factories import SwizzleMode, mma_shared_layout

__all__ = ["SwizzleMode", "mma_shared_layout"]
