"""``tvm.support.tar``: pack and unpack the tar archives ``export_library`` may produce.

``tar(output, files)`` stores each file under its base name at the top of the archive (file
names must therefore differ); ``untar(tar_file, directory)`` extracts one;
``normalize_file_list_by_unpacking_tars(temp, file_list)`` replaces each ``.tar`` in a list of
files by the files it holds. Python's :mod:`tarfile` does the work (no ``tar`` program needed).
"""

from __future__ import annotations

import os
import tarfile

__all__ = ["normalize_file_list_by_unpacking_tars", "tar", "untar"]


def tar(output, files) -> None:
    """Create the uncompressed tar archive ``output`` holding ``files`` under their base names.

    Parameters
    ----------
    output : str or PathLike
        The archive to write.
    files : str, PathLike or list of them
        The files to store.

    Raises
    ------
    ValueError
        When two files have the same base name (the archive is flat).
    FileNotFoundError
        When a file does not exist.
    """
    files = [os.fspath(files)] if isinstance(files, (str, os.PathLike)) else list(files)
    names: dict[str, str] = {}
    for path in files:
        path = os.fspath(path)
        base = os.path.basename(path)
        if base in names:
            raise ValueError(
                f"tvm.support.tar: duplicate file name {base!r} ({names[base]} and {path}); "
                "the archive stores files under their base names"
            )
        if not os.path.isfile(path):
            raise FileNotFoundError(f"tvm.support.tar: no such file: {path}")
        names[base] = path
    with tarfile.open(os.fspath(output), "w") as archive:
        for base, path in names.items():
            archive.add(path, arcname=base)


def untar(tar_file, directory) -> None:
    """Extract the archive ``tar_file`` into ``directory`` (created when missing).

    Members that would land outside ``directory`` (absolute paths, ``..``, links pointing out)
    are refused (``tarfile``'s ``data`` filter).
    """
    os.makedirs(os.fspath(directory), exist_ok=True)
    with tarfile.open(os.fspath(tar_file), "r:*") as archive:
        archive.extractall(os.fspath(directory), filter="data")


def normalize_file_list_by_unpacking_tars(temp, file_list) -> list:
    """``file_list`` with every ``.tar`` replaced by the files it holds.

    Parameters
    ----------
    temp : tvm.support.utils.TempDirectory
        Where the archives are unpacked (``temp.relpath(...)``), one fresh folder each.
    file_list : list of str
        Files, some of them ``.tar`` archives.

    Returns
    -------
    list of str
        The other files unchanged, in order, with each archive's files (sorted) in its place.
    """
    result = []
    for index, path in enumerate(file_list):
        path = os.fspath(path)
        if not path.endswith(".tar"):
            result.append(path)
            continue
        folder = temp.relpath(f"tar{index}")
        untar(path, folder)
        for root, _dirs, names in sorted(os.walk(folder)):
            result.extend(os.path.join(root, name) for name in sorted(names))
    return result
