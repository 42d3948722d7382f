"""The TVMScript namespaces of the CUDA backend: the classes of ``T.cuda``, ``T.nvshmem``,
``T.s_tir`` and ``T.ptx_legacy``.

The namespaces are built in ``tvm.tirx`` (the IR layer, which the script layer needs to parse
kernels without loading a backend); this module is where Apache TVM 0.27 user code imports
their classes from (``from tvm.backend.cuda.script import CUDANamespace``). The instances are
``tvm.tirx.script.builder.ir.cuda`` etc., the same objects as ``T.cuda``.
"""

from ...tirx.cuda_ops import CUDANamespace
from ...tirx.intrin_namespaces import NVSHMEMNamespace, PTXLegacyNamespace, STIRNamespace

__all__ = ["CUDANamespace", "NVSHMEMNamespace", "PTXLegacyNamespace", "STIRNamespace"]
