"""Benchmark: print a Relax module with 10,000 bindings as TVMScript (target: under 2 s).

Run: ``python benchmarks/printer.py [--bindings N]``. Reports bindings per second for plain
printing and for printing with one underlined path (the error-enrichment case).
"""

from __future__ import annotations

import argparse
import time

from tvm_ffi.access_path import AccessPath

from tvm import relax
from tvm.ir import IRModule
from tvm.relax import op


def make_module(n_bindings: int) -> IRModule:
    """A function ``main(x, y)`` with a chain of ``n_bindings`` adds in one dataflow block."""
    ty = relax.TensorType([3, 3], "float32")
    x, y = relax.Var("x", ty), relax.Var("y", ty)
    bindings, prev = [], x
    for i in range(n_bindings):
        var = relax.DataflowVar(f"lv{i}", ty) if i + 1 < n_bindings else relax.Var("out", ty)
        bindings.append(relax.VarBinding(var, op.add(prev, y)))
        prev = var
    body = relax.SeqExpr([relax.DataflowBlock(bindings)], prev)
    main = relax.Function([x, y], body, ty, attrs={"global_symbol": "main"})
    return IRModule({"main": main})


def measure(fn, repeat=3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bindings", type=int, default=10_000)
    args = parser.parse_args()
    mod = make_module(args.bindings)
    path = (AccessPath.root().attr("functions").map_item("main").attr("body").attr("blocks")
            .array_item(0).attr("bindings").array_item(args.bindings // 2).attr("value"))
    rows = [
        ("print", measure(lambda: mod.script())),
        ("print + underline", measure(
            lambda: mod.script(path_to_underline=[path], num_context_lines=10))),
    ]
    for name, seconds in rows:
        rate = args.bindings / seconds
        print(f"{name:<20} {seconds:7.3f} s  {rate:12,.0f} bindings/s")


if __name__ == "__main__":
    main()
