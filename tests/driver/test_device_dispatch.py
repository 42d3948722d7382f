"""The driver's host/device dispatch through the backend table, with a fake device backend.

The kind ``ext_dev`` (a registered target kind without a backend) gets a recording device
Backend for the duration of a test: functions whose kind it is go to its codegen, and the
module it returns is imported into the host (llvm) module.
"""

import numpy as np
import pytest

import tvm
from tvm import te
from tvm.backend import Backend, register_backend
from tvm.runtime.module import Module
from tvm.target import Target


class _FakeDeviceModule:
    """A runtime module implementation (duck-typed protocol of tvm.runtime.Module)."""

    kind = "ext_dev"
    entry_name = "main"

    def __init__(self, names):
        self.names = names

    def get_function(self, name):
        return None

    def function_names(self):
        return list(self.names)

    def inspect_source(self, fmt=""):
        return "// fake device code for " + ", ".join(self.names)


@pytest.fixture
def fake_device():
    """A non-host backend for ``ext_dev`` recording what its codegen gets."""
    calls = []

    def codegen(mod, target):
        calls.append((mod, target))
        names = sorted(str(f.get_attr("global_symbol")) for f in mod.functions.values())
        return Module(_FakeDeviceModule(names))

    def exp_rule(call):
        return tvm.tirx.call_pure_extern(call.dtype, "fake_dev_exp", *call.args)

    before = dict(tvm.backend._BACKENDS)
    register_backend(Backend(name="ext_dev", codegen=codegen, device_type=12, host=False,
                             intrin_rules={"tirx.exp": exp_rule}))
    tvm.driver.clear_cache()
    yield calls
    tvm.backend._BACKENDS.clear()
    tvm.backend._BACKENDS.update(before)
    tvm.driver.clear_cache()


def _func(name, exp=False):
    A = te.placeholder((8,), "float32", name="A")
    B = te.compute((8,), lambda i: (te.exp(A[i]) if exp else A[i]) + 1.0, name="B")
    return te.create_prim_func([A, B]).with_attr("global_symbol", name)


def test_device_functions_go_to_their_backend_and_are_imported(fake_device):
    kernel = _func("kernel", exp=True).with_attr("target", Target("ext_dev"))
    mod = tvm.IRModule({"host_add": _func("host_add"), "kernel": kernel})
    lib = tvm.compile(mod, target="llvm")
    # The device backend got exactly the device function, lowered with its own rules.
    assert len(fake_device) == 1
    dev_mod, dev_target = fake_device[0]
    assert [gv.name_hint for gv in dev_mod.functions] == ["kernel"]
    assert dev_target.kind.name == "ext_dev"
    assert "fake_dev_exp" in dev_mod.script() and "llvm.exp" not in dev_mod.script()
    # The host module runs the host function and imports the device module.
    assert lib.kind == "llvm" and len(lib.imports) == 1
    assert lib.imports[0].kind == "ext_dev"
    assert lib.imports[0].inspect_source() == "// fake device code for kernel"
    assert lib.implements_function("host_add") and not lib.implements_function("kernel")
    a = np.arange(8, dtype="float32")
    b = np.zeros_like(a)
    lib["host_add"](a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_a_device_target_sends_unmarked_functions_to_the_device(fake_device):
    # With a device target and no host functions, the host module is empty (llvm, the
    # default host) and imports the device module.
    lib = tvm.compile(_func("only_kernel"), target="ext_dev")
    assert [gv.name_hint for gv in fake_device[0][0].functions] == ["only_kernel"]
    assert lib.kind == "llvm" and lib.function_names() == []
    assert lib.imports[0].function_names() == ["only_kernel"]


def test_compile_cache_is_keyed_by_the_normalised_target(fake_device):
    func = _func("cached")
    first = tvm.compile(func, target="llvm")
    # The same target written differently is one cache entry.
    assert tvm.compile(func, target=Target("llvm")) is first
    assert tvm.compile(func, target={"kind": "llvm"}) is first
    assert tvm.compile(func) is first
    assert tvm.compile(func, target="llvm -opt-level=3") is not first
