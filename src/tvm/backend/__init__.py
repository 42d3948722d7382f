"""``tvm.backend``: code generation per target, and loading of device backends.

Each backend is a package ``tvm.backend.<name>`` with a ``register_backend()`` function;
:func:`load` imports it once and calls that function. The package path is extensible
(``pkgutil.extend_path``), so out-of-tree distributions can ship ``tvm.backend.<name>`` too.
Backends installed as separate distributions can also declare an entry point in the
``tvm.backends`` group; those are called at the end of ``import tvm`` (see
:mod:`tvm.backend._autoload_backends`).
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

from .loader import is_loaded, load  # noqa: E402

__all__ = ["is_loaded", "load"]
