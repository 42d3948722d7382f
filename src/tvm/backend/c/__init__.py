"""The C-source code generator (``tvm.backend.c``): :class:`~.codegen_c.CodeGenC`.

Used as the base of the CUDA generator (``tvm.backend.cuda.codegen_cuda``); there is no
``target="c"`` build yet.
"""
