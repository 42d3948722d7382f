"""``tvm.script.ir``: the ``I`` namespace (same module as :mod:`tvm.script.parser.ir`)."""

from .parser.ir import *
from .parser.ir import __all__  # noqa: F401
