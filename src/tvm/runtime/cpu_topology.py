"""CPU topology of this process: how many threads parallel code should use, and where.

Shared by the thread pool (``tvm.backend.llvm.threadpool``) and the default CPU schedule
(``tvm.s_tir.default_schedule_matmul``, which sizes its parallel tasks by the thread count).
"""

from __future__ import annotations

import functools
import os

__all__ = ["cpu_order", "default_num_threads", "l2_cache_bytes"]


def _env_int(name: str) -> int | None:
    """The positive integer in the environment variable `name`, else None (unset, not a number
    or <= 0); shared with the thread pool."""
    value = os.environ.get(name, "").strip()
    try:
        number = int(value)
    except ValueError:
        return None
    return number if number > 0 else None


@functools.cache
def _topology(allowed: tuple) -> tuple[int, tuple]:
    first, siblings, cores = [], [], set()
    for cpu in allowed:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(base + "physical_package_id") as f:
                package = f.read().strip()
            with open(base + "core_id") as f:
                core = f.read().strip()
        except OSError:
            return len(allowed), allowed
        if (package, core) in cores:
            siblings.append(cpu)
        else:
            cores.add((package, core))
            first.append(cpu)
    return max(1, len(first)), tuple(first + siblings)


def cpu_order() -> tuple[int, list[int]]:
    """``(physical_cores, cpus)`` of this process's affinity mask.

    ``cpus`` lists the allowed CPUs with one CPU of each physical core first (in core order),
    then their SMT siblings; a pool worker pinned with ``TVM_BIND_THREADS=1`` takes the CPU at
    its index. The topology comes from ``/sys/devices/system/cpu/cpu*/topology``; where that
    is unreadable every CPU counts as a core.
    """
    try:
        allowed = tuple(sorted(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        count = os.cpu_count() or 1
        return count, list(range(count))
    cores, cpus = _topology(allowed)
    return cores, list(cpus)


def default_num_threads() -> int:
    """Threads for parallel code: ``TVM_NUM_THREADS`` when a positive integer, else the
    physical cores of the affinity mask (SMT siblings share a core's FMA units: a second
    thread there adds little to compute-bound kernels and competes with the first), at most
    1024."""
    return min(1024, _env_int("TVM_NUM_THREADS") or cpu_order()[0])


#: The L2 size assumed where sysfs does not tell (a conservative 1 MiB: Zen 4's, under
#: Intel's 1.25-2 MiB).
DEFAULT_L2_BYTES = 1 << 20


@functools.cache
def l2_cache_bytes() -> int:
    """Bytes of the L2 cache of the first CPU this process may run on (sysfs), else
    :data:`DEFAULT_L2_BYTES`. The matmul schedule sizes its L2-resident blocks by it."""
    try:
        cpu = min(os.sched_getaffinity(0))
    except (AttributeError, OSError, ValueError):
        cpu = 0
    base = f"/sys/devices/system/cpu/cpu{cpu}/cache"
    try:
        entries = os.listdir(base)
    except OSError:
        return DEFAULT_L2_BYTES
    for entry in sorted(entries):
        try:
            with open(f"{base}/{entry}/level") as f:
                level = f.read().strip()
            with open(f"{base}/{entry}/type") as f:
                kind = f.read().strip()
            with open(f"{base}/{entry}/size") as f:
                size = f.read().strip()
        except OSError:
            continue
        if level != "2" or kind not in ("Unified", "Data"):
            continue
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        try:
            if size[-1:].upper() in units:
                return int(size[:-1]) * units[size[-1].upper()]
            return int(size)
        except ValueError:
            return DEFAULT_L2_BYTES
    return DEFAULT_L2_BYTES
