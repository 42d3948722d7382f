"""copy variant ldstmatrix (src/tvm/backend/cuda/tile_primitive/copy/ld_stmatrix.py): register
fragments <-> shared memory with ldmatrix / stmatrix.

The gpu_simulator does not run T.ptx instructions, so the numbers are checked with a model
of the two instructions (PTX ISA 9.7.14.5.15/16): the lowered kernel's row addresses are
evaluated for every thread, the model moves the elements, and the result must put every
element where the layouts (evaluated by ``Layout.apply``, not by the variant) say it goes.
Every kernel is also compiled by nvcc (sm_90a) in one call."""

import sys
from pathlib import Path

import pytest

import tvm
from tvm.arith import Analyzer
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.operator.tile_primitive.dispatcher import TileDispatchError
from tvm.tirx.stmt_functor import post_order_visit, substitute

sys.path.insert(0, str(Path(__file__).parent))
import ldst_kernels as L
import tma_kernels as K

CASES = [(scope, num, d, trans, sw)
         for scope in ("warp", "wg") for num in (1, 2, 4) for d in ("ld", "st")
         for trans in (False, True) for sw in (False, True)
         if not (sw and (scope == "wg" or num != 4))]


def _kernel(scope, num, d, trans, sw):
    if scope == "warp":
        return L.warp_kernel(num, d, trans, sw)
    return L.warpgroup_kernel(num, d, trans)


def _matrix_calls(func):
    """``[(instruction text, word indices, address index expr)]`` in program order."""
    found = []

    def visit(node):
        name = getattr(getattr(node, "op", None), "name", "")
        if name not in ("tirx.ptx.ldmatrix", "tirx.ptx.stmatrix"):
            return
        tokens = [a.value for a in node.args if isinstance(a, tvm.tirx.StringImm)]
        words = [int(a.indices[0]) for a in node.args if isinstance(a, tvm.tirx.BufferLoad)]
        (addr,) = [a for a in node.args
                   if getattr(getattr(a, "op", None), "name", "") == "tirx.cuda.cvta_generic_to_shared"]
        load = addr.args[0].args[0]  # cvta(address_of(view[index]))
        found.append((name.rsplit(".", 1)[1], tokens, words, load.indices[0]))

    post_order_visit(func.body, visit)
    return found


_BINARY = {
    "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mul": lambda a, b: a * b,
    "FloorDiv": lambda a, b: a // b, "FloorMod": lambda a, b: a % b,
    "BitwiseXor": lambda a, b: a ^ b, "BitwiseAnd": lambda a, b: a & b,
    "BitwiseOr": lambda a, b: a | b, "LShift": lambda a, b: a << b,
    "RShift": lambda a, b: a >> b,
}


def _evaluate(expr) -> int:
    """An integer expression without variables (the simplifier leaves XORs unfolded)."""
    if isinstance(expr, tvm.tirx.IntImm):
        return int(expr.value)
    kind = type(expr).__name__
    if kind in _BINARY:
        return _BINARY[kind](_evaluate(expr.a), _evaluate(expr.b))
    if kind == "Cast":
        return _evaluate(expr.value)
    if kind == "Call" and expr.op.name.startswith("tirx.") and len(expr.args) == 2:
        op = {"tirx.bitwise_xor": "BitwiseXor", "tirx.bitwise_and": "BitwiseAnd",
              "tirx.bitwise_or": "BitwiseOr", "tirx.shift_left": "LShift",
              "tirx.shift_right": "RShift"}.get(expr.op.name)
        if op is not None:
            return _BINARY[op](_evaluate(expr.args[0]), _evaluate(expr.args[1]))
    raise TypeError(f"cannot evaluate {kind}: {expr}")


def _thread_vars(func):
    names = {}

    def visit(node):
        if isinstance(node, tvm.tirx.Var) and node.name.startswith("threadIdx"):
            names[node.name] = node

    post_order_visit(func.body, visit)
    return list(names.values())


def _simulate(scope, num, d, trans, sw):
    """Run the model; returns ``(registers[(thread, reg)] -> element, shared[offset] ->
    element)`` after the copy, where each element is its flat index in the tile."""
    func = _kernel(scope, num, d, trans, sw)
    _, dev = K.split(func)
    (kernel,) = dev.functions.values()
    calls = _matrix_calls(kernel)
    tvars = _thread_vars(kernel)
    threads = 32 if scope == "warp" else 128
    rl = L.r_layout(num, scope)
    sl = L.s_layout(num, trans, scope, sw)
    size = 8 * 4 * num * 2 * (1 if scope == "warp" else 4)
    lane_axis = "laneid" if scope == "warp" else "tid_in_wg"
    place = {}  # (thread, reg) -> flat
    where = {}  # flat -> shared offset
    for flat in range(size):
        r = rl.apply(flat)
        place[(int(r[lane_axis]), int(r["m"]))] = flat
        where[flat] = int(sl.apply(flat)["m"])
    analyzer = Analyzer()

    def address(expr, thread):
        value = analyzer.simplify(substitute(expr, {v: tvm.tirx.IntImm(v.dtype, thread)
                                                    for v in tvars}))
        return _evaluate(value)

    regs, smem = {}, {}
    if d == "ld":
        smem = {off: flat for flat, off in where.items()}
    else:
        regs = {key: flat for key, flat in place.items()}
    words = {}  # (thread, word) -> (lo, hi) elements
    if d == "st":
        for (t, reg), flat in place.items():
            words.setdefault((t, reg // 2), [None, None])[reg % 2] = flat
    for kind, tokens, wlist, index in calls:
        n = int(next(t for t in tokens if t.startswith("x"))[1:])
        is_trans = "trans" in tokens
        assert n == len(wlist) and is_trans == trans
        for w0 in range(0, threads, 32):
            rows = [[address(index, w0 + 8 * k + r) for r in range(8)] for k in range(n)]
            for k in range(n):
                assert all(a % 8 == 0 for a in rows[k]), "row addresses are 16-byte aligned"
                for lane in range(32):
                    for h in range(2):
                        off = (rows[k][lane // 4] + 2 * (lane % 4) + h if not is_trans
                               else rows[k][2 * (lane % 4) + h] + lane // 4)
                        if kind == "ldmatrix":
                            words.setdefault((w0 + lane, wlist[k]), [None, None])[h] = smem[off]
                        else:
                            smem[off] = words[(w0 + lane, wlist[k])][h]
    if d == "ld":
        regs = {(t, 2 * j + h): v[h] for (t, j), v in words.items() for h in range(2)}
    return place, where, regs, smem


def test_registered():
    assert "ldstmatrix" in list_registered_schedules()["tirx.tile.copy"]["cuda"]


@pytest.mark.parametrize("scope, num, d, trans, sw", CASES)
def test_fragment_round_trip_model(scope, num, d, trans, sw):
    place, where, regs, smem = _simulate(scope, num, d, trans, sw)
    if d == "ld":
        assert regs == place  # every register holds the element its layout assigns it
    else:
        assert {off: smem[off] for off in where.values()} == \
            {off: flat for flat, off in where.items()}


def test_instruction_counts_and_forms():
    _, dev = K.split(L.warp_kernel(4, "ld", True, True))
    calls = _matrix_calls(next(iter(dev.functions.values())))
    assert [(k, w) for k, _, w, _ in calls] == [("ldmatrix", [0, 1, 2, 3])]
    assert "trans" in calls[0][1]
    _, dev = K.split(L.warp_kernel(2, "st", False))
    calls = _matrix_calls(next(iter(dev.functions.values())))
    assert [(k, w) for k, _, w, _ in calls] == [("stmatrix", [0, 1])]


def test_stmatrix_needs_sm90():
    with pytest.raises(TileDispatchError, match="stmatrix needs sm_90 or newer"):
        K.split(L.warp_kernel(1, "st", False), arch="sm_80")


def test_rejects_fragment_not_in_ldmatrix_order():
    from tvm.script.tirx import tile as Tx

    from tvm.script import tirx as T
    from tvm.tirx.layout import S, TileLayout, laneid

    # each lane holds two elements of one column: not a ldmatrix fragment
    rl = TileLayout(S[(2, 32):(1, 1 @ laneid)])

    @T.prim_func
    def column_pairs(A: T.Buffer((2, 32), "float16")):
        T.device_entry()
        T.cta_id([1])
        T.lane_id([32])
        T.thread_id([32])
        S_ = T.alloc_buffer((2, 32), "float16", scope="shared")
        R = T.alloc_buffer((2, 32), "float16", scope="local", layout=rl)
        Tx.warp.copy(R[:, :], S_[:, :])

    with pytest.raises(TileDispatchError, match="not in ldmatrix order"):
        K.split(column_pairs)


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
def test_kernels_compile_with_nvcc():
    sources = [K.device_source(_kernel(*case)) for case in CASES]
    assert compile_many(sources, "sm_90a")
