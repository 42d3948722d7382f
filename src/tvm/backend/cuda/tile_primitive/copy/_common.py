"""Shared facts of the CUDA copy variants (``tvm.backend.cuda.tile_primitive.copy._common``).

Only :func:`copy_ptx_form` lives here so far; the copy variants themselves are in
:mod:`tvm.backend.cuda.tile_primitive.copy`.
"""

from __future__ import annotations

__all__ = ["copy_ptx_form"]

# bytes -> (vector and type tokens, registers, register dtype). The registers are 32-bit
# words for every width of at least 4 bytes: copies move bits, not values.
_FORMS = {
    32: ("v8.u32", 8, "uint32"),  # a 256-bit access: sm_100 and PTX 8.8, global only
    16: ("v4.u32", 4, "uint32"),
    8: ("v2.u32", 2, "uint32"),
    4: ("u32", 1, "uint32"),
    2: ("u16", 1, "uint16"),
    1: ("u8", 1, "uint8"),
}


def copy_ptx_form(num_bytes: int) -> tuple:
    """``(tail, lanes, register dtype)`` of a ``num_bytes``-wide copy through registers.

    ``tail`` completes a ``T.ptx`` ld/st spelling (``f"ld.shared.{tail}"``), ``lanes`` is
    how many register operands it takes and the dtype is theirs. ``ValueError`` for a
    width other than 1, 2, 4, 8, 16 or 32 bytes.
    """
    try:
        return _FORMS[int(num_bytes)]
    except KeyError:
        raise ValueError(f"copy_ptx_form: no single ld/st moves {num_bytes} bytes; the "
                         f"widths are {', '.join(str(k) for k in sorted(_FORMS))}") from None
