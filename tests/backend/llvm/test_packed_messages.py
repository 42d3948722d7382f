"""Packed-wrapper error messages composed by the check helpers from the wrapper's pieces.

A wrapper passes one signature string, the parameter names, the argument indices and the
expected dtype/device texts; the helpers own the formats. These tests pin every message of a
5-argument function, names and signatures containing '%', and the strings left in kernel IR.
"""

import re

import numpy as np
import pytest
from llvmlite import ir

from tvm.backend.llvm import build_module, packed_checks
from tvm.backend.llvm.packed_api import ScalarParam, TensorParam, emit_packed_function
from tvm.runtime.module import find_linker, load_module
from tvm.testing.dlpack import fake_dlpack_tensor

FIVE = [
    TensorParam("X", "float32", (2, 3)),  # static extents: checked by the head helper
    TensorParam("Y", "int32", ("n", 4)),  # symbolic and static extents: inline checks
    ScalarParam("alpha", "float32"),
    TensorParam("Z", "float64", (None, "n"), compact=False),
    TensorParam("W", "int8", (4,), alignment=8),
]
SIG5 = (
    "five(X: Tensor([2, 3], float32), Y: Tensor([n, 4], int32), alpha: float32, "
    "Z: Tensor([?, n], float64), W: Tensor([4], int8))"
)
PCT = [
    TensorParam("A%s", "float32", ("n%d", 2)),
    TensorParam("B%%", "int64", ("n%d",)),
    ScalarParam("k%lld", "int32"),
    TensorParam("C%n", None, (3,), device_type=None),
]
SIG_PCT = (
    "pct(A%s: Tensor([n%d, 2], float32), B%%: Tensor([n%d], int64), k%lld: int32, "
    "C%n: Tensor([3], any))"
)


def _module(*specs):
    module = ir.Module("messages")
    for name, params in specs:
        emit_packed_function(module, name, params, lambda builder, args: None)
    return module


@pytest.fixture(scope="module")
def lib():
    return build_module(_module(("five", FIVE), ("pct", PCT)))


_ALIGNED = np.zeros(64, "int8")
_OFFSET = (-_ALIGNED.ctypes.data) % 8


def _five_args():
    return [
        np.zeros((2, 3), "float32"),
        np.zeros((5, 4), "int32"),
        1.5,
        np.zeros((7, 5), "float64"),
        _ALIGNED[_OFFSET : _OFFSET + 4],
    ]


def _at(index, sig=SIG5):
    return f" on argument #{index} when calling:\n  `{sig}`,\n  "


def _call(f, args):
    """The (kind, message) of a failing call."""
    with pytest.raises((TypeError, ValueError)) as err:
        f(*args)
    return type(err.value), str(err.value)


def _strided(array):
    """``array`` viewed with every second element of its last dimension (not compact)."""
    wide = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    return wide[..., ::2]


# (argument index, replacement, kind, message text before " on argument", text after it)
FIVE_CASES = [
    (0, 7, TypeError, "Mismatched type", "expected Tensor, got int"),
    (0, np.zeros((2, 3, 1), "float32"), ValueError, "Mismatched X.ndim", "expected 2, got 3"),
    (0, np.zeros((2, 3), "int64"), TypeError, "Mismatched X.dtype",
     "expected float32, got int64"),
    (0, np.zeros((2, 4), "float32"), ValueError, "Invalid X.shape[1]", "expected 3, got 4"),
    (0, _strided(np.zeros((2, 3), "float32")), ValueError, "Mismatched X.strides",
     "expected to be compact array, got strides[0] = 6 where 3 is compact"),
    (1, None, TypeError, "Mismatched type", "expected Tensor, got None"),
    (1, np.zeros(5, "int32"), ValueError, "Mismatched Y.ndim", "expected 2, got 1"),
    (1, np.zeros((5, 4), "bool"), TypeError, "Mismatched Y.dtype", "expected int32, got bool"),
    (1, np.zeros((5, 3), "int32"), ValueError, "Invalid Y.shape[1]", "expected 4, got 3"),
    (1, _strided(np.zeros((5, 4), "int32")), ValueError, "Mismatched Y.strides",
     "expected to be compact array, got strides[0] = 8 where 4 is compact"),
    (2, "s", TypeError, "Mismatched type", "expected float32 (float or int), got str"),
    (3, 2.5, TypeError, "Mismatched type", "expected Tensor, got float"),
    (3, np.zeros(5, "float64"), ValueError, "Mismatched Z.ndim", "expected 2, got 1"),
    (3, np.zeros((7, 5), "float32"), TypeError, "Mismatched Z.dtype",
     "expected float64, got float32"),
    (3, np.zeros((7, 6), "float64"), ValueError, "Mismatched Z.shape[1]",
     "expected to match Y.shape[0] (n = 5), got 6"),
    (4, True, TypeError, "Mismatched type", "expected Tensor, got bool"),
    (4, np.zeros((4, 1), "int8"), ValueError, "Mismatched W.ndim", "expected 1, got 2"),
    (4, np.zeros(4, "uint8"), TypeError, "Mismatched W.dtype", "expected int8, got uint8"),
    (4, np.zeros(5, "int8"), ValueError, "Invalid W.shape[0]", "expected 4, got 5"),
    (4, _ALIGNED[_OFFSET + 1 : _OFFSET + 9 : 2], ValueError, "Mismatched W.strides",
     "expected to be compact array, got strides[0] = 2 where 1 is compact"),
    (4, _ALIGNED[_OFFSET + 3 : _OFFSET + 7], ValueError, "Misaligned Tensor data",
     "expected data alignment=8 byte, got address % 8 = 3"),
]


@pytest.mark.parametrize("case", FIVE_CASES, ids=lambda c: f"{c[0]}-{c[3]}")
def test_five_argument_messages_name_each_argument(lib, case):
    index, value, kind, what, detail = case
    args = _five_args()
    lib["five"](*args)
    args[index] = value
    assert _call(lib["five"], args) == (kind, what + _at(index) + detail)


def test_five_argument_count_message(lib):
    for args in ([], _five_args()[:4], [*_five_args(), 1]):
        assert _call(lib["five"], args) == (
            TypeError, f"Expected 5 arguments when calling:\n  `{SIG5}`,\n  got {len(args)}"
        )


def _pct_args():
    return [np.zeros((4, 2), "float32"), np.zeros(4, "int64"), 3, np.zeros(3, "float32")]


PCT_CASES = [
    (0, 1, TypeError, "Mismatched type", "expected Tensor, got int"),
    (0, np.zeros(4, "float32"), ValueError, "Mismatched A%s.ndim", "expected 2, got 1"),
    (0, np.zeros((4, 2), "float16"), TypeError, "Mismatched A%s.dtype",
     "expected float32, got float16"),
    (0, np.zeros((4, 3), "float32"), ValueError, "Invalid A%s.shape[1]", "expected 2, got 3"),
    (1, np.zeros(5, "int64"), ValueError, "Mismatched B%%.shape[0]",
     "expected to match A%s.shape[0] (n%d = 4), got 5"),
    (1, np.zeros(4, "int32"), TypeError, "Mismatched B%%.dtype", "expected int64, got int32"),
    (1, _strided(np.zeros(4, "int64")), ValueError, "Mismatched B%%.strides",
     "expected to be compact array, got strides[0] = 2 where 1 is compact"),
    (2, None, TypeError, "Mismatched type", "expected int32 (int or bool), got None"),
    (3, np.zeros(4, "int8"), ValueError, "Invalid C%n.shape[0]", "expected 3, got 4"),
    (3, np.zeros((3, 1), "int8"), ValueError, "Mismatched C%n.ndim", "expected 1, got 2"),
]


@pytest.mark.parametrize("case", PCT_CASES, ids=lambda c: f"{c[0]}-{c[3]}")
def test_percent_in_names_and_signature_comes_out_literally(lib, case):
    index, value, kind, what, detail = case
    args = _pct_args()
    lib["pct"](*args)
    args[index] = value
    assert _call(lib["pct"], args) == (kind, what + _at(index, SIG_PCT) + detail)


def test_percent_in_the_argument_count_message(lib):
    assert _call(lib["pct"], [1]) == (
        TypeError, f"Expected 4 arguments when calling:\n  `{SIG_PCT}`,\n  got 1"
    )


def test_expected_device_texts():
    a = np.zeros(2, "float32")
    for device_type, shown in ((2, "cuda"), (5, "device_type=5")):
        f = build_module(_module(("dev", [TensorParam("G", "float32", (2,),
                                                      device_type=device_type)])))["dev"]
        assert _call(f, [a]) == (
            ValueError,
            "Mismatched G.device" + _at(0, "dev(G: Tensor([2], float32))")
            + f"expected {shown}, got cpu (device_type=1)",
        )


def _null_data_tensor(extents):
    """A float32 CPU ``tvm_ffi.Tensor`` of shape ``extents`` whose data pointer is NULL."""
    return fake_dlpack_tensor(None, extents)


@pytest.mark.parametrize("shape", [(4,), ("n",)], ids=["static", "symbolic"])
def test_null_data_pointer_with_static_and_symbolic_extents(shape):
    # Static extents: the head helper runs the data pointer check; symbolic: the tail helper.
    f = build_module(_module(("nd", [TensorParam("A", "float32", shape)])))["nd"]
    sig = f"nd(A: Tensor([{shape[0]}], float32))"
    assert _call(f, [_null_data_tensor([4])]) == (
        ValueError,
        "Invalid A.data" + _at(0, sig)
        + "expected a non-NULL data pointer for a non-empty tensor, got NULL",
    )
    empty = build_module(_module(("ne", [TensorParam("A", "float32", (0,))])))["ne"]
    empty(_null_data_tensor([0]))  # an empty tensor may have no data


def _strings(text: str) -> list:
    """The texts of the ``__pytvm_str_`` globals of LLVM IR ``text``."""
    found = re.findall(r'^@"__pytvm_str_\w+" = private constant \[\d+ x i8\] c"(.*)"$',
                       text, flags=re.MULTILINE)
    return [re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)[:-1]
            for s in found]


def test_wrapper_ir_has_one_signature_and_no_per_argument_formats():
    params = [TensorParam(name, "float32", (784, 256)) for name in ("A", "B", "C")]
    sig = "f3(A: Tensor([784, 256], float32), B: Tensor([784, 256], float32), " \
          "C: Tensor([784, 256], float32))"
    text = str(_module(("f3", params)))
    strings = _strings(text)
    # The signature, the parameter names, the expected dtype and device, and the argument
    # count check's kind and format: nothing per argument repeats the signature.
    assert sorted(strings) == sorted([
        sig, "A", "B", "C", "float32", "cpu", "TypeError",
        "Expected 3 arguments when calling:\n  `%s`,\n  got %lld",
    ])
    assert text.count("f3(A: ") == 1
    # Static extents: one helper call per argument (it runs the layout checks too).
    assert text.count('call ptr @"__pytvm_tensor_head"(') == 3
    assert "__pytvm_tensor_tail" not in text
    # A second wrapper with the same parameters adds its signature only.
    more = _strings(str(_module(("f3", params), ("g3", params))))
    assert sorted(more) == sorted([*strings, sig.replace("f3(", "g3(")])


def test_symbolic_extents_share_the_signature_too():
    params = [TensorParam("A", "float32", ("n", 4)), TensorParam("B", "float32", ("n",)),
              ScalarParam("s", "int32")]
    text = str(_module(("sym", params)))
    sig = "sym(A: Tensor([n, 4], float32), B: Tensor([n], float32), s: int32)"
    assert text.count(sig) == 1
    # Inline extent checks come between the two helper calls of each tensor argument.
    assert text.count('call i32 @"__pytvm_tensor_tail"(') == 2
    for string in _strings(text):
        if "when calling" in string:  # the inline checks' formats take the signature as %s
            assert "`%s`" in string and "sym(" not in string


def test_formats_are_defined_once_in_the_runtime_module():
    runtime = packed_checks.checks_ir()
    kernel = str(_module(("one", [TensorParam("A", "float32", (2,))])))
    for fmt in (packed_checks.FMT_TYPE, packed_checks.FMT_NULL, packed_checks.FMT_NDIM,
                packed_checks.FMT_DTYPE, packed_checks.FMT_DTYPE_VECTOR,
                packed_checks.FMT_DEVICE, packed_checks.FMT_EXTENT, packed_checks.FMT_STRIDES,
                packed_checks.FMT_DATA, packed_checks.FMT_ALIGN):
        assert _strings(runtime).count(fmt) == 1
        assert fmt not in _strings(kernel)


def test_exported_library_composes_the_messages(tmp_path):
    if find_linker() is None:
        pytest.skip("no C compiler/linker on this machine")
    path = str(tmp_path / "pct.so")
    build_module(_module(("pct", PCT))).export_library(path)
    f = load_module(path)["pct"]
    args = _pct_args()
    f(*args)
    args[1] = np.zeros(5, "int64")
    assert _call(f, args) == (
        ValueError,
        "Mismatched B%%.shape[0]" + _at(1, SIG_PCT)
        + "expected to match A%s.shape[0] (n%d = 4), got 5",
    )
    args = _pct_args()
    args[0] = np.zeros((4, 2), "int8")
    assert _call(f, args)[1].endswith("expected float32, got int8")
