"""An uncaught ``DiagnosticError`` shows its message (issue 22: only the backtrace note was
printed). Each case runs a script in a child process, as a user would."""

import os
import subprocess
import sys
import textwrap

_UNDEFINED = """
    from tvm.script import tirx as T

    @T.prim_func
    def f(a: T.Buffer((4,), "float32")):
        for i in range(4):
            a[i] = undefined_name + 1
"""

_NOT_PYTHON = """
    import tvm.script

    tvm.script.from_source("@T.prim_func\\ndef f(:\\n    pass\\n")
"""


def _run(tmp_path, source: str, **env):
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    child_env = {k: v for k, v in os.environ.items()
                 if k not in ("PYTEST_CURRENT_TEST", "TVM_BACKTRACE")}
    child_env.update(env)
    return subprocess.run([sys.executable, str(script)], capture_output=True, env=child_env,
                          encoding="utf-8", errors="replace", timeout=300, check=False)


def test_uncaught_diagnostic_prints_message_and_location(tmp_path):
    done = _run(tmp_path, _UNDEFINED)
    assert done.returncode == 1
    assert "DiagnosticError: error: Undefined variable: undefined_name" in done.stderr
    assert "user_script.py:7" in done.stderr  # the location, with the source line underlined
    assert "a[i] = undefined_name + 1" in done.stderr
    assert "TVM_BACKTRACE=1" in done.stdout
    assert "Traceback" not in done.stderr


def test_uncaught_diagnostic_syntax_error_prints_message(tmp_path):
    # DiagnosticSyntaxError is a subclass: it gets the same short report.
    done = _run(tmp_path, _NOT_PYTHON)
    assert done.returncode == 1
    assert "DiagnosticSyntaxError" in done.stderr
    assert "Traceback" not in done.stderr
    assert "TVM_BACKTRACE=1" in done.stdout


def test_backtrace_on_request(tmp_path):
    done = _run(tmp_path, _UNDEFINED, TVM_BACKTRACE="1")
    assert done.returncode == 1
    assert "Traceback" in done.stderr
    assert "Undefined variable: undefined_name" in done.stderr
