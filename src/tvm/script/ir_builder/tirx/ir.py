"""The device-intrinsic script namespaces of TIRx (``tvm.tirx.script.builder.ir``).

``cuda``, ``nvshmem``, ``s_tir``, ``ptx_legacy``, ``metal`` and ``nki`` are the objects that
TVMScript reaches as ``T.cuda``, ``T.nvshmem``, ... (the very same objects: ``T.cuda is
ir.cuda``). Their classes are exported by the backends (``tvm.backend.cuda.script``,
``tvm.backend.metal.script``, ``tvm.backend.trn.script``), as in Apache TVM 0.27.

A backend adds a namespace of its own with :func:`register_script_namespace` (usually from its
``register_backend()`` hook); the name then resolves in TVMScript as ``T.<name>``.
"""

from __future__ import annotations

import importlib
import keyword

from ....tirx.cuda_ops import cuda
from ....tirx.intrin_namespaces import metal, nki, nvshmem, ptx_legacy, s_tir

__all__ = ["cuda", "metal", "nki", "nvshmem", "ptx_legacy", "register_script_namespace", "s_tir"]

# The modules a namespace is bound in: this one, the builder package and the TVMScript ``T``
# package (``tvm.tirx.script.builder``, ``tvm.tirx.script.parser`` in 0.27's spelling).
_FACADES = ("tvm.script.ir_builder.tirx.ir", "tvm.script.ir_builder.tirx",
            "tvm.script.parser.tirx")


def register_script_namespace(name: str, namespace, override: bool = False):
    """Make ``namespace`` reachable as ``T.<name>`` in TVMScript (and as
    ``tvm.tirx.script.builder.<name>`` / ``tvm.tirx.script.builder.ir.<name>``).

    Parameters
    ----------
    name : str
        A Python identifier, not a keyword.
    namespace : object
        The namespace object; its attributes are what ``T.<name>.<attr>`` calls.
    override : bool
        Replace a namespace already registered under ``name`` (default: an error).

    Returns
    -------
    namespace : object
        The registered namespace.

    Raises
    ------
    ValueError
        When ``name`` is not an identifier, or is taken and ``override`` is false.
    """
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"register_script_namespace: {name!r} is not a Python identifier")
    # The parser package imports this one: it is imported here, when a backend registers.
    modules = [importlib.import_module(m) for m in _FACADES]
    current = getattr(modules[0], name, None)
    if current is not None and current is not namespace and not override:
        raise ValueError(f"register_script_namespace: T.{name} is already registered "
                         f"({type(current).__name__}); pass override=True to replace it")
    for module in modules:
        setattr(module, name, namespace)
    return namespace
