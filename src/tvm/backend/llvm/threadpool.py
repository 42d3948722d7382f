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
The pool keeps ``size - 1`` detached worker threads (``TVM_NUM_THREADS``, else the physical
cores of the process's affinity mask; :func:`set_num_threads` lowers the count at run time).
Every participant, the launcher included, claims tasks from one atomic word tagged with the
job's generation, so the launcher never waits for a worker the OS has not scheduled, and a
late worker can never run a task of a finished job. Workers spin for 200 us after a job, then
sleep on a futex, so back-to-back launches cost about a microsecond and an idle pool leaves
the CPUs to others. Errors raised by tasks on worker threads are moved to the launching
thread. Nested launches (a task that launches) and launches from a second thread while the
pool is busy run serially in the calling thread instead of deadlocking. A forked child starts
new workers. Per-thread counters (:func:`enable_stats`, :func:`stats`) show where the
threads' time goes. The design is described in ``docs/arch/codegen_runtime.md``.

Limitations: the pool needs Linux (futex, ``sched_getaffinity``); elsewhere the launch runs
every task serially in the caller. For shared libraries, see :func:`parallel_stub_ir`.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import sys
import threading

from ...runtime.cpu_topology import _env_int, cpu_order, default_num_threads
from . import disk_cache

LAUNCH_SYMBOL = "TVMBackendParallelLaunch"
# A shared library made by export_library calls the process-wide pool through this pointer,
# which load_module fills in (it stays NULL, meaning "run serially", when nobody fills it).
LAUNCH_POINTER_SYMBOL = "__pytvm_parallel_launch_fptr"

# How long an idle worker spins (`pause`, the clock read every 64) before sleeping on a futex,
# and how long the launcher spins waiting for tasks running on workers before sleeping. A
# training step launches every 10-50 us, so 200 us keeps the workers awake through a step;
# longer spins only steal CPU time from other work of the process (NumPy's or PyTorch's
# threads) or the machine. PYTVM_SPIN_US overrides the workers' budget (the launcher's is a
# quarter of it). See docs/arch/codegen.md, "Threads".
WORKER_SPIN_NS = 200_000
MAIN_SPIN_NS = 50_000

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
%timespec_t = type {{ i64, i64 }}

@pool_ready = internal global i32 0
@pool_nthreads = internal global i32 1
@pool_active = internal global i32 0
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
@pool_conf_threads = internal global i32 0
@pool_bind = internal global i32 0
@pool_ncpus = internal global i32 0
@pool_cpus = internal global [1024 x i32] zeroinitializer
@pool_worker_spin_ns = internal global i64 {worker_spin_ns}
@pool_main_spin_ns = internal global i64 {main_spin_ns}
@pool_stats_on = internal global i32 0
@pool_stats = internal global [1025 x [8 x i64]] zeroinitializer, align 64
@pool_err_kind = private constant [13 x i8] c"RuntimeError\\00"
@pool_err_msg = private constant [61 x i8]
    c"a parallel task returned an error code without raising error\\00"
@pool_env_name = private constant [16 x i8] c"TVM_NUM_THREADS\\00"

declare ptr @getenv(ptr)
declare i64 @strtol(ptr, ptr, i32)
declare i64 @sysconf(i32)
declare i32 @sched_getaffinity(i32, i64, ptr)
declare i32 @sched_setaffinity(i32, i64, ptr)
declare i32 @clock_gettime(i32, ptr)
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

; Nanoseconds of clock %clock (1: CLOCK_MONOTONIC, 3: CLOCK_THREAD_CPUTIME_ID).
define internal i64 @pool_now_ns(i32 %clock) {{
entry:
  %ts = alloca %timespec_t, align 8
  %rc = call i32 @clock_gettime(i32 %clock, ptr %ts)
  %sp = getelementptr %timespec_t, ptr %ts, i32 0, i32 0
  %s = load i64, ptr %sp
  %nsp = getelementptr %timespec_t, ptr %ts, i32 0, i32 1
  %ns = load i64, ptr %nsp
  %s_ns = mul i64 %s, 1000000000
  %t = add i64 %s_ns, %ns
  ret i64 %t
}}

; Add %v to field %field of the statistics slot %slot (one 64-byte line per thread).
define internal void @pool_stat_add(i32 %slot, i32 %field, i64 %v) {{
entry:
  %p = getelementptr [1025 x [8 x i64]], ptr @pool_stats, i32 0, i32 %slot, i32 %field
  %o = atomicrmw add ptr %p, i64 %v monotonic
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

; The pool size when Python did not configure one: TVM_NUM_THREADS, else the CPUs of the
; affinity mask, else sysconf(_SC_NPROCESSORS_ONLN).
define internal i32 @pool_count_threads() {{
entry:
  %mask = alloca [16 x i64], align 8
  %conf = load i32, ptr @pool_conf_threads
  %has_conf = icmp sgt i32 %conf, 0
  br i1 %has_conf, label %configured, label %count
configured:
  ret i32 %conf
count:
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

; Threads a launch uses now: the active count (set_num_threads) within [1, pool size].
define internal i32 @pool_effective_threads() {{
entry:
  %n = load i32, ptr @pool_nthreads
  %a = load atomic i32, ptr @pool_active monotonic, align 4
  %unset = icmp slt i32 %a, 1
  %more = icmp sgt i32 %a, %n
  %use_n = or i1 %unset, %more
  %e = select i1 %use_n, i32 %n, i32 %a
  ret i32 %e
}}

; Claim and run tasks of the job tagged %tag until none is left (any thread, the launcher too).
; @pool_counter packs (tag << 32) | (num_task << 16) | next_task, so a claim (one cmpxchg)
; succeeds only while that very job still has unclaimed tasks: a late worker can never run a
; task of a finished job. The first failing task's error object is moved out of this
; thread's TLS into @pool_err_obj, for the launching thread to re-raise; later tasks are skipped.
; %slot: this thread's statistics slot (0: the launcher, w: worker w).
define internal void @pool_work(i32 %tag, ptr %f, ptr %cdata, i32 %slot) {{
entry:
  %penv = alloca %penv_t, align 8
  %errslot = alloca ptr, align 8
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
  br i1 %skip, label %finished, label %call_check
call_check:
  %son = load atomic i32, ptr @pool_stats_on monotonic, align 4
  %timed = icmp ne i32 %son, 0
  br i1 %timed, label %call_timed, label %call
call:
  %r = call i32 %f(i32 %idx, ptr %penv, ptr %cdata)
  br label %called
call_timed:
  %c0 = call i64 @pool_now_ns(i32 3)
  %w0 = call i64 @pool_now_ns(i32 1)
  %rt = call i32 %f(i32 %idx, ptr %penv, ptr %cdata)
  %c1 = call i64 @pool_now_ns(i32 3)
  %w1 = call i64 @pool_now_ns(i32 1)
  %dc = sub i64 %c1, %c0
  %dw = sub i64 %w1, %w0
  call void @pool_stat_add(i32 %slot, i32 0, i64 1)
  call void @pool_stat_add(i32 %slot, i32 1, i64 %dc)
  call void @pool_stat_add(i32 %slot, i32 2, i64 %dw)
  br label %called
called:
  %rr = phi i32 [%r, %call], [%rt, %call_timed]
  %bad = icmp ne i32 %rr, 0
  br i1 %bad, label %fail, label %finished
fail:
  store ptr null, ptr %errslot
  call void @TVMFFIErrorMoveFromRaised(ptr %errslot)
  %eobj = load ptr, ptr %errslot
  %ex = cmpxchg ptr @pool_err, i32 0, i32 %rr seq_cst seq_cst
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

; Pin the calling worker to the CPU the configuration gives its index (TVM_BIND_THREADS=1).
define internal void @pool_pin(i32 %idx) {{
entry:
  %ncpus = load i32, ptr @pool_ncpus
  %bind = load i32, ptr @pool_bind
  %want = icmp ne i32 %bind, 0
  %have = icmp sgt i32 %ncpus, 0
  %go = and i1 %want, %have
  br i1 %go, label %pin, label %done
pin:
  %k = urem i32 %idx, %ncpus
  %cp = getelementptr [1024 x i32], ptr @pool_cpus, i32 0, i32 %k
  %cpu = load i32, ptr %cp
  %ok_cpu = icmp ult i32 %cpu, 1024
  br i1 %ok_cpu, label %set, label %done
set:
  %mask = alloca [16 x i64], align 8
  call void @llvm.memset.p0.i64(ptr %mask, i8 0, i64 128, i1 false)
  %word_i = lshr i32 %cpu, 6
  %bit_i = and i32 %cpu, 63
  %bit64 = zext i32 %bit_i to i64
  %bit = shl i64 1, %bit64
  %wp = getelementptr [16 x i64], ptr %mask, i32 0, i32 %word_i
  store i64 %bit, ptr %wp
  %rc = call i32 @sched_setaffinity(i32 0, i64 128, ptr %mask)
  br label %done
done:
  ret void
}}

; Worker %arg (its index 1..n-1 as a pointer-sized integer): spin for a new generation up to
; @pool_worker_spin_ns (the clock is read every 64 pauses), then sleep on a futex.
define internal ptr @pool_worker(ptr %arg) {{
entry:
  %idx64 = ptrtoint ptr %arg to i64
  %idx = trunc i64 %idx64 to i32
  call void @pool_pin(i32 %idx)
  br label %wait
wait:
  ; Starts at 0, not at the current generation: the job that started the pool may already
  ; be published (a stale generation is harmless: its claims fail).
  %seen = phi i32 [0, %entry], [%g0, %work], [%g0, %not_mine], [%seen, %slept]
  %t0 = call i64 @pool_now_ns(i32 1)
  %budget = load i64, ptr @pool_worker_spin_ns
  br label %spin
spin:
  %k = phi i32 [0, %wait], [%k1, %spin_next], [0, %clock_ok]
  %g0 = load atomic i32, ptr @pool_gen acquire, align 4
  %new = icmp ne i32 %g0, %seen
  br i1 %new, label %mine, label %spin_next
spin_next:
  call void @pool_pause()
  %k1 = add i32 %k, 1
  %tick = icmp ult i32 %k1, 64
  br i1 %tick, label %spin, label %clock
clock:
  %t1 = call i64 @pool_now_ns(i32 1)
  %spent = sub i64 %t1, %t0
  %over = icmp sge i64 %spent, %budget
  br i1 %over, label %sleep, label %clock_ok
clock_ok:
  br label %spin
sleep:
  %son = load atomic i32, ptr @pool_stats_on monotonic, align 4
  %counting = icmp ne i32 %son, 0
  br i1 %counting, label %count_sleep, label %do_sleep
count_sleep:
  call void @pool_stat_add(i32 %idx, i32 3, i64 1)
  call void @pool_stat_add(i32 %idx, i32 4, i64 %spent)
  br label %do_sleep
do_sleep:
  %o1 = atomicrmw add ptr @pool_sleepers, i32 1 seq_cst
  call void @pool_futex_wait(ptr @pool_gen, i32 %seen)
  %o2 = atomicrmw sub ptr @pool_sleepers, i32 1 seq_cst
  br label %slept
slept:
  br label %wait
mine:
  %eff = call i32 @pool_effective_threads()
  %takes_part = icmp slt i32 %idx, %eff
  br i1 %takes_part, label %work, label %not_mine
not_mine:
  br label %wait
work:
  %f = load atomic ptr, ptr @pool_ftask monotonic, align 8
  %cdata = load atomic ptr, ptr @pool_cdata monotonic, align 8
  call void @pool_work(i32 %g0, ptr %f, ptr %cdata, i32 %idx)
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
  %w64 = zext i32 %w to i64
  %warg = inttoptr i64 %w64 to ptr
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @pool_worker, ptr %warg)
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

; Set the pool's size, CPU binding and spin budgets before it starts (Python, once).
define void @pytvm_pool_configure(i32 %threads, i32 %bind, ptr %cpus, i32 %ncpus,
                                  i64 %worker_spin_ns, i64 %main_spin_ns) {{
entry:
  store i32 %threads, ptr @pool_conf_threads
  store i32 %bind, ptr @pool_bind
  %many = icmp sgt i32 %ncpus, 1024
  %n = select i1 %many, i32 1024, i32 %ncpus
  store i32 %n, ptr @pool_ncpus
  %bytes32 = mul i32 %n, 4
  %bytes = zext i32 %bytes32 to i64
  call void @llvm.memcpy.p0.p0.i64(ptr @pool_cpus, ptr %cpus, i64 %bytes, i1 false)
  store i64 %worker_spin_ns, ptr @pool_worker_spin_ns
  store i64 %main_spin_ns, ptr @pool_main_spin_ns
  ret void
}}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; Threads later launches use (1 .. pool size; 0 or less: all); returns the previous count.
define i32 @pytvm_pool_set_active(i32 %n) {{
entry:
  %prev = call i32 @pytvm_pool_num_threads()
  store atomic i32 %n, ptr @pool_active seq_cst, align 4
  ret i32 %prev
}}

define i32 @pytvm_pool_num_threads() {{
entry:
  %ready = load atomic i32, ptr @pool_ready acquire, align 4
  %is_ready = icmp ne i32 %ready, 0
  br i1 %is_ready, label %started, label %estimate
started:
  %e = call i32 @pool_effective_threads()
  ret i32 %e
estimate:
  %c = call i32 @pool_count_threads()
  %a = load atomic i32, ptr @pool_active monotonic, align 4
  %unset = icmp slt i32 %a, 1
  %more = icmp sgt i32 %a, %c
  %use_c = or i1 %unset, %more
  %r = select i1 %use_c, i32 %c, i32 %a
  ret i32 %r
}}

define void @pytvm_pool_set_stats(i32 %on) {{
entry:
  store atomic i32 %on, ptr @pool_stats_on seq_cst, align 4
  ret void
}}

define ptr @pytvm_pool_stats_address() {{
entry:
  ret ptr @pool_stats
}}

; In a forked child (called by Python's os.register_at_fork): the child has none of the
; workers, so forget them; the next launch starts new ones. Any launch that was in progress
; in another thread of the parent does not exist in the child.
define void @pytvm_pool_after_fork() {{
entry:
  store atomic i32 0, ptr @pool_ready seq_cst, align 4
  store atomic i32 0, ptr @pool_busy seq_cst, align 4
  store atomic i32 0, ptr @pool_sleepers seq_cst, align 4
  store atomic i32 0, ptr @pool_main_sleeping seq_cst, align 4
  store atomic i64 0, ptr @pool_counter seq_cst, align 8
  ret void
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
  %n = call i32 @pool_effective_threads()
  %nt_default = icmp sle i32 %num_task, 0
  %nt = select i1 %nt_default, i32 %n, i32 %num_task
  %single = icmp sle i32 %n, 1
  %one = icmp sle i32 %nt, 1
  %many = icmp sgt i32 %nt, 65535
  %few_or_one = or i1 %single, %one
  %no_parallel = or i1 %few_or_one, %many
  %son = load atomic i32, ptr @pool_stats_on monotonic, align 4
  %counting = icmp ne i32 %son, 0
  br i1 %counting, label %count_launch, label %route
count_launch:
  call void @pool_stat_add(i32 0, i32 5, i64 1)
  %serial_count = zext i1 %no_parallel to i64
  call void @pool_stat_add(i32 0, i32 6, i64 %serial_count)
  br label %route
route:
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
  call void @pool_work(i32 %g1, ptr %f, ptr %cdata, i32 0)
  %pd0 = load atomic i32, ptr @pool_done acquire, align 4
  %done0 = icmp eq i32 %pd0, %nt
  br i1 %done0, label %finish, label %wait_begin
wait_begin:
  %wt0 = call i64 @pool_now_ns(i32 1)
  %budget = load i64, ptr @pool_main_spin_ns
  br label %mspin
mspin:
  %k = phi i32 [0, %wait_begin], [%k1, %mspin_next], [0, %mclock_ok]
  %pd = load atomic i32, ptr @pool_done acquire, align 4
  %all_done = icmp eq i32 %pd, %nt
  br i1 %all_done, label %waited, label %mspin_next
mspin_next:
  call void @pool_pause()
  %k1 = add i32 %k, 1
  %tick = icmp ult i32 %k1, 64
  br i1 %tick, label %mspin, label %mclock
mclock:
  %wt1 = call i64 @pool_now_ns(i32 1)
  %spent = sub i64 %wt1, %wt0
  %over = icmp sge i64 %spent, %budget
  br i1 %over, label %msleep_begin, label %mclock_ok
mclock_ok:
  br label %mspin
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
  br label %waited
waited:
  %son2 = load atomic i32, ptr @pool_stats_on monotonic, align 4
  %counting2 = icmp ne i32 %son2, 0
  br i1 %counting2, label %count_wait, label %finish
count_wait:
  %wt2 = call i64 @pool_now_ns(i32 1)
  %waited_ns = sub i64 %wt2, %wt0
  call void @pool_stat_add(i32 0, i32 7, i64 %waited_ns)
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

@pool_stats = internal global [1025 x [8 x i64]] zeroinitializer, align 64

define i32 @pytvm_pool_num_threads() {{
entry:
  ret i32 1
}}

define void @pytvm_pool_configure(i32 %threads, i32 %bind, ptr %cpus, i32 %ncpus,
                                  i64 %worker_spin_ns, i64 %main_spin_ns) {{
entry:
  ret void
}}

define i32 @pytvm_pool_set_active(i32 %n) {{
entry:
  ret i32 1
}}

define void @pytvm_pool_set_stats(i32 %on) {{
entry:
  ret void
}}

define ptr @pytvm_pool_stats_address() {{
entry:
  ret ptr @pool_stats
}}

define void @pytvm_pool_after_fork() {{
entry:
  ret void
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

# The launch linked into exported libraries. In order, it forwards to: pytvm's pool (the
# pointer tvm.runtime.load_module fills in); a TVM host's launch (tvm_ffi fills the context
# symbol @__TVMBackendParallelLaunch of every library it loads with the value the host
# registered, as Apache TVM's runtime does for its pool); an exported TVMBackendParallelLaunch
# of the process (dlsym, looked up once); else it runs the tasks serially.
_STUB_IR = """
%penv_t = type {{ ptr, i32 }}

@{pointer} = global ptr null, align 8
@{context} = global ptr null, align 8
@stub_looked_up = internal global i32 0
@stub_found = internal global ptr null
@stub_name = private constant [25 x i8] c"TVMBackendParallelLaunch\\00"

declare ptr @dlsym(ptr, ptr)

define hidden i32 @{launch}(ptr %f, ptr %cdata, i32 %num_task) {{
entry:
  %penv = alloca %penv_t, align 8
  %impl = load atomic ptr, ptr @{pointer} acquire, align 8
  %has_impl = icmp ne ptr %impl, null
  br i1 %has_impl, label %delegate, label %host
delegate:
  %dr = call i32 %impl(ptr %f, ptr %cdata, i32 %num_task)
  ret i32 %dr
host:
  %ctx = load atomic ptr, ptr @{context} acquire, align 8
  %has_ctx = icmp ne ptr %ctx, null
  br i1 %has_ctx, label %call_ctx, label %lookup
call_ctx:
  %cr = call i32 %ctx(ptr %f, ptr %cdata, i32 %num_task)
  ret i32 %cr
lookup:
  %looked = load atomic i32, ptr @stub_looked_up acquire, align 4
  %done = icmp ne i32 %looked, 0
  br i1 %done, label %found_check, label %search
search:
  %sym = call ptr @dlsym(ptr null, ptr @stub_name)
  store atomic ptr %sym, ptr @stub_found release, align 8
  store atomic i32 1, ptr @stub_looked_up release, align 4
  br label %found_check
found_check:
  %fnd = load atomic ptr, ptr @stub_found acquire, align 8
  %has_fnd = icmp ne ptr %fnd, null
  br i1 %has_fnd, label %call_found, label %serial
call_found:
  %fr = call i32 %fnd(ptr %f, ptr %cdata, i32 %num_task)
  ret i32 %fr
unlock_serial:
  %nt = add i32 0, 1
  br label %serial
{serial}
}}
"""

#: The context symbol a TVM host fills in the libraries tvm_ffi loads (TVM's naming).
CONTEXT_SYMBOL = "__" + LAUNCH_SYMBOL

#: Exported functions of the pool module (besides the launch itself).
_POOL_FUNCTIONS = (
    "pytvm_pool_num_threads",
    "pytvm_pool_configure",
    "pytvm_pool_set_active",
    "pytvm_pool_set_stats",
    "pytvm_pool_stats_address",
    "pytvm_pool_after_fork",
)

#: Fields of a statistics slot (see :func:`stats`).
STAT_FIELDS = ("tasks", "task_cpu_ns", "task_wall_ns", "sleeps", "spin_ns_before_sleep",
               "launches", "serial_launches", "launcher_wait_ns")


def pool_ir(worker_spin_ns: int = WORKER_SPIN_NS, main_spin_ns: int = MAIN_SPIN_NS) -> str:
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
        worker_spin_ns=int(worker_spin_ns),
        main_spin_ns=int(main_spin_ns),
    )


def parallel_stub_ir() -> str:
    """Return the IR linked into exported shared libraries whose code launches parallel work.

    It defines a hidden ``TVMBackendParallelLaunch`` that forwards to, in order: the pointer
    ``__pytvm_parallel_launch_fptr`` (exported; ``tvm.runtime.load_module`` points it at this
    process's pool); the pointer ``__TVMBackendParallelLaunch`` (exported; a TVM host that
    registered that context symbol with tvm_ffi gets it filled when tvm_ffi loads the
    library, as Apache TVM's runtime does); an exported ``TVMBackendParallelLaunch`` of the
    process (``dlsym``, looked up on the first launch); else the tasks run serially.
    """
    return _STUB_IR.format(launch=LAUNCH_SYMBOL, pointer=LAUNCH_POINTER_SYMBOL,
                           context=CONTEXT_SYMBOL,
                           serial=_SERIAL_LOOP.replace("%entry]", "%found_check]"))


class _Pool:
    """The JIT-compiled pool; created once per process and never freed."""

    def __init__(self):
        # Worker threads run this code until the process exits (the engine is never freed).
        # Code generation at level 0: 6 ms instead of 15 ms on a cold cache, and the launch
        # and wake-up times stayed the same (benchmarks/call_overhead.py).
        addresses = disk_cache.jit_runtime_module(
            pool_ir(), "pytvm_threadpool", [LAUNCH_SYMBOL, *_POOL_FUNCTIONS],
            export=[LAUNCH_SYMBOL], opt_level=0,
        )
        self.launch_address = addresses[LAUNCH_SYMBOL]
        i32, i64 = ctypes.c_int32, ctypes.c_int64
        fn = ctypes.CFUNCTYPE
        self._num_threads = fn(i32)(addresses["pytvm_pool_num_threads"])
        self._set_active = fn(i32, i32)(addresses["pytvm_pool_set_active"])
        self._set_stats = fn(None, i32)(addresses["pytvm_pool_set_stats"])
        self._stats_address = fn(ctypes.c_void_p)(addresses["pytvm_pool_stats_address"])
        self.after_fork = fn(None)(addresses["pytvm_pool_after_fork"])
        configure = fn(None, i32, i32, ctypes.c_void_p, i32, i64, i64)(
            addresses["pytvm_pool_configure"])
        _, cpus = cpu_order()
        cpu_array = (ctypes.c_int32 * max(1, len(cpus)))(*cpus)
        spin_us = _env_int("PYTVM_SPIN_US")
        worker_spin = spin_us * 1000 if spin_us else WORKER_SPIN_NS
        main_spin = spin_us * 250 if spin_us else MAIN_SPIN_NS
        bind = 1 if os.environ.get("TVM_BIND_THREADS", "").strip() == "1" else 0
        configure(default_num_threads(), bind, ctypes.addressof(cpu_array), len(cpus),
                  worker_spin, main_spin)

    def num_threads(self) -> int:
        return int(self._num_threads())

    def set_active(self, n: int) -> int:
        return int(self._set_active(n))

    def set_stats(self, on: bool) -> None:
        self._set_stats(1 if on else 0)

    def stats_array(self):
        return (ctypes.c_int64 * (1025 * 8)).from_address(self._stats_address())


_POOL_LOCK = threading.Lock()


@functools.cache
def _pool_locked() -> _Pool:
    pool = _Pool()
    if hasattr(os, "register_at_fork"):
        # A forked child has none of the workers: the pool forgets them and starts new ones
        # on the child's next launch (without this, the child's launches ran serially).
        os.register_at_fork(after_in_child=pool.after_fork)
    return pool


def get_pool() -> _Pool:
    """Return the process-wide pool, compiling it on first use (thread-safe)."""
    with _POOL_LOCK:
        return _pool_locked()


def launch_address() -> int:
    """Address of the process-wide ``TVMBackendParallelLaunch``; also registers it for the JIT."""
    return get_pool().launch_address


def num_threads() -> int:
    """Number of threads (the caller included) that parallel launches use.

    :func:`set_num_threads`' value if one was set, else the pool size: ``TVM_NUM_THREADS``
    when set to a positive integer before the first launch, else the physical cores this
    process may run on (:func:`default_num_threads`).
    """
    return get_pool().num_threads()


def set_num_threads(n: int) -> int:
    """Use ``n`` threads (the caller included) for later launches; returns the previous count.

    ``n`` is clamped to the pool size, which is fixed when the pool starts
    (``TVM_NUM_THREADS``); ``n <= 0`` means the whole pool. Workers beyond ``n`` stay idle
    (asleep after their spin). Benchmarks use it to compare thread counts in one process.
    """
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"set_num_threads: expected an int, got {type(n).__name__}")
    return get_pool().set_active(n)


def enable_stats(on: bool = True) -> None:
    """Count per thread what the pool does (see :func:`stats`); off by default.

    While on, every task reads two clocks (about 0.1-0.5 us), so leave it off for timing.
    """
    get_pool().set_stats(bool(on))


def reset_stats() -> None:
    """Set every counter of :func:`stats` to zero."""
    arr = get_pool().stats_array()
    ctypes.memset(ctypes.addressof(arr), 0, ctypes.sizeof(arr))


def stats() -> list[dict]:
    """Per-thread counters since the last :func:`reset_stats` (while :func:`enable_stats`).

    Entry 0 is the launching thread(s), entry ``w`` worker ``w``; each a dict of
    :data:`STAT_FIELDS`: ``tasks`` run, ``task_cpu_ns`` (thread CPU time inside tasks: not
    counting time the OS gave to other processes), ``task_wall_ns``, ``sleeps`` (futex waits
    after a spin), ``spin_ns_before_sleep``; on entry 0 only: ``launches``,
    ``serial_launches`` (run in the caller: one task, one thread, ...) and
    ``launcher_wait_ns`` (wall time the launcher waited for workers after its own tasks).
    """
    pool = get_pool()
    arr = pool.stats_array()
    count = max(pool.num_threads(), default_num_threads())
    return [dict(zip(STAT_FIELDS, arr[slot * 8:slot * 8 + 8])) for slot in range(count)]
