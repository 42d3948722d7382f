"""Issue 22, defect 4: the on-disk LLVM cache verifies its files and guards its directory."""

import os
import stat
import threading
import warnings

import numpy as np
import pytest

from tvm.backend.llvm import build_module, disk_cache, jit
from tvm.backend.llvm.target_machine import TargetOptions
from tvm.backend.llvm.testing import elementwise_add_module
from tvm.runtime.module import find_linker, load_module


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(tmp_path / "cache"))
    jit.clear_cache()
    return tmp_path / "cache" / "llvm"


def _key(ir_module):
    return jit.cache_key(str(ir_module), TargetOptions())


def _check_add(mod, name):
    a = np.arange(40, dtype="float32")
    c = np.zeros_like(a)
    mod[name](a, a, c)
    np.testing.assert_array_equal(c, 2 * a)


def test_changed_ll_is_recompiled_and_replaced(cache_dir, tmp_path):
    # Before: the changed .ll was served, and export_library built the library from it.
    ir_module = elementwise_add_module("cache_edit")
    build_module(ir_module)
    ll_path = cache_dir / f"{_key(ir_module)}.ll"
    original = ll_path.read_text()
    assert "fadd" in original
    ll_path.write_text(original.replace("fadd", "fsub"))
    jit.clear_cache()
    before = jit.cache_info()
    mod = build_module(ir_module)
    after = jit.cache_info()
    assert after["disk_hits"] == before["disk_hits"]  # not served from the changed entry
    assert after["compiled"] == before["compiled"] + 1
    assert "fsub" not in mod.inspect_source("ll")
    assert ll_path.read_text() == original  # the entry was replaced
    _check_add(mod, "cache_edit")
    if find_linker() is not None:
        lib = load_module(mod.export_library(str(tmp_path / "edit.so")))
        _check_add(lib, "cache_edit")


def test_damaged_ll_is_recompiled(cache_dir):
    ir_module = elementwise_add_module("cache_garbage")
    build_module(ir_module)
    ll_path = cache_dir / f"{_key(ir_module)}.ll"
    ll_path.write_bytes(b"\xff\xfe not llvm at all")
    jit.clear_cache()
    mod = build_module(ir_module)  # before: a ValueError about invalid IR, no word of a cache
    _check_add(mod, "cache_garbage")
    assert b"not llvm" not in ll_path.read_bytes()


def test_fifo_and_device_link_are_misses_and_replaced(cache_dir):
    ir_module = elementwise_add_module("cache_fifo")
    build_module(ir_module)
    key = _key(ir_module)
    obj_path, ll_path = cache_dir / f"{key}.obj", cache_dir / f"{key}.ll"
    obj_path.unlink()
    os.mkfifo(obj_path)
    ll_path.unlink()
    ll_path.symlink_to("/dev/zero")
    result = []
    reader = threading.Thread(target=lambda: result.append(disk_cache.load(key)), daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "load() blocked on a FIFO"
    assert result == [None]
    jit.clear_cache()
    _check_add(build_module(ir_module), "cache_fifo")
    assert stat.S_ISREG(os.lstat(obj_path).st_mode) and stat.S_ISREG(os.lstat(ll_path).st_mode)
    assert disk_cache.load(key) is not None


def test_xdg_cache_home_is_honoured(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTVM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert disk_cache.cache_dir() == str(tmp_path / "xdg" / "pytvm" / "llvm")
    jit.clear_cache()
    ir_module = elementwise_add_module("cache_xdg")
    build_module(ir_module)
    directory = tmp_path / "xdg" / "pytvm" / "llvm"
    assert (directory / f"{_key(ir_module)}.obj").is_file()
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # invalid per XDG: ignored
    assert disk_cache.cache_dir() == os.path.join(os.path.expanduser("~"), ".cache", "pytvm",
                                                  "llvm")


def test_directory_writable_by_others_is_refused_with_a_warning(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    (shared / "llvm").mkdir(parents=True)
    os.chmod(shared / "llvm", 0o777)
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(shared))
    jit.clear_cache()
    with pytest.warns(RuntimeWarning, match="writable by group or others"):
        assert disk_cache.cache_dir() is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per directory
        mod = build_module(elementwise_add_module("cache_shared"))
    _check_add(mod, "cache_shared")
    assert list((shared / "llvm").iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="making a directory another user owns needs root")
def test_directory_owned_by_another_user_is_refused(tmp_path, monkeypatch):
    other = tmp_path / "other"
    (other / "llvm").mkdir(parents=True, mode=0o700)
    os.chown(other / "llvm", 12345, 12345)
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(other))
    with pytest.warns(RuntimeWarning, match="owned by another user"):
        assert disk_cache.cache_dir() is None


def test_size_limit_evicts_least_recently_used(cache_dir, monkeypatch):
    monkeypatch.setenv("PYTVM_LLVM_CACHE_MAX_MB", str(100_000 / (1024 * 1024)))  # 100 kB
    payload = b"x" * 20_000
    for i in range(4):
        assert disk_cache.store(f"entry{i}", "ir", payload)
        os.utime(cache_dir / f"entry{i}.obj", (1000 + i, 1000 + i))
    assert disk_cache.load("entry0") is not None  # used: now the most recent
    for i in range(4, 7):
        assert disk_cache.store(f"entry{i}", "ir", payload)
    present = {p.stem for p in cache_dir.glob("*.obj")}
    total = sum(p.stat().st_size for p in cache_dir.iterdir())
    assert total <= 100_000
    assert "entry0" in present and "entry6" in present
    assert "entry1" not in present and "entry2" not in present
    assert {p.stem for p in cache_dir.glob("*.ll")} == present  # .ll goes with its .obj
