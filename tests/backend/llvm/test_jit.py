"""JIT compilation service: caching, source inspection, target options, invalid IR."""

import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from tvm.backend.llvm import build_module, jit
from tvm.backend.llvm.target_machine import DEFAULT_OPT_LEVEL, TargetOptions
from tvm.backend.llvm.testing import elementwise_add_module, noop_module
from tvm.runtime.module import Module


def test_build_returns_llvm_runtime_module():
    mod = build_module(elementwise_add_module("jit_add"))
    assert isinstance(mod, Module)
    assert mod.kind == "llvm" and mod.type_key == "llvm"
    assert mod.function_names() == ["jit_add"]
    assert mod.entry_name == "jit_add"  # the only function
    a = np.arange(5, dtype="float32")
    c = np.zeros(5, "float32")
    mod(a, a, c)  # calls the entry function
    np.testing.assert_array_equal(c, 2 * a)


def test_cache_hit_returns_the_same_module():
    ir_module = elementwise_add_module("cached_add")
    first = build_module(ir_module)
    before = jit.cache_info()
    second = build_module(ir_module)
    assert second is first
    assert second["cached_add"] is first["cached_add"]
    after = jit.cache_info()
    assert after["compiled"] == before["compiled"]
    assert after["cache_hits"] == before["cache_hits"] + 1
    # The same IR given as text hits the same entry.
    assert build_module(str(ir_module)) is first


def test_cache_distinguishes_targets_and_can_be_bypassed():
    ir_module = elementwise_add_module("cached_add2")
    first = build_module(ir_module)
    assert build_module(ir_module, target="llvm -opt-level=3") is not first
    assert build_module(ir_module, target=f"llvm -opt-level={DEFAULT_OPT_LEVEL}") is first
    assert build_module(ir_module, use_cache=False) is not first
    jit.clear_cache()
    assert jit.cache_info()["size"] == 0
    assert build_module(ir_module) is not first
    a = np.ones(3, "float32")
    c = np.zeros(3, "float32")
    first["cached_add2"](a, a, c)  # modules handed out before clear_cache keep working
    assert (c == 2).all()


def test_pipeline_knobs_are_part_of_the_cache_key(monkeypatch):
    from tvm.backend.llvm import target_machine

    options = TargetOptions()
    base = options.key()
    monkeypatch.setattr(target_machine, "SLP_VECTORIZATION", not target_machine.SLP_VECTORIZATION)
    slp = options.key()
    monkeypatch.setattr(target_machine, "LOOP_UNROLLING", not target_machine.LOOP_UNROLLING)
    assert len({base, slp, options.key()}) == 3


def test_inspect_source():
    mod = build_module(elementwise_add_module("src_add"))
    ll = mod.inspect_source("ll")
    assert ll == mod.inspect_source("") == mod.get_source()
    assert "define" in ll and "@__tvm_ffi_src_add(" in ll
    assert "target triple" in ll
    asm = mod.inspect_source("asm")
    assert asm == mod.inspect_source("s")
    assert "__tvm_ffi_src_add:" in asm
    with pytest.raises(ValueError, match="Do not know how to get source code with format: 'cu'"):
        mod.inspect_source("cu")


def test_o3_vectorizes_the_loop():
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("checks x86 vector registers")
    asm = build_module(elementwise_add_module("vec_add")).inspect_source("asm")
    assert "addps" in asm  # packed single-precision adds: the loop was vectorized


def test_write_to_file(tmp_path):
    mod = build_module(noop_module("noop_write", 1))
    assert mod.get_write_formats() == ["ll", "s", "o"]
    mod.write_to_file(str(tmp_path / "m.ll"))
    mod.write_to_file(str(tmp_path / "m.s"))
    mod.write_to_file(str(tmp_path / "m.bin"), "o")
    assert (tmp_path / "m.ll").read_text().startswith("; ModuleID")
    assert "__tvm_ffi_noop_write" in (tmp_path / "m.s").read_text()
    assert (tmp_path / "m.bin").read_bytes()[:4] in (b"\x7fELF", b"\xcf\xfa\xed\xfe")
    with pytest.raises(ValueError, match="cannot write an llvm module in format 'cu'"):
        mod.write_to_file(str(tmp_path / "m.cu"))


def test_invalid_ir_names_the_module():
    with pytest.raises(ValueError, match="invalid LLVM IR in module 'broken'"):
        build_module("define i32 @f() { ret i64 0 }", name="broken")


def test_empty_module():
    mod = build_module("", name="empty")
    assert mod.function_names() == []
    with pytest.raises(AttributeError, match="Module has no function 'main'"):
        _ = mod.entry_func


def test_unknown_tvm_ffi_symbol():
    text = (
        "declare void @TVMFFINoSuchThing()\n"
        "define void @g() {\n  call void @TVMFFINoSuchThing()\n  ret void\n}\n"
    )
    with pytest.raises(
        ValueError, match="calls 'TVMFFINoSuchThing', which libtvm_ffi does not export"
    ):
        build_module(text, name="missing_sym")


def test_target_options_parsing():
    assert TargetOptions.from_target(None) == TargetOptions()
    opts = TargetOptions.from_target("llvm -mcpu=skylake -mattr=+avx2,+fma -opt-level=2")
    assert (opts.cpu, opts.features, opts.opt_level) == ("skylake", "+avx2,+fma", 2)
    opts = TargetOptions.from_target({"kind": "llvm", "mcpu": "znver3", "mattr": ["+avx2"]})
    assert (opts.cpu, opts.features) == ("znver3", "+avx2")

    class FakeTarget:
        def __init__(self):
            self.attrs = {"mcpu": "cascadelake", "mtriple": "x86_64-unknown-linux-gnu"}

    opts = TargetOptions.from_target(FakeTarget())
    assert (opts.cpu, opts.triple) == ("cascadelake", "x86_64-unknown-linux-gnu")
    # Strings and dicts are parsed by tvm.target.Target (its messages).
    with pytest.raises(ValueError, match="cannot compile for target kind 'cuda'"):
        TargetOptions.from_target("cuda")
    with pytest.raises(ValueError, match="Unknown option '-bogus' for target kind 'llvm'"):
        TargetOptions.from_target("llvm -bogus=1")
    with pytest.raises(ValueError, match="expected '-option=value', got 'mcpu'"):
        TargetOptions.from_target("llvm mcpu")
    with pytest.raises(ValueError, match="cannot compile for target kind 'cuda'"):
        TargetOptions.from_target({"kind": "cuda"})


def test_generic_cpu_target_runs():
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86-64 baseline CPU")
    mod = build_module(elementwise_add_module("generic_add"), target="llvm -mcpu=x86-64")
    asm = mod.inspect_source("asm")
    assert "addps" in asm and "%ymm" not in asm and "%zmm" not in asm  # SSE only: -mcpu applied
    a = np.arange(100, dtype="float32")
    c = np.zeros_like(a)
    mod["generic_add"](a, a, c)
    np.testing.assert_array_equal(c, 2 * a)


def test_import_tvm_does_not_import_llvmlite():
    code = (
        "import sys, tvm, tvm.runtime.module, tvm.backend.llvm; "
        "assert 'llvmlite' not in sys.modules, 'llvmlite imported'"
    )
    env = dict(os.environ, TVM_DEVICE_BACKEND_AUTOLOAD="0")
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)


def test_time_evaluator_on_compiled_kernel():
    import tvm_ffi

    mod = build_module(elementwise_add_module("timed_add"))
    a = np.ones(1000, "float32")
    c = np.zeros_like(a)
    timer = mod.time_evaluator("timed_add", tvm_ffi.device("cpu"), number=5, repeat=2)
    result = timer(a, a, c)
    assert len(result.results) == 2 and result.median > 0
    assert (c == 2).all()
    ta = tvm_ffi.from_dlpack(a)
    assert timer(ta, ta, tvm_ffi.from_dlpack(c)).mean > 0


def test_tvm_target_objects():
    target_mod = pytest.importorskip("tvm.target")
    opts = TargetOptions.from_target(target_mod.Target("llvm -mcpu=skylake -mattr=+avx2"))
    assert (opts.cpu, opts.features) == ("skylake", "+avx2")
    host = TargetOptions.from_target(target_mod.Target("llvm"))
    assert host.cpu == ""
    # A target naming the host triple still gets the host's CPU features.
    assert host.resolved_features() == TargetOptions().resolved_features()


def test_cross_compiled_module_is_not_loaded():
    # Another architecture: IR and assembly, no JIT (tests/backend/llvm/test_cross_compile.py).
    other = "riscv64-unknown-linux-gnu" if platform.machine() != "riscv64" else "x86_64-pc-linux"
    mod = build_module(elementwise_add_module("cross_add"), target=f"llvm -mtriple={other}")
    assert mod.function_names() == ["cross_add"]
    with pytest.raises(RuntimeError, match="cannot run on this host"):
        mod["cross_add"]


def test_default_opt_level_and_override():
    # A target without -opt-level gets DEFAULT_OPT_LEVEL; -opt-level=N overrides it, and the
    # compiled code is the same function either way.
    assert TargetOptions().opt_level == DEFAULT_OPT_LEVEL
    assert TargetOptions.from_target("llvm").opt_level == DEFAULT_OPT_LEVEL
    assert TargetOptions.from_target("llvm -opt-level=3").opt_level == 3
    a = np.arange(40, dtype="float32")
    for target in ("llvm", "llvm -opt-level=3", "llvm -opt-level=0"):
        mod = build_module(elementwise_add_module("opt_add"), target=target)
        out = np.zeros_like(a)
        mod["opt_add"](a, a, out)
        np.testing.assert_array_equal(out, a + a)
