"""Benchmark: parse and print a ~500-line TIRx GEMM-style kernel (target: under 0.5 s each).

Run: ``python benchmarks/tirx_script.py [--stages 48] [--tvm-python /opt/tvm-oracle/bin/python]``.
The kernel is generated text (device entry, scope ids, shared/local buffers with layouts,
``Tx.cta.copy`` tile primitives, ``T.ptx`` mbarrier calls, ``T.cuda`` barriers and an
unrolled multiply-accumulate per pipeline stage), so its length scales with ``--stages``.
With ``--tvm-python``, the same text is parsed and printed by that interpreter's ``tvm``
(Apache TVM) in a subprocess, side by side. Best of ``--repeat`` runs each.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

_HEAD = '''\
@T.prim_func
def gemm(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (1024, 1024), "float16")
    B = T.match_buffer(b, (1024, 1024), "float16")
    C = T.match_buffer(c, (1024, 1024), "float32")
    T.device_entry()
    bx, by = T.cta_id([8, 8])
    warp = T.warp_id([4])
    lane = T.lane_id([32])
    tx = T.thread_id([128])
    A_smem = T.alloc_shared((128, 64), "float16")
    B_smem = T.alloc_shared((64, 128), "float16")
    bar = T.alloc_shared((2,), "uint64")
    acc = T.alloc_local((64,), "float32")
    for i in T.serial(64):
        acc[i] = T.float32(0)
    if tx == 0:
        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), 128)
        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[1]), 128)
    T.cuda.cta_sync()
'''

_STAGE = '''\
    Tx.cta.copy(A_smem[0:128, 0:64], A[bx * 128:bx * 128 + 128, {k}:{k} + 64])
    Tx.cta.copy(B_smem[0:64, 0:128], B[{k}:{k} + 64, by * 128:by * 128 + 128])
    T.ptx.mbarrier.arrive.shared__cta.b64(T.address_of(bar[{s}]))
    T.cuda.cta_sync()
    for kk in T.serial(64):
        for j in T.unroll(8):
            acc[j * 8 + lane % 8] = acc[j * 8 + lane % 8] + T.Cast("float32", A_smem[warp * 32 + lane, kk]) * T.Cast("float32", B_smem[kk, j * 16 + lane % 16])
    if warp == 0:
        T.ptx.mbarrier.arrive.shared__cta.b64(T.address_of(bar[{s}]))
    T.cuda.cta_sync()
'''

_TAIL = '''\
    for i in T.serial(64):
        C[bx * 128 + warp * 32 + lane, by * 128 + i] = acc[i]
'''

# Runs in this interpreter or in --tvm-python's: parse, print, report the best times as JSON.
_MEASURE = r'''
import json, sys, time
import tvm
from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
src = sys.stdin.read()
repeat = int(sys.argv[1])
def best(fn):
    out, t = None, float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - start)
    return out, t
extra = {"T": T, "Tx": Tx}
func, parse_s = best(lambda: tvm.script.from_source(src, extra_vars=extra))
text, print_s = best(lambda: func.script())
print(json.dumps({"tvm": tvm.__file__, "parse_s": parse_s, "print_s": print_s,
                  "printed_lines": text.count("\n")}))
'''


def kernel_source(stages: int) -> str:
    """The kernel's TVMScript text with ``stages`` pipeline stages (10 lines each)."""
    body = "".join(_STAGE.format(k=64 * i, s=i % 2) for i in range(stages))
    return _HEAD + body + _TAIL


def run(python: str, source: str, repeat: int) -> dict:
    proc = subprocess.run([python, "-c", _MEASURE, str(repeat)], input=source, text=True,
                          capture_output=True, timeout=600, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__))
    parser.add_argument("--stages", type=int, default=48)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tvm-python", default=None, help="an interpreter with Apache TVM")
    args = parser.parse_args()
    source = kernel_source(args.stages)
    print(f"kernel: {source.count(chr(10))} lines of TVMScript, best of {args.repeat}")
    rows = [("pytvm", run(sys.executable, source, args.repeat))]
    if args.tvm_python:
        rows.append(("Apache TVM", run(args.tvm_python, source, args.repeat)))
    for name, result in rows:
        if "error" in result:
            print(f"{name:<12} error: {result['error']}")
            continue
        print(f"{name:<12} parse {result['parse_s']:.3f} s   print {result['print_s']:.3f} s"
              f"   ({result['printed_lines']} printed lines)")


if __name__ == "__main__":
    main()
