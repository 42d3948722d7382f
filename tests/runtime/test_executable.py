"""``tvm.runtime.Executable``: what ``tvm.compile`` returns for PrimFuncs (Apache TVM 0.27)."""

import numpy as np
import pytest

import tvm
from tvm import te


def _double():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    return te.create_prim_func([A, B]).with_attr("global_symbol", "double")


def test_compile_returns_an_executable_around_the_module():
    ex = tvm.compile(_double())
    assert isinstance(ex, tvm.runtime.Executable)
    assert isinstance(ex.mod, tvm.runtime.Module)
    assert ex.jit() is ex.mod
    # tvm.tirx.build gives the module itself, as in 0.27.
    assert isinstance(tvm.tirx.build(_double()), tvm.runtime.Module)


def test_functions_by_name_and_the_entry_call():
    ex = tvm.compile(_double())
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    ex["double"](a, b)
    np.testing.assert_allclose(b, a * 2)
    c = np.zeros(8, "float32")
    ex(a, c)  # the only function is the entry
    np.testing.assert_allclose(c, a * 2)
    with pytest.raises(AttributeError, match="has no function 'nope'"):
        ex["nope"]


def test_module_attributes_read_through_and_export(tmp_path):
    ex = tvm.compile(_double())
    assert ex.kind == ex.mod.kind
    assert "double" in ex.inspect_source()
    path = tmp_path / "double.so"
    ex.export_library(str(path))
    loaded = tvm.runtime.load_module(str(path))
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    loaded["double"](a, b)
    np.testing.assert_allclose(b, a * 2)
    with pytest.raises(AttributeError):
        ex.no_such_attribute  # noqa: B018
