"""``tvm.testing.check_numerical_grads``: compare gradients with central finite differences."""

from __future__ import annotations

import numpy as np

__all__ = ["check_numerical_grads"]


def _call(function, values, names):
    if names is None:
        return function(*values)
    return function(**dict(zip(names, values)))


def _as_scalar(value) -> float:
    """The function's value summed to a float (TVM sums a non-scalar result)."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    return float(np.sum(np.asarray(value, dtype="float64")))


def check_numerical_grads(
    function, input_values, grad_values, function_value=None, delta=1e-3, atol=1e-2, rtol=0.1
):
    """Check ``grad_values`` against central finite differences of ``function``.

    Each input element ``x_i`` is moved by ``+delta`` and ``-delta`` and the gradient is
    estimated as ``(f(x + delta e_i) - f(x - delta e_i)) / (2 delta)``, where ``f`` is
    ``function`` summed to a scalar. The check passes when, for every input,
    ``|numeric - given| <= atol + rtol * |numeric|`` holds elementwise.

    Parameters
    ----------
    function : callable
        Takes the inputs positionally (``input_values`` a list) or by keyword (a dict) and
        returns an array-like value.
    input_values : list or dict of numpy.ndarray
        The point where the gradient is checked (float arrays).
    grad_values : list or dict of numpy.ndarray
        The gradients to check, one per input, in the same order or with the same keys.
    function_value : array-like, optional
        ``function(*input_values)``, if already known; checked against a fresh call.
    delta : float
        The finite-difference step.
    atol, rtol : float
        The tolerances.

    Raises
    ------
    AssertionError
        Naming the input, the worst element, and both gradient values.
    ValueError
        When the inputs and gradients do not match in number, keys or shapes.

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
    # Copies in the inputs' own float dtypes (as TVM does: a float32 function gets float32
    # inputs); other inputs become float64 so that +-delta is representable.
    inputs = [np.array(v.numpy() if hasattr(v, "numpy") else v) for v in inputs]
    inputs = [x if x.dtype.kind == "f" else x.astype("float64") for x in inputs]
    grads = [np.asarray(g.numpy() if hasattr(g, "numpy") else g, dtype="float64") for g in grads]
    for i, (x, g) in enumerate(zip(inputs, grads)):
        if x.shape != g.shape:
            raise ValueError(f"input {i} has shape {x.shape} but its gradient has shape {g.shape}")

    if function_value is not None:
        fresh = _as_scalar(_call(function, inputs, names))
        expected = _as_scalar(function_value)
        if not np.isclose(fresh, expected, atol=atol, rtol=rtol):
            raise AssertionError(
                f"function_value {expected} differs from the function's value {fresh}"
            )

    for i, (x, given) in enumerate(zip(inputs, grads)):
        numeric = np.zeros(x.shape, dtype="float64")
        flat = x.reshape(-1)
        for j in range(flat.size):
            saved = flat[j]
            flat[j] = saved + delta
            up = _as_scalar(_call(function, inputs, names))
            flat[j] = saved - delta
            down = _as_scalar(_call(function, inputs, names))
            flat[j] = saved
            numeric.reshape(-1)[j] = (up - down) / (2 * delta)
        error = np.abs(numeric - given) - (atol + rtol * np.abs(numeric))
        if np.any(error > 0):
            worst = tuple(int(k) for k in np.unravel_index(int(np.argmax(error)), x.shape))
            label = names[i] if names else f"input {i}"
            raise AssertionError(
                f"Gradient check failed for {label} (shape {x.shape}) at index {worst}: "
                f"numerical {float(numeric[worst])} vs given {float(given[worst])} "
                f"(atol={atol}, rtol={rtol}, delta={delta}); "
                f"max abs difference {float(np.max(np.abs(numeric - given)))}"
            )
