"""merge_index_digits: adjacent digits of split-and-fused indices merge into one."""

import numpy as np
import pytest

from tvm import tirx
from tvm.arith.iter_map import merge_index_digits
from tvm.tirx.interpreter import evaluate_expr

f = tirx.Var("f", "int32")
g = tirx.Var("g", "int32")


@pytest.mark.parametrize("expr, expected", [
    (f // 48 * 4 + f % 48 // 12, "f // 12"),
    (f % 12 // 3 * 3 + f % 3, "f % 12"),
    (f // 4 * 4 + f % 4, "f"),
    (g * 16 + f // 48 * 4 + f % 48 // 12 + 1, "g * 16 + f // 12 + 1"),
    (f // 8 * 8 + f % 8 // 2 * 2 + f % 2, "f"),
])
def test_adjacent_digits_merge(expr, expected):
    out = merge_index_digits(expr)
    assert str(out) == expected
    for value in range(0, 200, 7):
        assert evaluate_expr(out, {f: value, g: 3}) == evaluate_expr(expr, {f: value, g: 3})


@pytest.mark.parametrize("expr", [
    f // 48 * 5 + f % 48 // 12,   # wrong scale
    f // 40 * 4 + f % 48 // 12,   # digits not adjacent
    f // 48 * 4 + g % 48 // 12,   # different variables
    f + 1,
])
def test_other_sums_are_kept(expr):
    assert merge_index_digits(expr) is expr or str(merge_index_digits(expr)) == str(expr)


def test_values_agree_on_random_digit_sums():
    rng = np.random.default_rng(0)
    for _ in range(50):
        lo, mid = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        d, m = lo, lo * mid
        expr = f // m * mid + f % m // d
        out = merge_index_digits(expr)
        assert str(out) == f"f // {d}" if d != 1 else str(out) == "f"
        for value in (0, 5, 17, 63):
            assert evaluate_expr(out, {f: value}) == evaluate_expr(expr, {f: value})
