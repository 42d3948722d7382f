"""The parallel-loop runtime: a thread pool written in LLVM IR over pthreads and futexes.

Generated code runs a ``parallel for`` by calling TVM's C entry point::

    int32_t TVMBackendParallelLaunch(FTVMParallelLambda flambda, void* cdata, int32_t num_task);
    typedef int32_t (*FTVMParallelLambda)(int32_t task_id, TVMParallelGroupEnv* penv, void* cdata);
    typedef struct { void* sync_handle; int32_t num_task; } TVMParallelGroupEnv;

``flambda`` is called once for every ``task_id`` in ``[0, num_task)`` (``num_task <= 0`` means
"one task per pool thread"), spread over the pool; the calling thread takes part. The launch
returns 0, or the first nonzero value a task returned. ``sync_handle`` is always NULL:
``TVMBackendParallelBarrier`` is not provided.

Why LLVM IR: the default ``llvm`` target must work on a machine without a C compiler, and this
IR is JIT-compiled in-process by llvmlite once per process (about 0.1 s, on the first launch).
The pool keeps ``num_threads() - 1`` detached worker threads (``TVM_NUM_THREADS``, else the
CPUs in the process's affinity mask). Every participant, the launcher included, claims tasks
from one atomic word tagged with the job's generation, so the launcher never waits for a
worker the OS has not scheduled, and a late worker can never run a task of a finished job.
Workers spin briefly after a job, then sleep on a futex, so back-to-back launches cost about
a microsecond. Errors raised by tasks on worker threads are moved to the launching thread.
Nested launches (a task that launches) and launches from a second thread while the pool is
busy run serially in the calling thread instead of deadlocking. The design is described in
``docs/arch/codegen_runtime.md``.

Limitations: the pool needs Linux (futex, ``sched_getaffinity``); elsewhere the launch runs
every task serially in the caller. For shared libraries, see :func:`parallel_stub_ir`.
"""

from __future__ import annotations

import ctypes
import functools
import platform
import sys
import threading

from . import disk_cache

LAUNCH_SYMBOL = "TVMBackendParallelLaunch"
# A shared library made by export_library calls the process-wide pool through this pointer,
# which load_module fills in (it stays NULL, meaning "run serially", when nobody fills it).
LAUNCH_POINTER_SYMBOL = "__pytvm_parallel_launch_fptr"

# How many `pause` iterations (tens of cycles each) an idle worker spins before sleeping on a
# futex (~0.5 ms: catches back-to-back launches), and how long the launcher spins waiting for
# tasks running on workers (shorter: on a loaded machine its spinning would slow them down).
_WORKER_SPIN = 1 << 15
_MAIN_SPIN = 1 << 14

_SYS_FUTEX = {"x86_64": 202, "amd64": 202, "aarch64": 98, "arm64": 98}
_PAUSE = {
    "x86_64": "call void @llvm.x86.sse2.pause()",
    "amd64": "call void @llvm.x86.sse2.pause()",
    "aarch64": "call void @llvm.aarch64.hint(i32 1)",
    "arm64": "call void @llvm.aarch64.hint(i32 1)",
}
_PAUSE_DECL = {
    "x86_64": "declare void @llvm.x86.sse2.pause()",
    "amd64": "declare void @llvm.x86.sse2.pause()",
    "aarch64": "declare void @llvm.aarch64.hint(i32)",
    "arm64": "declare void @llvm.aarch64.hint(i32)",
}

# The serial loop shared by the pool (fallback path) and the shared-library stub.
_SERIAL_LOOP = """
serial:
  %snt = phi i32 [%num_task, %entry], [%nt, %unlock_serial]
  %snt_bad = icmp sle i32 %snt, 0
  %snt1 = select i1 %snt_bad, i32 1, i32 %snt
  %s_env0 = getelementptr %penv_t, ptr %penv, i32 0, i32 0
  store ptr null, ptr %s_env0
  %s_env1 = getelementptr %penv_t, ptr %penv, i32 0, i32 1
  store i32 %snt1, ptr %s_env1
  br label %sloop
sloop:
  %i = phi i32 [0, %serial], [%i1, %snext]
  %r = call i32 %f(i32 %i, ptr %penv, ptr %cdata)
  %bad = icmp ne i32 %r, 0
  br i1 %bad, label %sret, label %snext
snext:
  %i1 = add i32 %i, 1
  %smore = icmp slt i32 %i1, %snt1
  br i1 %smore, label %sloop, label %sdone
sdone:
  ret i32 0
sret:
  ret i32 %r
"""

_POOL_IR = """
%penv_t = type {{ ptr, i32 }}

@pool_ready = internal global i32 0
@pool_nthreads = internal global i32 1
@pool_busy = internal global i32 0
@pool_gen = internal global i32 0
@pool_counter = internal global i64 0
@pool_done = internal global i32 0
@pool_sleepers = internal global i32 0
@pool_main_sleeping = internal global i32 0
@pool_ftask = internal global ptr null
@pool_cdata = internal global ptr null
@pool_err = internal global i32 0
@pool_err_obj = internal global ptr null
@pool_err_kind = private constant [13 x i8] c"RuntimeError\\00"
@pool_err_msg = private constant [61 x i8]
    c"a parallel task returned an error code without raising error\\00"
@pool_env_name = private constant [16 x i8] c"TVM_NUM_THREADS\\00"

declare ptr @getenv(ptr)
declare i64 @strtol(ptr, ptr, i32)
declare i64 @sysconf(i32)
declare i32 @sched_getaffinity(i32, i64, ptr)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_detach(i64)
declare i64 @syscall(i64, ...)
declare void @TVMFFIErrorMoveFromRaised(ptr)
declare void @TVMFFIErrorSetRaised(ptr)
declare void @TVMFFIErrorSetRaisedFromCStr(ptr, ptr)
declare i32 @TVMFFIObjectDecRef(ptr)
declare i64 @llvm.ctpop.i64(i64)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
{pause_decl}

define internal void @pool_pause() {{
entry:
  {pause}
  ret void
}}

define internal void @pool_futex_wait(ptr %addr, i32 %val) {{
entry:
  %v = zext i32 %val to i64
  %r = call i64 (i64, ...) @syscall(i64 {sys_futex}, ptr %addr, i64 128, i64 %v,
                                    ptr null, ptr null, i64 0)
  ret void
}}

define internal void @pool_futex_wake(ptr %addr, i32 %count) {{
entry:
  %v = zext i32 %count to i64
  %r = call i64 (i64, ...) @syscall(i64 {sys_futex}, ptr %addr, i64 129, i64 %v,
                                    ptr null, ptr null, i64 0)
  ret void
}}

define internal i32 @pool_count_threads() {{
entry:
  %mask = alloca [16 x i64], align 8
  call void @llvm.memset.p0.i64(ptr %mask, i8 0, i64 128, i1 false)
  %env = call ptr @getenv(ptr @pool_env_name)
  %has_env = icmp ne ptr %env, null
  br i1 %has_env, label %parse, label %affinity
parse:
  %v = call i64 @strtol(ptr %env, ptr null, i32 10)
  %v_ok = icmp sgt i64 %v, 0
  br i1 %v_ok, label %done, label %affinity
affinity:
  %rc = call i32 @sched_getaffinity(i32 0, i64 128, ptr %mask)
  %rc_ok = icmp eq i32 %rc, 0
  br i1 %rc_ok, label %popcount, label %cpus
popcount:
  %w = phi i64 [0, %affinity], [%w1, %popcount]
  %acc = phi i64 [0, %affinity], [%acc1, %popcount]
  %wp = getelementptr i64, ptr %mask, i64 %w
  %word = load i64, ptr %wp
  %bits = call i64 @llvm.ctpop.i64(i64 %word)
  %acc1 = add i64 %acc, %bits
  %w1 = add i64 %w, 1
  %wmore = icmp ult i64 %w1, 16
  br i1 %wmore, label %popcount, label %popdone
popdone:
  %pos = icmp sgt i64 %acc1, 0
  br i1 %pos, label %done, label %cpus
cpus:
  %s = call i64 @sysconf(i32 84)
  br label %done
done:
  %n = phi i64 [%v, %parse], [%acc1, %popdone], [%s, %cpus]
  %lo = icmp slt i64 %n, 1
  %n1 = select i1 %lo, i64 1, i64 %n
  %hi = icmp sgt i64 %n1, 1024
  %n2 = select i1 %hi, i64 1024, i64 %n1
  %res = trunc i64 %n2 to i32
  ret i32 %res
}}

; Claim and run tasks of the job tagged %tag until none is left (any thread, the launcher too).
; @pool_counter packs (tag << 32) | (num_task << 16) | next_task, so a claim (one cmpxchg)
; succeeds only while that very job still has unclaimed tasks: a late worker can never run a
; task of a finished job. The first failing task's error object is moved out of this
; thread's TLS into @pool_err_obj, for the launching thread to re-raise; later tasks are skipped.
define internal void @pool_work(i32 %tag, ptr %f, ptr %cdata) {{
entry:
  %penv = alloca %penv_t, align 8
  %slot = alloca ptr, align 8
  br label %claim
claim:
  %v = load atomic i64, ptr @pool_counter seq_cst, align 8
  %vtag64 = lshr i64 %v, 32
  %vtag = trunc i64 %vtag64 to i32
  %same = icmp eq i32 %vtag, %tag
  br i1 %same, label %check, label %exit
check:
  %next = and i64 %v, 65535
  %nt_shifted = lshr i64 %v, 16
  %nt = and i64 %nt_shifted, 65535
  %unclaimed = icmp ult i64 %next, %nt
  br i1 %unclaimed, label %try, label %exit
try:
  %v1 = add i64 %v, 1
  %x = cmpxchg ptr @pool_counter, i64 %v, i64 %v1 seq_cst seq_cst
  %claimed = extractvalue {{ i64, i1 }} %x, 1
  br i1 %claimed, label %run, label %claim
run:
  %idx = trunc i64 %next to i32
  %nt32 = trunc i64 %nt to i32
  %env0 = getelementptr %penv_t, ptr %penv, i32 0, i32 0
  store ptr null, ptr %env0
  %env1 = getelementptr %penv_t, ptr %penv, i32 0, i32 1
  store i32 %nt32, ptr %env1
  %prior = load atomic i32, ptr @pool_err monotonic, align 4
  %skip = icmp ne i32 %prior, 0
  br i1 %skip, label %finished, label %call
call:
  %r = call i32 %f(i32 %idx, ptr %penv, ptr %cdata)
  %bad = icmp ne i32 %r, 0
  br i1 %bad, label %fail, label %finished
fail:
  store ptr null, ptr %slot
  call void @TVMFFIErrorMoveFromRaised(ptr %slot)
  %eobj = load ptr, ptr %slot
  %ex = cmpxchg ptr @pool_err, i32 0, i32 %r seq_cst seq_cst
  %first = extractvalue {{ i32, i1 }} %ex, 1
  br i1 %first, label %keep, label %drop
keep:
  store atomic ptr %eobj, ptr @pool_err_obj seq_cst, align 8
  br label %finished
drop:
  %has_obj = icmp ne ptr %eobj, null
  br i1 %has_obj, label %decref, label %finished
decref:
  %dr = call i32 @TVMFFIObjectDecRef(ptr %eobj)
  br label %finished
finished:
  %old = atomicrmw add ptr @pool_done, i32 1 seq_cst
  %now = add i32 %old, 1
  %all = icmp eq i32 %now, %nt32
  br i1 %all, label %maybe_wake, label %claim
maybe_wake:
  %ms = load atomic i32, ptr @pool_main_sleeping seq_cst, align 4
  %main_asleep = icmp ne i32 %ms, 0
  br i1 %main_asleep, label %wake_main, label %claim
wake_main:
  call void @pool_futex_wake(ptr @pool_done, i32 1)
  br label %claim
exit:
  ret void
}}

define internal ptr @pool_worker(ptr %arg) {{
entry:
  br label %wait
wait:
  %seen = phi i32 [0, %entry], [%g0, %work], [%seen, %slept]
  br label %spin
spin:
  %k = phi i32 [0, %wait], [%k1, %spin_next]
  %g0 = load atomic i32, ptr @pool_gen acquire, align 4
  %new = icmp ne i32 %g0, %seen
  br i1 %new, label %work, label %spin_next
spin_next:
  call void @pool_pause()
  %k1 = add i32 %k, 1
  %spin_more = icmp ult i32 %k1, {worker_spin}
  br i1 %spin_more, label %spin, label %sleep
sleep:
  %o1 = atomicrmw add ptr @pool_sleepers, i32 1 seq_cst
  call void @pool_futex_wait(ptr @pool_gen, i32 %seen)
  %o2 = atomicrmw sub ptr @pool_sleepers, i32 1 seq_cst
  br label %slept
slept:
  br label %wait
work:
  %f = load atomic ptr, ptr @pool_ftask monotonic, align 8
  %cdata = load atomic ptr, ptr @pool_cdata monotonic, align 8
  call void @pool_work(i32 %g0, ptr %f, ptr %cdata)
  br label %wait
}}

define internal void @pool_start() {{
entry:
  %tid = alloca i64, align 8
  %n = call i32 @pool_count_threads()
  store i32 %n, ptr @pool_nthreads
  br label %check
check:
  %w = phi i32 [1, %entry], [%w1, %next]
  %more = icmp slt i32 %w, %n
  br i1 %more, label %create, label %done
create:
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @pool_worker, ptr null)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %detach, label %failed
detach:
  %t = load i64, ptr %tid
  %drc = call i32 @pthread_detach(i64 %t)
  br label %next
next:
  %w1 = add i32 %w, 1
  br label %check
failed:
  store i32 %w, ptr @pool_nthreads
  br label %done
done:
  store atomic i32 1, ptr @pool_ready release, align 4
  ret void
}}

define i32 @pytvm_pool_num_threads() {{
entry:
  %ready = load atomic i32, ptr @pool_ready acquire, align 4
  %is_ready = icmp ne i32 %ready, 0
  br i1 %is_ready, label %started, label %estimate
started:
  %n = load i32, ptr @pool_nthreads
  ret i32 %n
estimate:
  %c = call i32 @pool_count_threads()
  ret i32 %c
}}

define i32 @{launch}(ptr %f, ptr %cdata, i32 %num_task) {{
entry:
  %penv = alloca %penv_t, align 8
  %x = cmpxchg ptr @pool_busy, i32 0, i32 1 acquire monotonic
  %got = extractvalue {{ i32, i1 }} %x, 1
  br i1 %got, label %locked, label %serial
locked:
  %ready = load atomic i32, ptr @pool_ready acquire, align 4
  %is_ready = icmp ne i32 %ready, 0
  br i1 %is_ready, label %go, label %init
init:
  call void @pool_start()
  br label %go
go:
  %n = load i32, ptr @pool_nthreads
  %nt_default = icmp sle i32 %num_task, 0
  %nt = select i1 %nt_default, i32 %n, i32 %num_task
  %single = icmp sle i32 %n, 1
  %one = icmp sle i32 %nt, 1
  %many = icmp sgt i32 %nt, 65535
  %few_or_one = or i1 %single, %one
  %no_parallel = or i1 %few_or_one, %many
  br i1 %no_parallel, label %unlock_serial, label %dispatch
unlock_serial:
  store atomic i32 0, ptr @pool_busy release, align 4
  br label %serial
dispatch:
  store atomic ptr %f, ptr @pool_ftask monotonic, align 8
  store atomic ptr %cdata, ptr @pool_cdata monotonic, align 8
  store atomic i32 0, ptr @pool_err monotonic, align 4
  store atomic i32 0, ptr @pool_done seq_cst, align 4
  %g = load atomic i32, ptr @pool_gen monotonic, align 4
  %g1 = add i32 %g, 1
  %tag64 = zext i32 %g1 to i64
  %tag_bits = shl i64 %tag64, 32
  %nt64 = zext i32 %nt to i64
  %nt_bits = shl i64 %nt64, 16
  %job = or i64 %tag_bits, %nt_bits
  store atomic i64 %job, ptr @pool_counter seq_cst, align 8
  store atomic i32 %g1, ptr @pool_gen seq_cst, align 4
  %sl = load atomic i32, ptr @pool_sleepers seq_cst, align 4
  %any_asleep = icmp ne i32 %sl, 0
  br i1 %any_asleep, label %wake, label %run
wake:
  call void @pool_futex_wake(ptr @pool_gen, i32 2147483647)
  br label %run
run:
  call void @pool_work(i32 %g1, ptr %f, ptr %cdata)
  br label %mspin
mspin:
  %k = phi i32 [0, %run], [%k1, %mspin_next]
  %pd = load atomic i32, ptr @pool_done acquire, align 4
  %all_done = icmp eq i32 %pd, %nt
  br i1 %all_done, label %finish, label %mspin_next
mspin_next:
  call void @pool_pause()
  %k1 = add i32 %k, 1
  %mmore = icmp ult i32 %k1, {main_spin}
  br i1 %mmore, label %mspin, label %msleep_begin
msleep_begin:
  %o = atomicrmw xchg ptr @pool_main_sleeping, i32 1 seq_cst
  br label %msleep
msleep:
  %pd2 = load atomic i32, ptr @pool_done seq_cst, align 4
  %done2 = icmp eq i32 %pd2, %nt
  br i1 %done2, label %msleep_end, label %msleep_wait
msleep_wait:
  call void @pool_futex_wait(ptr @pool_done, i32 %pd2)
  br label %msleep
msleep_end:
  store atomic i32 0, ptr @pool_main_sleeping seq_cst, align 4
  br label %finish
finish:
  %err = load atomic i32, ptr @pool_err seq_cst, align 4
  %eobj = load atomic ptr, ptr @pool_err_obj seq_cst, align 8
  store atomic ptr null, ptr @pool_err_obj seq_cst, align 8
  store atomic i32 0, ptr @pool_busy release, align 4
  %failed = icmp ne i32 %err, 0
  br i1 %failed, label %reraise, label %success
success:
  ret i32 0
reraise:
  %has_obj = icmp ne ptr %eobj, null
  br i1 %has_obj, label %set_obj, label %set_generic
set_obj:
  call void @TVMFFIErrorSetRaised(ptr %eobj)
  %dr = call i32 @TVMFFIObjectDecRef(ptr %eobj)
  ret i32 %err
set_generic:
  call void @TVMFFIErrorSetRaisedFromCStr(ptr @pool_err_kind, ptr @pool_err_msg)
  ret i32 %err
{serial}
}}
"""

# Off Linux: no pool, every launch runs serially in the caller.
_SERIAL_ONLY_IR = """
%penv_t = type {{ ptr, i32 }}

define i32 @pytvm_pool_num_threads() {{
entry:
  ret i32 1
}}

define i32 @{launch}(ptr %f, ptr %cdata, i32 %num_task) {{
entry:
  %penv = alloca %penv_t, align 8
  br label %serial
unlock_serial:
  %nt = add i32 0, 1
  br label %serial
{serial}
}}
"""

_STUB_IR = """
%penv_t = type {{ ptr, i32 }}

@{pointer} = global ptr null, align 8

define hidden i32 @{launch}(ptr %f, ptr %cdata, i32 %num_task) {{
entry:
  %penv = alloca %penv_t, align 8
  %impl = load atomic ptr, ptr @{pointer} acquire, align 8
  %has_impl = icmp ne ptr %impl, null
  br i1 %has_impl, label %delegate, label %serial
delegate:
  %dr = call i32 %impl(ptr %f, ptr %cdata, i32 %num_task)
  ret i32 %dr
unlock_serial:
  %nt = add i32 0, 1
  br label %serial
{serial}
}}
"""


def pool_ir() -> str:
    """Return the LLVM IR text of the process-wide thread pool for the host."""
    machine = platform.machine().lower()
    if not sys.platform.startswith("linux") or machine not in _SYS_FUTEX:
        return _SERIAL_ONLY_IR.format(launch=LAUNCH_SYMBOL, serial=_SERIAL_LOOP)
    return _POOL_IR.format(
        launch=LAUNCH_SYMBOL,
        serial=_SERIAL_LOOP,
        sys_futex=_SYS_FUTEX[machine],
        pause=_PAUSE[machine],
        pause_decl=_PAUSE_DECL[machine],
        worker_spin=_WORKER_SPIN,
        main_spin=_MAIN_SPIN,
    )


def parallel_stub_ir() -> str:
    """Return the IR linked into exported shared libraries whose code launches parallel work.

    It defines a hidden ``TVMBackendParallelLaunch`` that forwards to the function pointer
    ``__pytvm_parallel_launch_fptr`` (exported). ``tvm.runtime.load_module`` points it at
    the process's pool; a library loaded any other way runs its parallel loops serially.
    """
    return _STUB_IR.format(launch=LAUNCH_SYMBOL, pointer=LAUNCH_POINTER_SYMBOL, serial=_SERIAL_LOOP)


class _Pool:
    """The JIT-compiled pool; created once per process and never freed."""

    def __init__(self):
        # Worker threads run this code until the process exits (the engine is never freed).
        # Code generation at level 0: 6 ms instead of 15 ms on a cold cache, and the launch
        # and wake-up times stayed the same (benchmarks/call_overhead.py).
        addresses = disk_cache.jit_runtime_module(
            pool_ir(), "pytvm_threadpool", [LAUNCH_SYMBOL, "pytvm_pool_num_threads"],
            export=[LAUNCH_SYMBOL], opt_level=0,
        )
        self.launch_address = addresses[LAUNCH_SYMBOL]
        self._num_threads = ctypes.CFUNCTYPE(ctypes.c_int32)(addresses["pytvm_pool_num_threads"])

    def num_threads(self) -> int:
        return int(self._num_threads())


_POOL_LOCK = threading.Lock()


@functools.cache
def _pool_locked() -> _Pool:
    return _Pool()


def get_pool() -> _Pool:
    """Return the process-wide pool, compiling it on first use (thread-safe)."""
    with _POOL_LOCK:
        return _pool_locked()


def launch_address() -> int:
    """Address of the process-wide ``TVMBackendParallelLaunch``; also registers it for the JIT."""
    return get_pool().launch_address


def num_threads() -> int:
    """Number of threads (the caller included) that parallel launches use.

    ``TVM_NUM_THREADS`` when set to a positive integer before the first launch, else the
    number of CPUs this process may run on.
    """
    return get_pool().num_threads()
