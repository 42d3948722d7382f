"""Reverse-mode automatic differentiation of Relax functions (``relax.transform.Gradient``).

See ``docs/arch/autodiff.md``: the driver (:mod:`.pass_`), checkpointing
(:mod:`.checkpoint`), the reverse sweep (:mod:`.adjoint`) and the simplifier
(:mod:`.simplify`).
"""

from .forward import ForwardGradient
from .pass_ import Gradient, GradientError
from .simplify import GradientSimplifier

__all__ = ["ForwardGradient", "Gradient", "GradientError", "GradientSimplifier"]
