"""tvm.support.clang: locating clang and compiling C to LLVM IR text."""

import os
import stat

import pytest

from tvm.support import clang, utils


def _script(temp, name, body):
    path = temp.relpath(name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def test_find_clang_honours_tvm_clang_and_required(monkeypatch):
    temp = utils.tempdir()
    fake = _script(temp, "my-clang", "exit 0\n")
    monkeypatch.setenv("PATH", temp.temp_dir)
    monkeypatch.setenv("TVM_CLANG", fake)
    assert clang.find_clang() == [fake]
    monkeypatch.delenv("TVM_CLANG")
    assert clang.find_clang(required=False) == []
    with pytest.raises(RuntimeError, match="cannot find clang"):
        clang.find_clang()


def test_create_llvm_writes_code_inputs_and_passes_options():
    # A stand-in compiler that records its arguments and concatenates its inputs into -o.
    temp = utils.tempdir()
    fake = _script(temp, "fake-clang", (
        'out=""; prev=""; args="$*"\n'
        'for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
        'echo "; args: $args" > "$out"\n'
        'for a in "$@"; do case "$a" in *.cc|*.c) cat "$a" >> "$out";; esac; done\n'))
    src = temp.relpath("k.c")
    with open(src, "w") as f:
        f.write("int from_file;\n")
    text = clang.create_llvm(["int from_code;\n", src], options=["-O2"], cc=fake)
    assert "-S -emit-llvm" in text and "-O2" in text
    assert "int from_code;" in text and "int from_file;" in text
    out = temp.relpath("explicit.ll")
    text = clang.create_llvm(src, output=out, cc=fake)
    with open(out) as f:
        assert text == f.read()


def test_create_llvm_reports_compiler_failure():
    temp = utils.tempdir()
    bad = _script(temp, "bad-clang", 'echo "error: broken input" >&2; exit 1\n')
    with pytest.raises(RuntimeError, match="(?s)compilation failed.*broken input"):
        clang.create_llvm("int x;", cc=bad)


@pytest.mark.skipif(not clang.find_clang(required=False), reason="clang is not installed")
def test_create_llvm_with_real_clang():
    text = clang.create_llvm("int add1(int x) { return x + 1; }", options=["-O1"])
    assert "define" in text and "add1" in text
