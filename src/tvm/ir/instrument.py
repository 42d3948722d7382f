"""Pass instruments: hooks called around every pass; ``tvm.instrument`` is this module.

An instrument is given to a ``PassContext(instruments=[...])``. The context calls
``enter_pass_ctx``/``exit_pass_ctx`` when it is entered and exited, and every pass run inside
it (``Sequential`` included) goes through :func:`run_instrumented`, which calls
``should_run``, ``run_before_pass`` and ``run_after_pass``.

Examples
--------
>>> import tvm
>>> @tvm.instrument.pass_instrument
... class Names:
...     def __init__(self):
...         self.seen = []
...     def run_before_pass(self, mod, info):
...         self.seen.append(info.name)
>>> names = Names()
>>> identity = tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name="Identity")
>>> with tvm.transform.PassContext(instruments=[names]):
...     _ = tvm.transform.Sequential([identity])(tvm.IRModule())
>>> names.seen
['sequential', 'Identity']
"""

from __future__ import annotations

import inspect
import time

__all__ = [
    "DumpIR",
    "PassInstrument",
    "PassPrintingInstrument",
    "PassTimingInstrument",
    "PrintAfterAll",
    "PrintBeforeAll",
    "pass_instrument",
    "run_instrumented",
]

_HOOKS = ("enter_pass_ctx", "exit_pass_ctx", "should_run", "run_before_pass", "run_after_pass")


class PassInstrument:
    """Base class of pass instruments; every hook defaults to doing nothing.

    Hooks
    -----
    ``enter_pass_ctx()`` / ``exit_pass_ctx()``
        Called when a ``PassContext`` holding the instrument is entered / exited.
    ``should_run(mod, info) -> bool``
        Returning False skips the pass (its input module is returned unchanged, and the
        before/after hooks are not called for it).
    ``run_before_pass(mod, info)`` / ``run_after_pass(mod, info)``
        Called around each pass that runs; ``run_after_pass`` gets the pass's result.
    """

    def enter_pass_ctx(self):
        """Called when the ``PassContext`` holding this instrument is entered."""

    def exit_pass_ctx(self):
        """Called when the ``PassContext`` holding this instrument is exited."""

    def should_run(self, mod, info) -> bool:
        """Whether the pass described by ``info`` runs on ``mod`` (default: always)."""
        return True

    def run_before_pass(self, mod, info):
        """Called before a pass runs, with its input module."""

    def run_after_pass(self, mod, info):
        """Called after a pass ran, with its output module."""


def run_instrumented(ctx, info, mod, run):
    """Run ``run(mod)`` for the pass described by ``info``, calling ``ctx``'s instruments.

    Instruments see every pass, including each ``Sequential``; a pass that any instrument
    vetoes through ``should_run`` is skipped and ``mod`` comes back unchanged.
    """
    instruments = ctx.instruments
    if not instruments:
        return run(mod)
    for inst in instruments:
        if not inst.should_run(mod, info):
            return mod
    for inst in instruments:
        inst.run_before_pass(mod, info)
    result = run(mod)
    for inst in instruments:
        inst.run_after_pass(result, info)
    return result


def _wrap_class(pi_cls):
    """A ``PassInstrument`` subclass whose instances wrap instances of ``pi_cls``."""
    if issubclass(pi_cls, PassInstrument):
        return pi_cls  # already an instrument: the decorator changes nothing

    class PyPassInstrument(pi_cls, PassInstrument):
        pass

    # The hooks the user did not define come from PassInstrument (doing nothing); the MRO
    # puts the user's class first so its hooks and its __init__ win.
    PyPassInstrument.__name__ = pi_cls.__name__
    PyPassInstrument.__qualname__ = pi_cls.__qualname__
    PyPassInstrument.__doc__ = pi_cls.__doc__
    PyPassInstrument.__module__ = pi_cls.__module__
    return PyPassInstrument


def pass_instrument(pi_cls=None):
    """Class decorator: make a class with any of the hook methods a :class:`PassInstrument`.

    The class defines some of ``enter_pass_ctx``, ``exit_pass_ctx``, ``should_run``,
    ``run_before_pass`` and ``run_after_pass``; the others do nothing. Usable as
    ``@pass_instrument`` or ``@pass_instrument()``.
    """

    def create(cls):
        if not inspect.isclass(cls):
            raise TypeError(f"pass_instrument expects a class, got {type(cls).__name__}")
        for hook in _HOOKS:
            method = getattr(cls, hook, None)
            if method is not None and not callable(method):
                raise TypeError(f"{cls.__name__}.{hook} must be a method")
        return _wrap_class(cls)

    if pi_cls is not None:
        return create(pi_cls)
    return create


@pass_instrument
class PrintBeforeAll:
    """Print the name of every pass and its input module (as TVMScript) before it runs."""

    def run_before_pass(self, mod, info):
        """Print the pass's name and the module it is about to transform."""
        print(f"Before Running Pass: {info}")
        print(mod)


@pass_instrument
class PrintAfterAll:
    """Print the name of every pass and its output module (as TVMScript) after it runs."""

    def run_after_pass(self, mod, info):
        """Print the pass's name and the module it produced."""
        print(f"After Running Pass: {info}")
        print(mod)


@pass_instrument
class PassPrintingInstrument:
    """Print the module before the passes named in ``print_before_pass_names`` and after those
    in ``print_after_pass_names``."""

    def __init__(self, print_before_pass_names, print_after_pass_names):
        self.print_before_pass_names = list(print_before_pass_names or ())
        self.print_after_pass_names = list(print_after_pass_names or ())

    def run_before_pass(self, mod, info):
        """Print the module before the passes named in ``print_before_pass_names``."""
        if info.name in self.print_before_pass_names:
            print(f"Print IR before: {info.name}\n{mod}\n\n")

    def run_after_pass(self, mod, info):
        """Print the module after the passes named in ``print_after_pass_names``."""
        if info.name in self.print_after_pass_names:
            print(f"Print IR after: {info.name}\n{mod}\n\n")


@pass_instrument
class DumpIR:
    """Write the module after every pass to ``dump_dir/NNN_<pass name>.py`` (TVMScript).

    ``NNN`` counts finished passes from 000, so a ``Sequential`` is numbered after the
    passes it ran. ``refresh=True`` empties ``dump_dir`` first.
    """

    def __init__(self, dump_dir, refresh: bool = False):
        # Lazy: file-system modules are only needed by this instrument (import tvm stays fast).
        import shutil
        from pathlib import Path

        self.dump_dir = Path(dump_dir)
        self.counter = 0
        if refresh and self.dump_dir.exists():
            shutil.rmtree(self.dump_dir)

    def run_after_pass(self, mod, info):
        """Write the module after each pass to a numbered file in ``dump_dir``."""
        self.dump_dir.mkdir(parents=True, exist_ok=True)
        # Pass names may hold characters that are not valid in file names.
        name = "".join(c if c.isalnum() or c in "_.-" else "_" for c in info.name)
        target = self.dump_dir / f"{self.counter:03d}_{name}.py"
        self.counter += 1
        target.write_text(mod.script())


class _Timing:
    """One timed pass run: its name, duration and the passes it ran inside."""

    __slots__ = ("children", "name", "seconds", "start")

    def __init__(self, name):
        self.name = name
        self.start = time.perf_counter()
        self.seconds = 0.0
        self.children = []


@pass_instrument
class PassTimingInstrument:
    """Time every pass run inside the ``PassContext``; :meth:`render` reports the profile.

    The profile is cleared when the context is entered and when it is exited, so call
    :meth:`render` inside the ``with`` block.
    """

    def __init__(self):
        self._roots = []
        self._stack = []

    def enter_pass_ctx(self):
        """Start a new timing record when the ``PassContext`` is entered."""
        self._roots, self._stack = [], []

    def exit_pass_ctx(self):
        """Drop the timing record when the ``PassContext`` is left."""
        self._roots, self._stack = [], []

    def run_before_pass(self, mod, info):
        """Start timing a pass (nested under the pass that runs it)."""
        timing = _Timing(info.name)
        (self._stack[-1].children if self._stack else self._roots).append(timing)
        self._stack.append(timing)

    def run_after_pass(self, mod, info):
        """Stop timing the innermost running pass."""
        if self._stack:
            timing = self._stack.pop()
            timing.seconds = time.perf_counter() - timing.start

    def render(self) -> str:
        """The profile, one line per pass run, nested passes indented by a tab.

        Each line reads ``<name>: <total>us [<self>us] (<% of all>; <% of parent>)``, where
        *self* excludes the passes run inside it. Empty when nothing was profiled.
        """
        all_seconds = sum(t.seconds for t in self._roots)
        lines = []
        stack = [(t, 0, all_seconds) for t in reversed(self._roots)]
        while stack:
            timing, depth, parent_seconds = stack.pop()
            inner = sum(c.seconds for c in timing.children)
            lines.append(
                "\t" * depth
                + f"{timing.name}: {_micros(timing.seconds)}us "
                + f"[{_micros(timing.seconds - inner)}us] "
                + f"({_percent(timing.seconds, all_seconds)}; "
                + f"{_percent(timing.seconds, parent_seconds)})\n"
            )
            stack.extend((c, depth + 1, timing.seconds) for c in reversed(timing.children))
        return "".join(lines)


def _micros(seconds: float) -> int:
    return int(seconds * 1e6)


def _percent(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.2f}%" if whole > 0 else "0.00%"
