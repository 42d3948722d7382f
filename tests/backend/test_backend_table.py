"""The backend table of ``tvm.backend``: Backend, register_backend, get_backend, find_backend."""

import pytest

import tvm
from tvm import te
from tvm.backend import Backend, find_backend, get_backend, register_backend, registered_kinds
from tvm.target import Target
from tvm.tirx.transform.lower_intrin import lower_intrin


@pytest.fixture
def clean_table():
    """Drop what a test registers (the table is process-wide)."""
    before = dict(tvm.backend._BACKENDS)
    yield
    tvm.backend._BACKENDS.clear()
    tvm.backend._BACKENDS.update(before)


def test_llvm_backend_entry():
    llvm = get_backend("llvm")
    assert llvm.name == "llvm" and llvm.host and llvm.device_type == 1
    assert llvm.device_api is None and llvm.default_tir_pipeline == "default"
    assert callable(llvm.codegen) and callable(llvm.codegen_parts)
    assert "tirx.exp" in llvm.intrin_rules and "tirx.tanh" in llvm.intrin_rules
    # A Target (any options) finds the same entry as its kind name.
    assert get_backend(Target("llvm -mcpu=skylake")) is llvm
    assert find_backend("llvm") is llvm
    assert "llvm" in registered_kinds()


def test_kind_without_backend():
    # cuda: a device backend (tests/backend/cuda/test_compile_cuda.py); rocm: no package;
    # metal: a package with script namespaces only, no code generator.
    cuda = get_backend("cuda")
    assert cuda.host is False and cuda.device_type == 2 and "cuda" in registered_kinds()
    with pytest.raises(ValueError, match=r"target kind 'rocm' has no backend \(there is no "
                                         r"package tvm.backend.rocm\)"):
        get_backend(Target("rocm"))
    assert find_backend("rocm") is None
    with pytest.raises(ValueError, match=r"target kind 'metal' has no backend \(its package "
                                         r"tvm.backend.metal registers none\)"):
        get_backend(Target("metal"))
    assert find_backend("metal") is None
    # c: the host C target (tests/backend/c/test_c_host.py).
    c = get_backend("c")
    assert c.host is True and c.device_type == 1 and "c" in registered_kinds()
    with pytest.raises(TypeError, match="expected a target kind name or a tvm.target.Target"):
        get_backend(3)


def test_backend_fields_are_checked():
    with pytest.raises(TypeError, match="codegen must be callable"):
        Backend(name="test", codegen=None)
    with pytest.raises(TypeError, match="intrin_rules must be a Mapping"):
        Backend(name="test", codegen=lambda m, t: None, intrin_rules=[("tirx.exp", abs)])
    with pytest.raises(TypeError, match="must be a target kind name"):
        Backend(name="", codegen=lambda m, t: None)
    with pytest.raises(TypeError, match="expects a tvm.backend.Backend, got dict"):
        register_backend({"name": "test"})


def test_register_twice_needs_override(clean_table):
    first = register_backend(Backend(name="test", codegen=lambda m, t: None))
    assert get_backend("test") is first
    with pytest.raises(ValueError, match="target kind 'test' already has a backend"):
        register_backend(Backend(name="test", codegen=lambda m, t: None))
    second = register_backend(Backend(name="test", codegen=lambda m, t: None), override=True)
    assert get_backend(Target("test")) is second


def _exp_func(target=None):
    A = te.placeholder((4,), "float32", name="A")
    B = te.compute((4,), lambda i: te.exp(A[i]), name="B")
    func = te.create_prim_func([A, B])
    return func if target is None else func.with_attr("target", target)


def test_lower_intrin_takes_the_rules_of_the_functions_kind(clean_table):
    # The function's target kind picks the backend whose rules apply.
    def exp_rule(call):
        return tvm.tirx.call_pure_extern(call.dtype, "test_exp", *call.args)

    register_backend(Backend(name="test", codegen=lambda m, t: None,
                             intrin_rules={"tirx.exp": exp_rule}))
    text = lower_intrin(_exp_func(Target("test"))).script()
    assert 'T.call_pure_extern("float32", "test_exp"' in text
    # Without a target attribute: the host kind (llvm) rules.
    text = lower_intrin(_exp_func()).script()
    assert 'T.call_llvm_pure_intrin("float32", "llvm.exp"' in text


def test_lower_intrin_for_a_kind_without_backend_keeps_the_call():
    text = lower_intrin(_exp_func(Target("metal"))).script()
    assert "T.exp(" in text and "llvm.exp" not in text


def test_lower_intrin_of_the_c_kind_calls_libm():
    text = lower_intrin(_exp_func(Target("c"))).script()
    assert 'T.call_pure_extern("float32", "expf"' in text


def test_a_backend_package_that_fails_to_import_reports_its_error(tmp_path, monkeypatch):
    # An out-of-tree tvm.backend.<kind> whose own import fails is not "no package".
    pkg = tmp_path / "brokenkind"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.setattr(tvm.backend, "__path__", [*tvm.backend.__path__, str(tmp_path)])
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        find_backend("brokenkind")
    assert "brokenkind" not in tvm.backend._NO_PACKAGE
