"""Object model speed: construction, field access, structural_equal/hash on a 10k-node tree.

Run: ``python benchmarks/object_model.py``. Reports the best of several repeats per case, in
CPU time of this process (steadier than wall time on a shared machine).
The structural rows cover a 10k-node alpha-renamed function (equal, hash, first mismatch at
its last leaf) and a 5-node expression, the size of most comparisons made while compiling
(the simplifier's "did anything change" checks), where the fixed cost per call dominates.
"""

from __future__ import annotations

import time
import timeit

from tvm.ffi import (
    DEF,
    IGNORE,
    Node,
    field,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
)


class Expr(Node, type_key="bench.Expr"):
    pass


class Var(Expr, type_key="bench.Var"):
    _sequal_kind = "var"
    name: str = field(default="v", role=IGNORE)


class Const(Expr, type_key="bench.Const"):
    value: int


class Add(Expr, type_key="bench.Add"):
    a: Expr
    b: Expr


class Func(Expr, type_key="bench.Func"):
    params: tuple = field(role=DEF)
    body: Expr


def balanced(params, leaves, counter):
    """A balanced tree of Adds with ``leaves`` leaves (parameters and constants)."""
    if leaves == 1:
        counter[0] += 1
        return params[counter[0] % len(params)] if counter[0] % 3 else Const(counter[0])
    half = leaves // 2
    return Add(balanced(params, half, counter), balanced(params, leaves - half, counter))


def make_func(leaves=5000):
    """About 10k nodes: 5000 leaves, 4999 Adds, the Func and its 4 parameters."""
    params = tuple(Var(f"p{i}") for i in range(4))
    return Func(params, balanced(params, leaves, [0]))


def count_nodes(node):
    total, stack = 0, [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Node):
            total += 1
            for name in item._field_names:
                stack.append(getattr(item, name))
        elif isinstance(item, tuple):
            stack.extend(item)
    return total


def with_last_leaf(func, leaf):
    """``func`` with its right-most leaf replaced (the walks meet it last)."""
    spine, node = [], func.body
    while isinstance(node, Add):
        spine.append(node)
        node = node.b
    for parent in reversed(spine):
        leaf = parent.replace(b=leaf)
    return func.replace(body=leaf)


def best(stmt, number, repeat=5):
    timer = timeit.Timer(stmt, timer=time.process_time)
    return min(timer.repeat(number=number, repeat=repeat)) / number


def main():
    x, y = Var("x"), Var("y")
    lhs, rhs = make_func(), make_func()
    nodes = count_nodes(lhs)
    add = Add(x, y)
    last_differs = with_last_leaf(rhs, Const(-1))
    small, small2 = (Add(Add(x, Const(4)), Const(1)) for _ in range(2))  # x * 4 + 1, say
    rows = [
        ("construct Add(x, y)", best(lambda: Add(x, y), 100_000), "per node"),
        ("read field add.a", best(lambda: add.a, 1_000_000), "per read"),
        ("replace(b=x)", best(lambda: add.replace(b=x), 100_000), "per call"),
        (f"build {nodes}-node Func", best(make_func, 5), "per tree"),
        (
            f"structural_equal ({nodes} nodes, alpha-renamed)",
            best(lambda: structural_equal(lhs, rhs), 5),
            "per call",
        ),
        (f"structural_hash ({nodes} nodes)", best(lambda: structural_hash(lhs), 5), "per call"),
        (
            f"first mismatch ({nodes} nodes, last leaf)",
            best(lambda: get_first_structural_mismatch(lhs, last_differs), 5),
            "per call",
        ),
        ("structural_equal (5 nodes)", best(lambda: structural_equal(small, small2), 20_000),
         "per call"),
        ("structural_hash (5 nodes)", best(lambda: structural_hash(small), 20_000), "per call"),
    ]
    assert structural_equal(lhs, rhs) and structural_hash(lhs) == structural_hash(rhs)
    assert structural_equal(small, small2) and get_first_structural_mismatch(lhs, last_differs)
    print(f"{'case':<46}{'time':>12}")
    for name, seconds, unit in rows:
        text = f"{seconds * 1e9:.0f} ns" if seconds < 1e-4 else f"{seconds * 1e3:.2f} ms"
        print(f"{name:<46}{text:>12}  {unit}")


if __name__ == "__main__":
    main()
