"""``tvm.testing.parameter``, ``parameters`` and ``fixture``: pytest fixtures as TVM declares them.

``parameters`` needs the plugin ``tvm.testing.plugin`` (list it in ``conftest.py``:
``pytest_plugins = ["tvm.testing.plugin"]``), which parametrizes each group together instead
of as a cross product.
"""

from __future__ import annotations

import copy
import functools
import itertools
import os

__all__ = ["fixture", "parameter", "parameters"]

_GROUP_COUNTER = itertools.count()


def parameter(*values, ids=None, by_dict=None):
    """A fixture that takes each of ``values`` in turn; assign it to a module-level name.

    Examples
    --------
    >>> import tvm.testing
    >>> dtype = tvm.testing.parameter("float32", "float16")
    >>> # def test_add(dtype): ...  runs twice
    """
    import pytest

    if by_dict is not None:
        if values or ids is not None:
            raise ValueError("parameter: by_dict excludes positional values and ids")
        values, ids = tuple(by_dict.values()), tuple(by_dict.keys())
    if not values:
        raise ValueError("parameter needs at least one value")

    def as_fixture(request):
        return request.param

    return pytest.fixture(params=list(values), ids=ids)(as_fixture)


def parameters(*value_sets, ids=None):
    """Fixtures that take the tuples of ``value_sets`` together (not as a cross product).

    Examples
    --------
    >>> import tvm.testing
    >>> shape, dtype = tvm.testing.parameters(((2, 3), "float32"), ((4,), "int8"))
    """
    import pytest

    if not value_sets:
        raise ValueError("parameters needs at least one value set")
    width = len(value_sets[0])
    if any(len(v) != width for v in value_sets):
        raise ValueError("parameters: every value set must have the same length")
    group = next(_GROUP_COUNTER)
    fixtures = []
    for index in range(width):

        def as_fixture(request):
            return request.param

        # Read by tvm.testing.plugin.pytest_generate_tests.
        as_fixture._tvm_param_group = (group, index, value_sets, ids)
        fixtures.append(pytest.fixture(as_fixture))
    return tuple(fixtures)


def fixture(func=None, *, cache_return_value=False):
    """A pytest fixture; ``cache_return_value=True`` computes it once per parameter set.

    A cached value is deep-copied for each test so tests cannot disturb each other. Setting
    ``TVM_TEST_DISABLE_CACHE=1`` turns the cache off.
    """
    import pytest

    def wrap(f):
        if not cache_return_value or os.environ.get("TVM_TEST_DISABLE_CACHE"):
            return pytest.fixture(f)
        cache = {}

        @functools.wraps(f)
        def cached(*args, **kwargs):
            key = repr((args, sorted(kwargs.items())))
            if key not in cache:
                cache[key] = f(*args, **kwargs)
            return copy.deepcopy(cache[key])

        return pytest.fixture(cached)

    return wrap(func) if func is not None else wrap
