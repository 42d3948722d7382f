"""tvm.support.tar: flat tar archives, extraction and unpacking .tar entries of a file list."""

import os
import tarfile

import pytest

from tvm.support import tar, utils


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def test_tar_then_untar_round_trip():
    temp = utils.tempdir()
    os.makedirs(temp.relpath("sub"))
    a = _write(temp.relpath("a.o"), "alpha")
    b = _write(temp.relpath("sub/b.o"), "beta")
    tar.tar(temp.relpath("lib.tar"), [a, b])
    with tarfile.open(temp.relpath("lib.tar")) as archive:
        assert sorted(archive.getnames()) == ["a.o", "b.o"]  # flat: base names only
    tar.untar(temp.relpath("lib.tar"), temp.relpath("out"))
    with open(temp.relpath("out/b.o")) as f:
        assert f.read() == "beta"


def test_tar_rejects_duplicate_base_names_and_missing_files():
    temp = utils.tempdir()
    os.makedirs(temp.relpath("x"))
    a = _write(temp.relpath("a.o"), "1")
    a2 = _write(temp.relpath("x/a.o"), "2")
    with pytest.raises(ValueError, match="duplicate file name 'a.o'"):
        tar.tar(temp.relpath("t.tar"), [a, a2])
    with pytest.raises(FileNotFoundError, match="nope.o"):
        tar.tar(temp.relpath("t.tar"), [temp.relpath("nope.o")])


def test_normalize_file_list_unpacks_archives_in_place():
    temp = utils.tempdir()
    first = _write(temp.relpath("first.o"), "f")
    inner = [_write(temp.relpath(n), n) for n in ("k2.o", "k1.o")]
    tar.tar(temp.relpath("kernels.tar"), inner)
    last = _write(temp.relpath("last.o"), "l")
    work = utils.tempdir()
    files = tar.normalize_file_list_by_unpacking_tars(
        work, [first, temp.relpath("kernels.tar"), last])
    assert files[0] == first and files[-1] == last
    assert [os.path.basename(f) for f in files[1:3]] == ["k1.o", "k2.o"]
    for f in files[1:3]:
        assert f.startswith(work.temp_dir)
        with open(f) as fh:
            assert fh.read() == os.path.basename(f)


def test_untar_refuses_members_outside_the_directory():
    temp = utils.tempdir()
    evil = _write(temp.relpath("evil.txt"), "x")
    with tarfile.open(temp.relpath("evil.tar"), "w") as archive:
        archive.add(evil, arcname="../escaped.txt")
    with pytest.raises(tarfile.TarError):
        tar.untar(temp.relpath("evil.tar"), temp.relpath("out"))
    assert not os.path.exists(temp.relpath("escaped.txt"))
