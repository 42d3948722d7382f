"""Pass instruments: hooks the pass executors call around every pass.

This module holds only what the executors in ``tvm.ir.transform`` need to call instruments:
the :class:`PassInstrument` base class with its five hooks, and :func:`run_instrumented`, the
one place that invokes them. The user-facing decorators and printers of ``tvm.instrument``
(``pass_instrument``, ``PrintBeforeAll``, ``PassTimingInstrument``, ...) are added by the
errors/instruments work on top of this base.
"""

from __future__ import annotations

__all__ = ["PassInstrument", "run_instrumented"]


class PassInstrument:
    """Base class of pass instruments; every hook defaults to doing nothing.

    Hooks
    -----
    ``enter_pass_ctx()`` / ``exit_pass_ctx()``
        Called when a ``PassContext`` holding the instrument is entered / exited.
    ``should_run(mod, info) -> bool``
        Returning False skips the pass (its input module is returned unchanged).
    ``run_before_pass(mod, info)`` / ``run_after_pass(mod, info)``
        Called around each pass that runs.
    """

    def enter_pass_ctx(self):
        pass

    def exit_pass_ctx(self):
        pass

    def should_run(self, mod, info) -> bool:
        return True

    def run_before_pass(self, mod, info):
        pass

    def run_after_pass(self, mod, info):
        pass


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
