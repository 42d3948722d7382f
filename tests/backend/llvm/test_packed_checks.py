"""The shared argument-check helpers of packed wrappers: one copy per module, same messages."""

import numpy as np
import pytest
from llvmlite import ir

from tvm.backend.llvm import build_module, packed_checks
from tvm.backend.llvm.packed_api import TensorParam, emit_packed_function
from tvm.runtime.module import find_linker, load_module


def _module(*specs):
    """A module with one no-op wrapper per ``(name, params)``."""
    module = ir.Module("checks")
    for name, params in specs:
        emit_packed_function(module, name, params, lambda builder, args: None)
    return module


def _message(f, *args, kind=ValueError):
    with pytest.raises(kind) as err:
        f(*args)
    return str(err.value)


def test_helpers_are_declared_in_kernels_and_defined_in_the_runtime_module():
    params = [TensorParam("A", "float32", (2, 3)), TensorParam("B", "int32", ("n",))]
    text = str(_module(("f", params), ("g", params)))
    for helper in ("__pytvm_tensor_head", "__pytvm_tensor_tail", "__pytvm_raise"):
        lines = [line for line in text.splitlines() if f'@"{helper}"(' in line]
        assert sum(line.startswith("declare") for line in lines) == 1
        assert not any(line.startswith("define") for line in lines)
    runtime = packed_checks.checks_ir()
    for helper in packed_checks.CHECK_SYMBOLS:
        assert sum(line.startswith("define") and f'@"{helper}"(' in line
                   for line in runtime.splitlines()) == 1
    addresses = packed_checks.register_symbols()
    assert set(addresses) == set(packed_checks.CHECK_SYMBOLS) and all(addresses.values())
    assert packed_checks.register_symbols() is addresses  # compiled once per process


def test_exported_library_carries_the_helpers(tmp_path):
    if find_linker() is None:
        pytest.skip("no C compiler/linker on this machine")
    lib = build_module(_module(("ex", [TensorParam("A", "float32", (2,))])))
    path = str(tmp_path / "ex.so")
    lib.export_library(path)
    loaded = load_module(path)
    # One self-contained object: the hidden helpers are linked into the kernel object.
    assert "__pytvm_tensor_head" in lib.inspect_source("asm")
    obj = str(tmp_path / "ex.o")
    lib.export_library(obj)
    loaded["ex"](np.zeros(2, "float32"))
    assert _message(loaded["ex"], np.zeros(3, "float32")).endswith("expected 2, got 3")


def test_static_extent_message_names_the_first_bad_dimension():
    f = build_module(_module(("s3", [TensorParam("A", "float32", (2, 3, 4))])))["s3"]
    f(np.zeros((2, 3, 4), "float32"))
    sig = "`s3(A: Tensor([2, 3, 4], float32))`"
    assert _message(f, np.zeros((2, 3, 5), "float32")) == (
        f"Invalid A.shape[2] on argument #0 when calling:\n  {sig},\n  expected 4, got 5"
    )
    # Two wrong extents: the lower dimension is reported, as the inline checks did.
    assert _message(f, np.zeros((2, 7, 5), "float32")).startswith("Invalid A.shape[1] ")


def test_static_and_any_extents_mixed():
    f = build_module(_module(("m", [TensorParam("T", "int8", (None, 2, None, 1))])))["m"]
    f(np.zeros((5, 2, 0, 1), "int8"))
    assert _message(f, np.zeros((5, 3, 1, 1), "int8")).endswith("expected 2, got 3")
    assert _message(f, np.zeros((5, 2, 1, 4), "int8")).startswith("Invalid T.shape[3] ")


def test_symbolic_and_static_extents_keep_dimension_order():
    params = [TensorParam("A", "float32", (3, "n")), TensorParam("B", "float32", ("n", 3))]
    f = build_module(_module(("sym", params)))["sym"]
    f(np.zeros((3, 4), "float32"), np.zeros((4, 3), "float32"))
    msg = _message(f, np.zeros((3, 4), "float32"), np.zeros((5, 2), "float32"))
    assert msg.startswith("Mismatched B.shape[0] ")  # dimension 0 before the static dim 1
    assert msg.endswith("expected to match A.shape[1] (n = 4), got 5")
    msg = _message(f, np.zeros((2, 4), "float32"), np.zeros((4, 3), "float32"))
    assert msg.startswith("Invalid A.shape[0] ") and msg.endswith("expected 3, got 2")


def test_percent_in_a_parameter_name_is_not_a_format():
    f = build_module(_module(("pct", [TensorParam("A%d", "float32", (2,))])))["pct"]
    msg = _message(f, np.zeros(3, "float32"))
    assert msg.startswith("Invalid A%d.shape[0] on argument #0") and msg.endswith("got 3")


def test_layout_data_and_alignment_after_the_extents():
    f = build_module(_module(("lay", [TensorParam("A", "float32", (4, 4))])))["lay"]
    strided = np.zeros((4, 8), "float32")[:, ::2]  # strides (8, 2): both dims are wrong
    assert _message(f, strided).endswith(
        "expected to be compact array, got strides[0] = 8 where 4 is compact"
    )
    column = np.zeros((4, 4, 2), "float32")[:, :, 0]  # strides (8, 2): dim 0 is the lowest bad
    assert "got strides[0] = 8 where 4 is compact" in _message(f, column)
    rows = np.zeros((8, 4), "float32")[::2]  # strides (8, 1): only dim 0 is wrong
    assert _message(f, rows).endswith("got strides[0] = 8 where 4 is compact")
    transposed = np.zeros((4, 4), "float32").T  # strides (1, 4)
    assert _message(f, transposed).endswith("got strides[0] = 1 where 4 is compact")
    # A wrong extent is reported before the layout.
    assert _message(f, np.zeros((4, 10), "float32")[:, ::2]).startswith("Invalid A.shape[1] ")
    aligned = build_module(_module(("al", [TensorParam("A", "uint8", (4,), alignment=8)])))["al"]
    buffer = np.zeros(16, "uint8")
    offset = (-buffer.ctypes.data) % 8
    aligned(buffer[offset : offset + 4])
    msg = _message(aligned, buffer[offset + 1 : offset + 5])
    assert msg.startswith("Misaligned Tensor data on argument #0") and msg.endswith("= 1")


def test_dtype_and_ndim_messages():
    f = build_module(_module(("dt", [TensorParam("A", "float32", (2,))])))["dt"]
    assert _message(f, np.zeros(2, "int64"), kind=TypeError).endswith(
        "expected float32, got int64"
    )
    assert _message(f, np.zeros((2, 1), "float32")).endswith("expected 1, got 2")
