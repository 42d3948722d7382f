"""``tvm.support.progress``: tqdm bars and the delayed compile spinner draw on a terminal's
stderr only; pipes, logs and pytest's capture get nothing (no ``"\\r"``)."""

import io
import threading

import numpy as np
import pytest

pytest.importorskip("tqdm")

import tvm
from tvm import te
from tvm.support import progress


class FakeTerminal(io.StringIO):
    """A text stream that says it is a terminal and signals its first write."""

    def __init__(self):
        super().__init__()
        self.written = threading.Event()

    def isatty(self):
        return True

    def write(self, text):
        if text:
            self.written.set()
        return super().write(text)


def test_bar_is_none_off_a_terminal():
    assert progress.progress_bar(10, "epoch 1/1", stream=io.StringIO()) is None
    assert not progress.is_terminal(io.StringIO())


def test_bar_draws_on_a_terminal():
    stream = FakeTerminal()
    bar = progress.progress_bar(4, "epoch 1/2", unit="step", stream=stream)
    assert bar is not None
    for _ in range(4):
        bar.update(1)
    bar.set_postfix_str("loss 0.5")
    bar.close()
    text = stream.getvalue()
    assert "epoch 1/2" in text
    assert "4/4" in text


def test_spinner_silent_off_a_terminal():
    stream = io.StringIO()
    with progress.delayed_spinner("tvm.compile", delay=0, stream=stream):
        pass
    assert stream.getvalue() == ""


def test_spinner_shows_after_the_delay_on_a_terminal():
    stream = FakeTerminal()
    with progress.delayed_spinner("tvm.compile", delay=0, stream=stream):
        # The body outlasts the (zero) delay: wait until the spinner has drawn.
        assert stream.written.wait(30)
    assert "tvm.compile" in stream.getvalue()


def test_nested_spinner_shows_only_the_outer_one():
    stream = FakeTerminal()
    with progress.delayed_spinner("outer", delay=0, stream=stream):
        assert stream.written.wait(30)
        with progress.delayed_spinner("inner", delay=0, stream=stream):
            pass
    text = stream.getvalue()
    assert "outer" in text
    assert "inner" not in text


def _add_one():
    a = te.placeholder((4,), name="A")
    b = te.compute((4,), lambda i: a[i] + 1.0, name="B")
    return te.create_prim_func([a, b])


def test_compile_writes_nothing_into_a_pipe(monkeypatch, capsys):
    monkeypatch.setattr(progress, "SPINNER_DELAY", 0.0)
    tvm.driver.build_module.clear_cache()
    f = tvm.compile(_add_one())
    b = np.zeros(4, "float32")
    f["main"](np.arange(4, dtype="float32"), b)
    assert b.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert capsys.readouterr().err == ""


def test_compile_spinner_on_a_terminal(monkeypatch):
    stream = FakeTerminal()
    monkeypatch.setattr(progress, "SPINNER_DELAY", 0.0)
    monkeypatch.setattr(progress.sys, "stderr", stream)
    tvm.driver.build_module.clear_cache()
    started = threading.Event()
    real = tvm.driver.build_module.compile_module

    def slow_compile(*args, **kwargs):
        started.set()
        assert stream.written.wait(30)  # the spinner is up while the compile runs
        return real(*args, **kwargs)

    monkeypatch.setattr(tvm.driver.build_module, "compile_module", slow_compile)
    tvm.compile(_add_one())
    assert started.is_set()
    assert "tvm.compile" in stream.getvalue()
