"""The TVMScript namespace of the Metal backend: the class of ``T.metal``
(``from tvm.backend.metal.script import MetalNamespace``, as in Apache TVM 0.27). The instance
is ``tvm.tirx.script.builder.ir.metal``, the same object as ``T.metal``."""

from ...tirx.intrin_namespaces import MetalNamespace

__all__ = ["MetalNamespace"]
