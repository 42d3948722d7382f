"""The C-source code generator (``tvm.backend.c``): :class:`~.codegen_c.CodeGenC`.

Used as the base of the CUDA generator (``tvm.backend.cuda.codegen_cuda``); there is no
``target="c"`` build yet.
"""


def register_backend() -> None:
    """Register nothing: the ``"c"`` target kind has no backend yet.

    ``tvm.backend.get_backend("c")`` therefore raises its "target kind 'c' has no backend"
    ``ValueError``; this package only provides :class:`~.codegen_c.CodeGenC` to device backends.
    """
