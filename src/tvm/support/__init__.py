"""``tvm.support``: host-side utilities TVM code imports (temporary directories, the C compiler
driver, a process pool).

Submodules: :mod:`~tvm.support.utils` (``tempdir``), :mod:`~tvm.support.cc`
(``create_shared``, ``create_staticlib``, ``create_executable``),
:mod:`~tvm.support.popen_pool` (``PopenWorker``, ``PopenPoolExecutor``),
:mod:`~tvm.support.tar` (``tar``, ``untar``) and :mod:`~tvm.support.clang` (``find_clang``,
``create_llvm``: C to LLVM IR).
"""

from . import cc, clang, popen_pool, tar, utils  # noqa: F401
