"""Compile time of one long fusable elementwise chain (issue 22, defect 5).

Usage::

    python benchmarks/compile_chain.py [--sizes 250,500,1000,2000,5000,10000,20000]
                                       [--max-bindings N] [--timeout S] [--inline-only]

Each workload is a Relax function of ``n`` bindings ``x_{k+1} = x_k * 1.0001 + 0.5`` alternating
``R.add`` and ``R.multiply`` on a ``(16, 16)`` float32 tensor: FuseOps fuses the whole chain into
one function, and the default schedule inlines ``n - 1`` producers into the last nest. Each
size runs in a fresh process (``tvm.compile`` with the default pipeline, ``llvm``, the disk
cache off). Reported per size: seconds, and seconds per 1,000 bindings (flat when the
compile time is linear in ``n``). ``--max-bindings`` drops the sizes above it (CI and slow
machines). ``--inline-only`` times the default schedule's producer inlining alone
(``inline_producers``) on one PrimFunc of ``n`` such nests, one group however long (FuseOps'
``max_depth`` bounds the groups of a real compile), and checks that one nest is left.
Figures: docs/arch/reliability.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

_WORKER = textwrap.dedent('''
    import json, sys, time
    n = int(sys.argv[1])
    import numpy as np
    import tvm
    from tvm import relax
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType([16, 16], "float32"))
    one = relax.const(np.float32(1.0001))
    half = relax.const(np.float32(0.5))
    with bb.function("main", [x]):
        with bb.dataflow():
            v = x
            for k in range(n):
                v = bb.emit(relax.op.multiply(v, one) if k % 2 else relax.op.add(v, half))
            out = bb.emit_output(v)
        bb.emit_func_output(out)
    mod = bb.get()
    start = time.perf_counter()
    ex = tvm.compile(mod, target="llvm")
    seconds = time.perf_counter() - start
    vm = relax.VirtualMachine(ex, tvm.cpu())
    got = vm["main"](tvm.runtime.tensor(np.zeros((16, 16), "float32"))).numpy()
    want = np.zeros((16, 16), "float32")
    for k in range(n):
        want = want * np.float32(1.0001) if k % 2 else want + np.float32(0.5)
    ok = bool(np.allclose(got, want, rtol=1e-4))
    print(json.dumps({"bindings": n, "seconds": seconds, "correct": ok}))
''')

_INLINE_WORKER = textwrap.dedent('''
    import json, sys, time
    n = int(sys.argv[1])
    import tvm
    from tvm.s_tir.default_schedule import _flat_stmts
    from tvm.s_tir.default_schedule_inline import inline_producers
    from tvm.script import from_source
    from tvm.tirx.stmt import AllocBuffer
    lines = ["@T.prim_func(s_tir=True)",
             'def main(x: T.Buffer((16, 16), "float32"), y: T.Buffer((16, 16), "float32")):']
    lines += [f'    t{k} = T.alloc_buffer((16, 16), "float32")' for k in range(n - 1)]
    for k in range(n):
        src, dst = ("x" if k == 0 else f"t{k - 1}"), ("y" if k == n - 1 else f"t{k}")
        op = "* T.float32(1.0001)" if k % 2 else "+ T.float32(0.5)"
        lines += ["    for i, j in T.grid(16, 16):", f'        with T.sblock("s{k}"):',
                  '            vi, vj = T.axis.remap("SS", [i, j])',
                  f"            {dst}[vi, vj] = {src}[vi, vj] {op}"]
    func = from_source("\\n".join(lines) + "\\n", extra_vars={"T": tvm.script.tirx})
    stmts = _flat_stmts(func.body.block.body)
    allocated = [s.buffer for s in stmts if isinstance(s, AllocBuffer)]
    start = time.perf_counter()
    got, _ = inline_producers(stmts, allocated)
    seconds = time.perf_counter() - start
    ok = sum(not isinstance(s, AllocBuffer) for s in got) == 1
    print(json.dumps({"bindings": n, "seconds": seconds, "correct": ok}))
''')


def run(n: int, timeout: float, worker: str = _WORKER) -> dict:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        env["PYTVM_CACHE_DIR"] = cache  # a fresh cache: the compile is not a cache hit
        proc = subprocess.run([sys.executable, "-c", worker, str(n)], capture_output=True,
                              text=True, env=env, timeout=timeout, check=False)
    if proc.returncode != 0:
        return {"bindings": n, "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="250,500,1000,2000,5000,10000,20000")
    ap.add_argument("--max-bindings", type=int, default=None,
                    help="skip sizes above this many bindings")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per size")
    ap.add_argument("--inline-only", action="store_true",
                    help="time inline_producers alone on one group of n nests")
    args = ap.parse_args()
    worker = _INLINE_WORKER if args.inline_only else _WORKER
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.max_bindings is not None:
        sizes = [n for n in sizes if n <= args.max_bindings]
    print(f"{'bindings':>9} {'seconds':>9} {'s/1000':>8} correct")
    for n in sizes:
        row = run(n, args.timeout, worker)
        if "error" in row:
            print(f"{n:>9} error: {row['error']}")
            continue
        per = row["seconds"] / n * 1000
        print(f"{n:>9} {row['seconds']:>9.2f} {per:>8.2f} {row['correct']}", flush=True)


if __name__ == "__main__":
    main()
