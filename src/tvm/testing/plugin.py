"""pytest plugin for ``tvm.testing`` (``pytest_plugins = ["tvm.testing.plugin"]``).

Registers the ``gpu``/``cuda``/``llvm`` markers and parametrizes the fixture groups made by
:func:`tvm.testing.parameters` together.
"""

from __future__ import annotations


def pytest_configure(config):
    """Register the ``gpu``, ``cuda`` and ``llvm`` markers with pytest (hook)."""
    config.addinivalue_line("markers", "gpu: needs a GPU")
    config.addinivalue_line("markers", "cuda: needs CUDA")
    config.addinivalue_line("markers", "llvm: needs the LLVM backend")


def pytest_generate_tests(metafunc):
    """Parametrize the fixtures made together by :func:`tvm.testing.parameters` (hook).

    Fixtures of one group get their values from the same rows, so they vary together rather
    than as a cross product.
    """
    groups: dict[int, list] = {}
    fixture_info = metafunc.definition._fixtureinfo
    for name in metafunc.fixturenames:
        defs = fixture_info.name2fixturedefs.get(name)
        if not defs:
            continue
        group = getattr(defs[-1].func, "_tvm_param_group", None)
        if group is not None:
            groups.setdefault(group[0], []).append((group[1], name, group[2], group[3]))
    for members in groups.values():
        members.sort()
        names = [name for _, name, _, _ in members]
        value_sets, ids = members[0][2], members[0][3]
        rows = [tuple(values[i] for i, _, _, _ in members) for values in value_sets]
        if len(names) == 1:
            rows = [row[0] for row in rows]
        metafunc.parametrize(names, rows, indirect=True, ids=ids)
