"""tvm.runtime.enabled: which target kinds can be built and run in this process."""

import shutil

import tvm
from tvm.runtime import device_api


def test_cpu_llvm_and_c():
    assert tvm.runtime.enabled("cpu")
    assert tvm.runtime.enabled("llvm")  # llvmlite is a dependency
    assert tvm.runtime.enabled("llvm -mtriple=aarch64-linux-gnu")  # only the kind counts
    has_cc = any(shutil.which(c) for c in ("cc", "gcc", "clang"))
    assert tvm.runtime.enabled("c") == has_cc


def test_device_kinds_follow_the_device_api_table():
    assert tvm.runtime.enabled("cuda") == device_api.has_device_api(2)
    assert tvm.runtime.enabled("gpu") == tvm.runtime.enabled("cuda")
    assert not tvm.runtime.enabled("metal")  # no backend registers a Metal device API
    assert not tvm.runtime.enabled("no_such_kind")
