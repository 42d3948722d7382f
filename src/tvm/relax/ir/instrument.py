"""``WellFormedInstrument``: check ``relax.analysis.well_formed`` around every pass.

The project's test suite installs it for every test (``tests/conftest.py``), so that a pass
producing malformed IR fails the test that ran it.
"""

from __future__ import annotations

from ...ir.instrument import pass_instrument
from ..analysis.well_formed import well_formed

__all__ = ["WellFormedInstrument"]


@pass_instrument
class WellFormedInstrument:
    """Assert that the module is well-formed before (optionally) and after every pass.

    Passes named ``Normalize``, ``NormalizeGlobalVar`` and ``ResolveGlobals`` are not checked:
    their job is to repair IR that is not yet in normal form. On a failure the module is
    printed first (named ``Before<Pass>`` / ``After<Pass>``) and an ``AssertionError`` naming
    the pass and the violated rule is raised.

    Parameters
    ----------
    check_ty : bool
        Also check the rules that need types (see ``relax.analysis.well_formed``).
    validate_before_transform : bool
        Check each pass's input too, not only its output.
    """

    def __init__(self, check_ty: bool = True, validate_before_transform: bool = True):
        self.skip_pass_name = ["Normalize", "NormalizeGlobalVar", "ResolveGlobals"]
        self.check_ty = check_ty
        self.validate_before_transform = validate_before_transform

    def run_before_pass(self, mod, info):
        """Check ``mod`` before a pass runs (when ``validate_before_transform``; the
        normalization passes are skipped).

        Raises
        ------
        AssertionError
            When the module is not well-formed (it is printed first).
        """
        if self.validate_before_transform and info.name not in self.skip_pass_name:
            self._check(mod, f"Before{info.name}", f"before pass {info.name}")

    def run_after_pass(self, mod, info):
        """Check the module a pass returned (the normalization passes are skipped).

        Raises
        ------
        AssertionError
            When the module is not well-formed (it is printed first).
        """
        if info.name not in self.skip_pass_name:
            self._check(mod, f"After{info.name}", f"after pass {info.name}")

    def _check(self, mod, name, when):
        try:
            well_formed(mod, self.check_ty)
        except (TypeError, ValueError) as err:
            mod.show(name=name)
            raise AssertionError(f"The module is not well-formed {when}: {err}") from err
