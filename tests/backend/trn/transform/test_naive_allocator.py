# ruff: noqa: F841  (TVMScript buffers are named by the assignment, and not read here)
"""``tvm.tirx.trn.transform.TrnNaiveAllocator``: SBUF / shared addresses in program order,
after the buffers that already have one; per-partition sizes from the ``"PF"`` layouts."""

import pytest
from tvm.tirx.trn.transform import TrnNaiveAllocator, sbuf_bytes_per_partition

import tvm
from tvm.script import tirx as T
from tvm.tirx.layout import TileLayout
from tvm.tirx.stmt import AllocBuffer
from tvm.tirx.stmt_functor import post_order_visit


def _addresses(func):
    mod = TrnNaiveAllocator()(tvm.IRModule({"main": func}))
    found = {}

    def visit(node):
        if isinstance(node, AllocBuffer):
            addr = node.buffer.allocated_addr
            found[node.buffer.name] = None if addr is None else int(addr[0].value)

    post_order_visit(mod["main"].body, visit)
    return found


def test_pf_annotation_is_a_trainium_layout():
    @T.prim_func
    def k():
        T.device_entry()
        X = T.alloc_buffer([64, 256], "float16", scope="trn.sbuf", layout="PF")
        Y = T.alloc_buffer([384, 32], "float32", scope="trn.sbuf", layout="PF")
        T.evaluate(0)

    bufs = []
    post_order_visit(k.body, lambda n: bufs.append(n.buffer) if isinstance(n, AllocBuffer)
                     else None)
    x, y = bufs
    assert tvm.ir.structural_equal(x.layout, TileLayout.trainium("PF", (64, 256)))
    # 384 rows: 3 rows per partition, the partition extent stays 128.
    assert int(y.layout.size("P")) == 128
    assert sbuf_bytes_per_partition(x) == 256 * 2
    assert sbuf_bytes_per_partition(y) == 3 * 32 * 4


def test_addresses_in_program_order_after_placed_buffers():
    @T.prim_func
    def k():
        T.device_entry()
        A = T.alloc_buffer([128, 64], "float32", scope="trn.sbuf", layout="PF")
        B = T.alloc_buffer([256, 16], "bfloat16", scope="trn.sbuf", layout="PF",
                           allocated_addr=[100])
        C = T.alloc_buffer([128, 8], "int32", scope="trn.sbuf")  # no layout: dim 0 = P
        G = T.alloc_buffer([4, 4], "float32", scope="global")
        S = T.alloc_buffer([16], "float16", scope="shared")
        T.evaluate(0)

    addr = _addresses(k)
    end_b = 100 + 2 * 16 * 2  # B: 2 rows of 16 bf16 per partition
    assert addr == {"A": end_b, "B": 100, "C": end_b + 64 * 4,
                    "G": None, "S": end_b + 64 * 4 + 8 * 4}


def test_function_without_on_chip_buffers_is_unchanged():
    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    mod = tvm.IRModule({"main": k})
    assert TrnNaiveAllocator()(mod)["main"].same_as(mod["main"])


def test_non_constant_shape_is_rejected():
    @T.prim_func
    def k(n: T.int32):
        T.device_entry()
        A = T.alloc_buffer([128, n], "float32", scope="trn.sbuf")
        T.evaluate(0)

    with pytest.raises(ValueError, match="buffer A has a non-constant shape"):
        TrnNaiveAllocator()(tvm.IRModule({"main": k}))


def test_bad_layout_annotation():
    with pytest.raises(tvm.error.DiagnosticError, match="'P'/'F' annotation, got 'PX'"):
        @T.prim_func
        def k():
            T.device_entry()
            A = T.alloc_buffer([128, 4], "float32", scope="trn.sbuf", layout="PX")
            T.evaluate(0)
