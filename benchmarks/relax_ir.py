"""Relax IR speed: bindings per second for each stage on a 10,000-binding module.

Run: ``python benchmarks/relax_ir.py [--bindings N] [--repeat R]``.

Each stage is a function ``stage(ctx) -> None`` registered in :data:`STAGES`; ``ctx`` is a
dict holding what earlier stages produced (``ctx["mod"]``: the module built through the
BlockBuilder, ``ctx["copy"]``: a second, independently built copy). Later work adds its own
stages (``print``, ``parse``) with :func:`stage`; each stage gets one column in the report.
Target (issue 3): every stage finishes 10,000 bindings in under 2 seconds.
"""

from __future__ import annotations

import argparse
import time

STAGES: dict = {}


def stage(name):
    """Register ``fn(ctx)`` as the benchmark stage ``name`` (run in registration order)."""

    def register(fn):
        STAGES[name] = fn
        return fn

    return register


def build_module(num_bindings: int):
    """A ``main`` with ``num_bindings`` elementwise bindings in one dataflow block."""
    from tvm import relax
    from tvm.relax import op

    x = relax.Var("x", relax.TensorType([4, 8], "float32"))
    y = relax.Var("y", relax.TensorType([4, 8], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            cur = x
            for i in range(num_bindings - 1):
                cur = bb.emit(op.add(cur, y) if i % 2 else op.multiply(cur, x))
            out = bb.emit_output(cur)
        bb.emit_func_output(out)
    return bb.get()


@stage("BlockBuilder.normalize")
def _build(ctx):
    ctx["mod"] = build_module(ctx["n"])


@stage("structural_equal")
def _equal(ctx):
    import tvm

    if "copy" not in ctx:
        ctx["copy"] = build_module(ctx["n"])
    start = time.perf_counter()
    assert tvm.ir.structural_equal(ctx["mod"], ctx["copy"])
    return time.perf_counter() - start  # the copy's construction is not timed


@stage("structural_hash")
def _hash(ctx):
    import tvm

    start = time.perf_counter()
    value = tvm.ir.structural_hash(ctx["mod"])
    elapsed = time.perf_counter() - start  # one module hashed; the check below is not timed
    if "copy" in ctx:
        assert value == tvm.ir.structural_hash(ctx["copy"])
    return elapsed


@stage("ExprMutator")
def _mutate(ctx):
    from tvm import relax
    from tvm.ir import Op
    from tvm.relax import op

    class AddToMultiply(relax.PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op is Op.get("relax.add"):
                return op.multiply(*call.args)
            return call

    func = ctx["mod"]["main"]
    new = AddToMultiply().visit_expr(func)
    assert new is not func


@stage("parse")
def _parse(ctx):
    import tvm

    if "text" not in ctx:
        ctx["text"] = ctx["mod"].script()  # printing is not part of this stage's time
    start = time.perf_counter()
    parsed = tvm.script.from_source(ctx["text"])
    elapsed = time.perf_counter() - start
    assert len(parsed["main"].body.blocks[0].bindings) == ctx["n"]
    return elapsed


def run(num_bindings: int = 10_000, repeat: int = 3) -> dict:
    """Best-of-``repeat`` seconds per stage."""
    import tvm  # noqa: F401 - import cost is not part of any stage

    results = {}
    ctx = {"n": num_bindings}
    for name, fn in STAGES.items():
        best = None
        for _ in range(repeat):
            start = time.perf_counter()
            inner = fn(ctx)
            elapsed = inner if isinstance(inner, float) else time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        results[name] = best
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    results = run(args.bindings, args.repeat)
    width = max(len(n) for n in results)
    print(f"{'stage':<{width}}  {'seconds':>8}  {'bindings/s':>12}  (n={args.bindings})")
    for name, seconds in results.items():
        flag = "" if seconds < 2.0 else "  SLOWER THAN 2 s"
        print(f"{name:<{width}}  {seconds:8.3f}  {args.bindings / seconds:12,.0f}{flag}")


if __name__ == "__main__":
    main()
