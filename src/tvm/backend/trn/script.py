"""The TVMScript namespace of the Trainium backend: the class of ``T.nki``
(``from tvm.backend.trn.script import NKINamespace``, as in Apache TVM 0.27). The instance is
``tvm.tirx.script.builder.ir.nki``, the same object as ``T.nki``."""

from ...tirx.intrin_namespaces import NKINamespace

__all__ = ["NKINamespace"]
