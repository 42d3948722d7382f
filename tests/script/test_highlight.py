"""``mod.show()`` colours TVMScript with Pygments on a terminal, plain text elsewhere."""

from __future__ import annotations

import io

import pytest

from tvm.script import highlight
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Mod:
    @R.function
    def main(x: R.Tensor((2,), "float32")):
        return x


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_pipe_gets_plain_text(capsys):
    Mod.show()
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert out == Mod.script() + "\n"


@pytest.mark.parametrize("style", [None, "light", "dark", "ansi", "monokai"])
def test_terminal_gets_colours(monkeypatch, style):
    pytest.importorskip("pygments")
    tty = _Tty()
    monkeypatch.setattr(highlight.sys, "stdout", tty)
    Mod.show(style=style)
    text = tty.getvalue()
    assert "\x1b[" in text
    # The colours wrap the same text.
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", text).rstrip("\n") == Mod.script()


def test_styles_differ_and_bad_style_is_an_error(monkeypatch):
    pytest.importorskip("pygments")
    outputs = {}
    for style in ("light", "dark"):
        tty = _Tty()
        monkeypatch.setattr(highlight.sys, "stdout", tty)
        Mod.show(style=style)
        outputs[style] = tty.getvalue()
    assert outputs["light"] != outputs["dark"]
    monkeypatch.setattr(highlight.sys, "stdout", _Tty())
    with pytest.raises(ValueError, match="unknown style 'no-such-style'; choose one of: .*dark"):
        Mod.show(style="no-such-style")


def test_format_runs_ruff_from_path(tmp_path, monkeypatch):
    import stat
    import sys

    from tvm.script.highlight import _format

    fake = tmp_path / "ruff"  # stands in for `ruff format -`: upper-cases stdin
    fake.write_text(f"#!{sys.executable}\nimport sys\nsys.stdout.write(sys.stdin.read().upper())\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _format("x = 1\n") == "X = 1\n"
    assert _format("x = 1\n", "ruff") == "X = 1\n"


def test_format_without_a_formatter_warns_and_keeps_the_text(tmp_path, monkeypatch):
    import sys

    import pytest

    from tvm.script.highlight import _format

    monkeypatch.setenv("PATH", str(tmp_path))  # no ruff
    monkeypatch.setitem(sys.modules, "black", None)  # no black
    with pytest.warns(UserWarning, match="black"):
        assert _format("x=1\n") == "x=1\n"
    with pytest.warns(UserWarning, match="ruff"):
        assert _format("x=1\n", "ruff") == "x=1\n"
    with pytest.raises(ValueError, match="formatter"):
        _format("x=1\n", "yapf")
