"""``tvm.script.ir``: the ``I`` namespace (same module as :mod:`tvm.script.parser.ir`)."""

from .parser.ir import *  # noqa: F401,F403
from .parser.ir import __all__  # noqa: F401
