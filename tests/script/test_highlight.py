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
