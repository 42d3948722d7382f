"""``tvm.support``: host-side utilities TVM code imports (temporary directories, the C compiler
driver, a process pool).

Submodules: :mod:`~tvm.support.utils` (``tempdir``), :mod:`~tvm.support.cc`
(``create_shared``, ``create_staticlib``, ``create_executable``) and
:mod:`~tvm.support.popen_pool` (``PopenWorker``, ``PopenPoolExecutor``).
"""

from . import cc, popen_pool, utils  # noqa: F401
