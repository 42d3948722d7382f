"""``tvm.backend``: code generation per target, and loading of device backends.

Each backend is a package ``tvm.backend.<name>`` with a ``register_backend()`` function;
:func:`load` imports it once and calls that function. The package path is extensible
(``pkgutil.extend_path``), so out-of-tree distributions can ship ``tvm.backend.<name>`` too.
Backends installed as separate distributions can also declare an entry point in the
``tvm.backends`` group; those are called at the end of ``import tvm`` (see
:mod:`tvm.backend._autoload_backends`).
"""

import os as _os
import sys as _sys
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
# extend_path only searches the parent package's path; out-of-tree distributions install
# ``tvm/backend/<name>/`` elsewhere on sys.path, without a ``tvm/__init__.py`` of their own
# (a folder that has one is another full tvm installation and is not mixed in).
for _entry in _sys.path:
    _candidate = _os.path.join(_entry or ".", "tvm", "backend")
    if (
        _os.path.isdir(_candidate)
        and not _os.path.exists(_os.path.join(_entry or ".", "tvm", "__init__.py"))
        and _candidate not in __path__
    ):
        __path__.append(_candidate)

from .loader import is_loaded, load

__all__ = ["is_loaded", "load"]
