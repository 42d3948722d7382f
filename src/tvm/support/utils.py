"""``tvm.support.utils``: temporary directories that clean up after themselves."""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile

__all__ = ["TempDirectory", "tempdir"]


class TempDirectory:
    """A fresh temporary directory, removed when the object is closed or garbage collected.

    Use it as a context manager (``with utils.tempdir() as temp:``) or keep the object alive
    as long as the files are needed. Set ``TempDirectory.set_keep_for_debug()`` to keep the
    directories of the process.
    """

    _keep_for_debug = False

    def __init__(self, custom_path=None, keep_for_debug=None):
        if custom_path is not None:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = os.path.abspath(os.fspath(custom_path))
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tvm_")
        self._keep = TempDirectory._keep_for_debug if keep_for_debug is None else keep_for_debug
        self._removed = False

    @classmethod
    def set_keep_for_debug(cls, set_to=True):
        """Keep (``True``) or remove (``False``) the directories created from now on."""
        cls._keep_for_debug = bool(set_to)

    def remove(self):
        """Delete the directory and its contents (at most once)."""
        if not self._removed and not self._keep:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
        self._removed = True

    def relpath(self, name):
        """The absolute path of ``name`` inside the directory."""
        return os.path.join(self.temp_dir, name)

    def listdir(self):
        """The names in the directory."""
        return os.listdir(self.temp_dir)

    @property
    def path(self):
        """The directory's absolute path, a ``pathlib.Path`` (TVM's property)."""
        return pathlib.Path(self.temp_dir)

    def __truediv__(self, other):
        """``temp / "name"``: the path of ``name`` inside the directory."""
        return self.path / other

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __del__(self):
        try:
            self.remove()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown: nothing left to clean with
            pass

    def __repr__(self):
        return f"TempDirectory({self.temp_dir!r})"


def tempdir(custom_path=None, keep_for_debug=None) -> TempDirectory:
    """A new :class:`TempDirectory` (``custom_path``: use that directory instead)."""
    return TempDirectory(custom_path, keep_for_debug)
