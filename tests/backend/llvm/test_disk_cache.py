"""The on-disk compilation cache: a new process (here: a cleared memory cache) skips codegen."""

import os

import numpy as np
import pytest

from tvm.backend.llvm import build_module, disk_cache, jit, threadpool
from tvm.backend.llvm.target_machine import TargetOptions
from tvm.backend.llvm.testing import elementwise_add_module, thread_ids_module
from tvm.runtime.module import find_linker, load_module


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(tmp_path))
    jit.clear_cache()
    return tmp_path / "llvm"


def _entry_files(directory, ir_module):
    """The files of the entry of ``ir_module`` (the runtime's own modules may be there too)."""
    key = jit.cache_key(str(ir_module), TargetOptions())
    return sorted(p.suffix for p in directory.glob(f"{key}.*")) if directory.exists() else []


def test_second_build_loads_the_object(cache_dir):
    ir_module = elementwise_add_module("disk_add")
    first = build_module(ir_module)
    assert _entry_files(cache_dir, ir_module) == [".ll", ".obj"]
    jit.clear_cache()
    before = jit.cache_info()
    second = build_module(ir_module)
    after = jit.cache_info()
    assert second is not first
    assert after["disk_hits"] == before["disk_hits"] + 1
    assert after["compiled"] == before["compiled"]
    assert second.inspect_source("ll") == first.inspect_source("ll")
    assert second.function_names() == ["disk_add"]
    a = np.arange(33, dtype="float32")
    c = np.zeros_like(a)
    second["disk_add"](a, a, c)
    np.testing.assert_array_equal(c, 2 * a)
    with pytest.raises(ValueError, match=r"Mismatched B.shape\[0\]"):
        second["disk_add"](a, a[:3], c)


def test_cached_parallel_module_and_export(cache_dir, tmp_path):
    build_module(thread_ids_module("disk_ids"))
    jit.clear_cache()
    mod = build_module(thread_ids_module("disk_ids"))
    assert jit.cache_info()["disk_hits"] >= 1
    out = np.zeros(threadpool.num_threads(), "int64")
    mod["disk_ids"](out)
    assert (out != 0).all()
    if find_linker() is None:
        pytest.skip("no linker")
    loaded = load_module(mod.export_library(str(tmp_path / "ids.so")))
    out[:] = 0
    loaded["disk_ids"](out)
    assert (out != 0).all()


def test_damaged_object_is_compiled_again(cache_dir):
    ir_module = elementwise_add_module("disk_bad")
    build_module(ir_module)
    key = jit.cache_key(str(ir_module), TargetOptions())
    blob = (cache_dir / f"{key}.obj").read_bytes()
    (cache_dir / f"{key}.obj").write_bytes(blob[:-100] + b"damaged" * 10)
    jit.clear_cache()
    before = jit.cache_info()
    mod = build_module(ir_module)
    assert jit.cache_info()["compiled"] == before["compiled"] + 1
    a = np.ones(3, "float32")
    c = np.zeros_like(a)
    mod["disk_bad"](a, a, c)
    assert (c == 2).all()
    assert (cache_dir / f"{key}.obj").read_bytes() == blob  # the entry was rewritten


def test_partial_entry_is_a_miss(cache_dir):
    ir_module = elementwise_add_module("disk_partial")
    build_module(ir_module)
    key = jit.cache_key(str(ir_module), TargetOptions())
    os.unlink(cache_dir / f"{key}.ll")
    assert disk_cache.load(key) is None


def test_disabled(cache_dir, monkeypatch):
    monkeypatch.setenv("PYTVM_LLVM_DISK_CACHE", "0")
    assert disk_cache.cache_dir() is None
    build_module(elementwise_add_module("disk_off"))
    assert not cache_dir.exists()
    assert disk_cache.store("k", "ir", b"obj") is False


def test_unwritable_directory_is_ignored(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(blocker))
    jit.clear_cache()
    mod = build_module(elementwise_add_module("disk_unwritable"))
    assert disk_cache.store("k", "ir", b"obj") is False
    a = np.ones(2, "float32")
    c = np.zeros_like(a)
    mod["disk_unwritable"](a, a, c)
    assert (c == 2).all()


def test_use_cache_false_bypasses_disk(cache_dir):
    build_module(elementwise_add_module("disk_bypass"), use_cache=False)
    assert not cache_dir.exists()


_RUNTIME_LIKE_IR = """
define i64 @sum_to(i64 %n) {
entry:
  %acc = alloca i64
  store i64 0, ptr %acc
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%next, %loop]
  %old = load i64, ptr %acc
  %new = add i64 %old, %i
  store i64 %new, ptr %acc
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  %result = load i64, ptr %acc
  ret i64 %result
}
"""


def test_runtime_objects_use_the_light_pipeline(cache_dir):
    # The runtime's own modules get SROA/instcombine/simplifycfg, not O3: the alloca is
    # promoted to registers, the loop is kept (O3 would replace it by a closed form), and the
    # object is cached under a key of its own (an O3 build of the same text is another entry).
    import ctypes

    from tvm.backend.llvm.target_machine import compile_ir

    options = TargetOptions()
    light_ir, _ = compile_ir(_RUNTIME_LIKE_IR, "light", options, light=True)
    o3_ir, _ = compile_ir(_RUNTIME_LIKE_IR, "o3", options)
    assert "alloca" not in light_ir and "br i1" in light_ir
    assert "br i1" not in o3_ir.split("define")[1]  # the closed form
    addresses = disk_cache.jit_runtime_module(_RUNTIME_LIKE_IR, "light_test", ["sum_to"],
                                              export=[])
    sum_to = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(addresses["sum_to"])
    assert sum_to(10) == 45
    key = disk_cache.cache_key(_RUNTIME_LIKE_IR, options.key() + "|light")
    assert disk_cache.load(key) is not None
    assert disk_cache.load(disk_cache.cache_key(_RUNTIME_LIKE_IR, options.key())) is None
