"""Testing utilities for Relax: the NumPy reference evaluator.

:func:`evaluate` (and :class:`ReferenceEvaluator`) run a Relax function of an IRModule on NumPy
arrays with no compilation; they are the numerics oracle for legalization, codegen and gradient
tests.
"""

from .evaluator import EVALUATOR_BUILTIN_OPS, EvaluationError, ReferenceEvaluator, evaluate

__all__ = ["EVALUATOR_BUILTIN_OPS", "EvaluationError", "ReferenceEvaluator", "evaluate"]
