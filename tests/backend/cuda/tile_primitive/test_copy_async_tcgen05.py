"""copy_async variant tmem<->local (src/tvm/backend/cuda/tile_primitive/copy_async/tcgen05.py):
tcgen05.ld / tcgen05.st ``.32x32b`` between tensor memory and a warpgroup's registers.

Compile-only (sm_100a, nvcc): there is no Blackwell GPU here and the gpu_simulator does not
model tensor memory. The instruction forms and the TMEM addresses are checked on the
lowered kernel (each warp's lane quarter in bits 16..31, the column in bits 0..15)."""

import sys
from pathlib import Path

import pytest

import tvm
from tvm.arith import Analyzer
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.tirx.operator.tile_primitive.dispatcher import TileDispatchError
from tvm.tirx.stmt_functor import post_order_visit, substitute

sys.path.insert(0, str(Path(__file__).parent))
import tma_kernels as K
import tmem_kernels as M


def _tcgen05_calls(func):
    found = []

    def visit(node):
        if getattr(getattr(node, "op", None), "name", "") != "tirx.ptx.tcgen05":
            return
        tokens = [a.value for a in node.args if isinstance(a, tvm.tirx.StringImm)]
        if tokens[0] not in ("ld", "st"):
            return
        operands = [a for a in node.args if not isinstance(a, tvm.tirx.StringImm)]
        addr = operands[-1] if tokens[0] == "ld" else operands[0]
        found.append((tokens[0], next(t for t in tokens if t.startswith("x")), addr,
                      len(operands) - 1))

    post_order_visit(func.body, visit)
    return found


def _binds(func):
    """The kernel's ``Bind`` values by variable (``warp_id_in_cta``'s shuffle replaced by
    ``threadIdx.x // 32``, what it computes)."""
    out = {}

    def visit(node):
        if isinstance(node, tvm.tirx.Bind):
            value = node.value
            if getattr(getattr(value, "op", None), "name", "") == "tirx.tvm_warp_shuffle":
                value = value.args[1]
            out[node.var] = value

    post_order_visit(func.body, visit)
    return out


def _addr_at(func, expr, thread, base):
    """The TMEM address for warpgroup thread ``thread`` when tcgen05.alloc gave ``base``."""
    binds = _binds(func)
    for _ in range(4):  # binds refer to earlier binds
        expr = substitute(expr, binds)
    threads = {}
    post_order_visit(expr, lambda n: threads.setdefault(n.name, n)
                     if isinstance(n, tvm.tirx.Var) else None)
    expr = substitute(expr, {v: tvm.tirx.IntImm(v.dtype, thread) for name, v in threads.items()
                             if name.startswith("threadIdx")})

    def load(node):
        if isinstance(node, tvm.tirx.BufferLoad) and node.buffer.name.startswith("tmem_addr"):
            return tvm.tirx.IntImm("uint32", base)
        return None

    expr = tvm.tirx.stmt_functor.ir_transform(tvm.tirx.Evaluate(expr), None, load,
                                              ["tirx.BufferLoad"]).value
    return int(Analyzer().simplify(expr))


@pytest.mark.parametrize("n, col0, chunks", [(32, 0, ["x32"]), (8, 16, ["x8"]),
                                             (200, 0, ["x128", "x64", "x8"])])
def test_round_trip_instructions_and_addresses(n, col0, chunks):
    _, dev = K.split(M.tmem_round_trip(n, col0), arch="sm_100a")
    func = next(iter(dev.functions.values()))
    calls = _tcgen05_calls(func)
    assert [(k, x) for k, x, _, _ in calls] == [("st", x) for x in chunks] + \
        [("ld", x) for x in chunks]
    assert [r for *_, r in calls] == [int(x[1:]) for x in chunks] * 2
    base = 0x0004_0000  # a TMEM address as tcgen05.alloc writes it (lane 4, column 0)
    offsets = [0]
    for x in chunks[:-1]:
        offsets.append(offsets[-1] + int(x[1:]))
    for (_, _, addr, _), off in zip(calls, offsets * 2):
        for thread in (0, 31, 32, 77, 127):
            assert _addr_at(func, addr, thread, base) == base + ((thread // 32) * 32 << 16) + col0 + off


def test_rejects_hopper_target():
    with pytest.raises(TileDispatchError, match="tcgen05.ld/st needs sm_100a, the target is sm_90a"):
        K.split(M.tmem_round_trip(8), arch="sm_90a")


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
def test_kernels_compile_with_nvcc_sm100a():
    sources = [K.device_source(M.tmem_round_trip(n, c), "sm_100a")
               for n, c in ((32, 0), (8, 16), (200, 0))]
    assert compile_many(sources, "sm_100a")
    assert all("tcgen05.ld.sync.aligned.32x32b.x" in s for s in sources)
