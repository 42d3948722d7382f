"""TVMBackendAllocWorkspace / TVMBackendFreeWorkspace for generated code (JIT and libraries)."""

import numpy as np
import pytest

from tvm.backend.llvm import build_module, workspace
from tvm.backend.llvm.target_machine import parse_ir
from tvm.backend.llvm.testing import workspace_module
from tvm.runtime.module import find_linker, load_module


@pytest.fixture(scope="module")
def ws_fn():
    return build_module(workspace_module("ws"))["ws"]


@pytest.mark.parametrize("n", [1, 17, 100_000])
def test_workspace_round_trip_is_aligned(ws_fn, n):
    x = np.arange(n, dtype="float32")
    y = np.zeros_like(x)
    ws_fn(x, y, 0, 1)
    np.testing.assert_array_equal(y, 2 * x)  # a misaligned pointer would add address % 64


def test_zero_byte_workspace(ws_fn):
    empty = np.zeros(0, "float32")
    ws_fn(empty, empty, 0, 1)


def test_allocation_failure_raises_memory_error(ws_fn):
    x = np.zeros(4, "float32")
    with pytest.raises(MemoryError, match="cannot allocate the workspace"):
        ws_fn(x, x, 1 << 62, 1)


def test_non_cpu_workspace_is_refused(ws_fn):
    x = np.zeros(4, "float32")
    with pytest.raises(ValueError, match="only CPU workspaces are provided"):
        ws_fn(x, x, 0, 2)


@pytest.mark.skipif(find_linker() is None, reason="no linker")
def test_workspace_in_exported_library(tmp_path):
    mod = build_module(workspace_module("ws_lib"))
    work = tmp_path / "work"
    loaded = load_module(mod.export_library(str(tmp_path / "ws.so"), workspace_dir=str(work)))
    objects = sorted(p.name for p in work.rglob("*.o"))
    assert objects == ["pytvm_runtime_workspace.o", "ws_lib_module.o"]
    x = np.arange(10, dtype="float32")
    y = np.zeros_like(x)
    loaded["ws_lib"](x, y, 0, 1)
    np.testing.assert_array_equal(y, 2 * x)
    with pytest.raises(MemoryError):
        loaded["ws_lib"](x, y, 1 << 62, 1)


def test_hidden_ir_parses():
    text = workspace.workspace_ir(hidden=True)
    parse_ir(text, "ws_hidden")
    assert "define hidden ptr @TVMBackendAllocWorkspace" in text
