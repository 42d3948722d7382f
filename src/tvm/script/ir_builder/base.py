"""The IR builder: a stack of frames that TVMScript handlers (or Python code) open and close.

Usage mirrors Apache TVM:

>>> from tvm import relax
>>> from tvm.script.ir_builder import IRBuilder
>>> from tvm.script.ir_builder import ir as I, relax as R
>>> with IRBuilder() as ib:
...     with I.ir_module():
...         with R.function():
...             R.func_name("main")
...             x = R.arg("x", relax.TensorType((3,), "float32"))
...             R.func_ret_value(x)
>>> ib.get().get_global_vars()[0].name_hint
'main'

Each frame is a context manager. Entering pushes it on the current builder's stack; leaving
pops it and calls :meth:`IRBuilderFrame.exit_with_scope`, which hands what the frame built to
its parent (or, for the outermost frame, to the builder as its result).
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["IRBuilder", "IRBuilderFrame"]

_STATE = threading.local()


def _builder_stack() -> list:
    stack = getattr(_STATE, "builders", None)
    if stack is None:
        stack = _STATE.builders = []
    return stack


class IRBuilderFrame:
    """A scope of the IR builder (a module, a function, a block, a branch...)."""

    def __enter__(self):
        frames = IRBuilder.current().frames
        frames.append(self)
        try:
            self.enter_with_scope()
        except BaseException:
            frames.pop()
            raise
        return self

    def __exit__(self, exc_type, exc, tb):
        frames = IRBuilder.current().frames
        if exc_type is not None:
            # Unwinding an error: drop this frame without finishing it.
            if self in frames:
                del frames[frames.index(self):]
            return False
        if not frames or frames[-1] is not self:
            raise ValueError("IR builder frames were closed out of order")
        frames.pop()
        self.exit_with_scope()
        return False

    def enter_with_scope(self) -> None:
        """Called when the frame is entered."""

    def exit_with_scope(self) -> None:
        """Called when the frame is left without an error: finish and hand over the result."""

    def add_callback(self, callback) -> None:
        """Run ``callback()`` when this frame exits (before its own finishing work)."""
        self.__dict__.setdefault("_callbacks", []).append(callback)

    def _run_callbacks(self) -> None:
        for callback in self.__dict__.get("_callbacks", ()):
            callback()


class IRBuilder:
    """Holds the frame stack and the final result; ``with IRBuilder() as ib:`` makes it current."""

    def __init__(self):
        self.frames: list[IRBuilderFrame] = []
        self.result: Any = None
        self._has_result = False

    def __enter__(self):
        _builder_stack().append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        stack = _builder_stack()
        if stack and stack[-1] is self:
            stack.pop()
        return False

    @staticmethod
    def current() -> IRBuilder:
        """The innermost active builder."""
        stack = _builder_stack()
        if not stack:
            raise ValueError("No IRBuilder is active: use `with IRBuilder() as ib:` first")
        return stack[-1]

    @staticmethod
    def is_in_scope() -> bool:
        """Whether some builder is active."""
        return bool(_builder_stack())

    def set_result(self, value: Any) -> None:
        """Record the outermost frame's product (once: a script defines one top-level object)."""
        if self._has_result:
            raise ValueError(
                "The IR builder already has a result: a script may define only one top-level "
                "function or module"
            )
        self.result = value
        self._has_result = True

    def get(self) -> Any:
        """The built IR; an error if the outermost frame has not finished."""
        if self.frames:
            raise ValueError(
                f"The IR builder is not finished: {len(self.frames)} frame(s) still open "
                f"(innermost: {type(self.frames[-1]).__name__})"
            )
        if not self._has_result:
            raise ValueError("The IR builder has no result: nothing was built")
        return self.result

    def find_frame(self, frame_type, default=None):
        """The innermost open frame of ``frame_type``."""
        for frame in reversed(self.frames):
            if isinstance(frame, frame_type):
                return frame
        return default

    @staticmethod
    def name(name: str, value: Any) -> Any:
        """Give ``value`` (a variable) the name ``name``; returns the named value."""
        # Variables are immutable nodes, but their name is not part of their identity: naming
        # one right after it is created (as TVM's builder does) is safe.
        from tvm.ffi.node import Node, set_field

        if isinstance(value, Node):
            for field_name in ("name_hint", "name"):
                if field_name in value._field_names:
                    set_field(value, field_name, name)
                    break
        return value

    @staticmethod
    def name_many(names, values) -> list:
        """:meth:`name` over pairs."""
        return [IRBuilder.name(n, v) for n, v in zip(names, values)]
