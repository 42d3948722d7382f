"""Rendering one ``T.ptx`` table entry without a call (``tvm.backend.cuda.ptx.render``).

:func:`render_variant` is :func:`tvm.tirx.ptx.render.render_variant`: ``(opcode, helper
name, helper source)`` of an entry and its positional modifier tokens. The code generator
renders calls with :func:`tvm.tirx.ptx.render_ptx`, which shares the same code.
"""

from ....tirx.ptx.render import PTXRender, render_ptx, render_variant

__all__ = ["PTXRender", "render_ptx", "render_variant"]
