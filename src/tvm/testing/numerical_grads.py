"""``tvm.testing.check_numerical_grads``: compare gradients with central finite differences."""

from __future__ import annotations

import numpy as np

__all__ = ["GradientShapeError", "check_numerical_grads"]


def _call(function, values, names):
    if names is None:
        return function(*values)
    return function(**dict(zip(names, values)))


def _as_scalar(value) -> float:
    """The function's value summed to a float (TVM sums a non-scalar result)."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    return float(np.sum(np.asarray(value, dtype="float64")))


class GradientShapeError(ValueError, AssertionError):
    """A gradient whose shape differs from its input's: a ``ValueError`` that is also the
    ``AssertionError`` Apache TVM raises for it."""


def check_numerical_grads(
    function, input_values, grad_values, function_value=None, delta=1e-3, atol=1e-2, rtol=0.1
):
    """Check ``grad_values`` against finite-difference gradients of ``function``.

    Behaves as Apache TVM 0.27's helper. Each partial derivative is first estimated by a
    forward difference ``(f(x + delta e_j) - f(x)) / delta``; when that estimate does not
    match the given element (``|numeric - given| < atol + rtol * |numeric|``), a central
    difference is used, and if that still does not match, a five-point estimate (central
    differences with steps ``delta`` and ``delta / 2`` combined). ``f`` is ``function``
    summed to a scalar (a pytvm extra: TVM expects a scalar result).

    The check is on the whole gradient of each input, not per element: it fails when
    ``||numeric - given||_2 > atol * sqrt(n) + rtol * ||numeric||_2`` (``n`` elements).
    The elements that still differ are only listed in the message. For given inputs the
    result is deterministic; the norm criterion keeps single rounding-sensitive elements of
    random inputs (float32 cancellation near a kink) from failing a check whose gradient is
    right overall.

    Parameters
    ----------
    function : callable
        Takes the inputs positionally (``input_values`` a list) or by keyword (a dict) and
        returns a scalar (or an array-like value, which is summed).
    input_values : list or dict of numpy.ndarray
        The point where the gradient is checked. Float inputs keep their dtype (a float32
        function gets float32 inputs); others become float64.
    grad_values : list or dict of numpy.ndarray
        The gradients to check, one per input, in the same order or with the same keys.
    function_value : array-like, optional
        ``function(*input_values)``, if already known: the base of the forward differences.
    delta : float
        The finite-difference step.
    atol : float
        Absolute tolerance, multiplied by ``sqrt(n)`` for an input of ``n`` elements.
    rtol : float
        Relative tolerance (of the numerical gradient's norm).

    Raises
    ------
    AssertionError
        When a gradient differs too much: the input, the distance and the bound, and the
        first elements that differ.
    ValueError
        When a numerical gradient is not finite, or the inputs and gradients do not match in
        number or keys; a shape mismatch raises :class:`GradientShapeError` (both kinds).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([1.0, 2.0])
    >>> check_numerical_grads(lambda a: (a * a).sum(), [x], [2 * x])
    """
    names = None
    if isinstance(input_values, dict):
        if not isinstance(grad_values, dict) or set(grad_values) != set(input_values):
            raise ValueError("grad_values must be a dict with the same keys as input_values")
        names = list(input_values)
        inputs = [input_values[k] for k in names]
        grads = [grad_values[k] for k in names]
    else:
        inputs, grads = list(input_values), list(grad_values)
        if len(inputs) != len(grads):
            raise ValueError(
                f"{len(inputs)} input values but {len(grads)} gradient values were given"
            )
    inputs = [np.array(v.numpy() if hasattr(v, "numpy") else v) for v in inputs]
    inputs = [x if x.dtype.kind == "f" else x.astype("float64") for x in inputs]
    grads = [np.asarray(g.numpy() if hasattr(g, "numpy") else g, dtype="float64") for g in grads]
    labels = names or [str(i) for i in range(len(inputs))]
    for label, x, g in zip(labels, inputs, grads):
        if x.shape != g.shape:
            raise GradientShapeError(
                f"Gradient wrt '{label}' has unexpected shape {g.shape}, expected {x.shape}"
            )

    base = _as_scalar(function_value if function_value is not None
                      else _call(function, inputs, names))

    def forward(i, j, step):
        x = inputs[i]
        flat = x.reshape(-1)
        saved = flat[j]
        flat[j] = saved + step
        try:
            value = _as_scalar(_call(function, inputs, names))
        finally:
            flat[j] = saved
        return (value - base) / step

    for i, (label, given) in enumerate(zip(labels, grads)):
        size = int(np.prod(given.shape))
        flat_given = given.reshape(-1)
        numeric = np.zeros(size, dtype="float64")
        wrong = []

        def close(value, j, flat_given=flat_given):
            return abs(value - flat_given[j]) < atol + rtol * abs(value)

        for j in range(size):
            estimate = forward(i, j, delta)
            if not close(estimate, j):
                estimate = (forward(i, j, -delta) + estimate) / 2  # central difference
                if not close(estimate, j):
                    half = (forward(i, j, delta / 2) + forward(i, j, -delta / 2)) / 2
                    estimate = (4 * half - estimate) / 3  # five-point estimate
            if not close(estimate, j):
                wrong.append(tuple(int(k) for k in np.unravel_index(j, given.shape)))
            numeric[j] = estimate
        numeric = numeric.reshape(given.shape)
        dist = float(np.sqrt(np.sum((numeric - given) ** 2)))
        norm = float(np.sqrt(np.sum(numeric ** 2)))
        if not (np.isfinite(dist) and np.isfinite(norm)):
            raise ValueError(
                f"NaN or infinity detected during numerical gradient checking wrt '{label}'\n"
                f"analytical grad = {given}\n numerical grad = {numeric}"
            )
        bound = atol * np.sqrt(float(size)) + rtol * norm
        if dist > bound:
            percent = int(100 * len(wrong) / max(size, 1))
            raise AssertionError(
                f"Analytical and numerical grads wrt '{label}' differ too much\n"
                f"analytical grad = {given}\n numerical grad = {numeric}\n"
                f"{percent}% of elements differ, first 10 of wrong positions: {wrong[:10]}\n"
                f"distance {dist} > {atol}*sqrt({size}) + {rtol}*{norm} = {bound} "
                f"(delta={delta})"
            )
