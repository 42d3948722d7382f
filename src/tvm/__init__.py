"""pytvm: the TVM deep-learning compiler stack in Python."""

from . import ffi  # noqa: F401
