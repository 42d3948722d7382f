"""``tvm.testing.test_raise_error``: raise an error of a given kind through the FFI.

Tests of the error translation call it the way compiled code fails: the error crosses the
tvm_ffi boundary as ``kind: message`` and comes back as the Python class registered for
``kind`` (``tvm.error.register_error``).
"""

from __future__ import annotations

__all__ = ["test_raise_error"]


def test_raise_error(kind: str, message: str) -> None:
    """Raise an error of ``kind`` with ``message`` through tvm_ffi.

    Calls tvm_ffi's global function ``testing.test_raise_error``: ``"OpNotImplemented"``
    comes back as ``tvm.error.OpNotImplemented`` (a ``NotImplementedError``), ``"ValueError"``
    as ``ValueError``.

    Examples
    --------
    >>> import tvm, tvm.testing
    >>> try:
    ...     tvm.testing.test_raise_error("OpNotImplemented", "myop")
    ... except tvm.error.OpNotImplemented as err:
    ...     print(type(err).__name__, err)
    OpNotImplemented myop
    """
    import tvm_ffi  # lazy: tvm.testing imports nothing heavy at import

    from .. import error  # noqa: F401 - the error classes register their kinds on import

    tvm_ffi.get_global_func("testing.test_raise_error")(kind, message)


test_raise_error.__test__ = False  # a helper named test_*: not a test for pytest to collect
