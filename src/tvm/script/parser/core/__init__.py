"""Dialect-independent parser machinery: source and diagnostics, dispatch, evaluation."""

from . import dispatch, entry  # noqa: F401
from .diagnostics import Diagnostics, Source  # noqa: F401
from .parser import Parser, VarTable  # noqa: F401
