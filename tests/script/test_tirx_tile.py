"""``Tx`` tile primitives in TVMScript: building, printing as Apache TVM 0.27, round trips.

The expected lines were checked against Apache TVM 0.27's printer.
"""

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import from_source
from tvm.script import tirx as T


def _roundtrip(func):
    code = func.script()
    again = from_source(code)
    assert again.script() == code
    assert_structural_equal(func, again)
    return code


def _lines(code):
    return [line.strip() for line in code.splitlines()]


def test_memset_prints_dispatch_then_sorted_config():
    @T.prim_func
    def test():
        A = T.alloc_buffer((16,), "float32")
        Tx.memset(A[0:16], T.float32(1.25), dispatch="v10", foo=42, bar=7)

    code = _roundtrip(test)
    assert code == (
        "# from tvm.script import tirx as T\n"
        "# from tvm.tirx.layout import Axis\n\n"
        "@T.prim_func\n"
        "def test():\n"
        "    A = T.alloc_buffer((16,))\n"
        '    T.tile.memset(A[0:16], T.float32(1.25), dispatch="v10", bar=7, foo=42)'
    )


@T.prim_func
def _kernel(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, [64, 64], "float16", scope="global")
    A_smem = T.alloc_buffer([64, 64], dtype="float16", scope="shared")
    C = T.alloc_buffer([64], dtype="float16", scope="local")
    Tx.cta.copy(A_smem, A)
    Tx.wg.exp2(A_smem[0:8, 0:8])
    Tx.warpgroup.exp2(A_smem[0:8, 0:8], A_smem[8:16, 0:8])
    Tx.warp.fill(A_smem[0:8, 0:8], T.float16(0))
    Tx.cluster.add(A_smem, A_smem, T.float16(1), workspace={"z": C, "a": A}, hint="x")
    Tx.permute_layout(A_smem, A_smem)
    Tx.exp(A_smem, A, None, 2.0)
    Tx.cast(A[0], A_smem[0:1, 0:64])
    Tx.select(A, A_smem, 1.0, lambda i, j: i < j)
    Tx.cta.gemm(A_smem, A_smem, A_smem, A_smem, True, False, 1.0, 0.0)
    Tx.sum(A[0:64, 0:1], A, axes=[1])
    Tx.gemm_async(A_smem, A_smem, A_smem, accum=True, dispatch="tcgen05", cta_group=2)
    Tx.binary_reduce(A, A[0:64, 0:1], A, A_smem, "add", "sum", reduce_axes=1)
    Tx.reduce_negate(A[0:64, 0:1], A, "max")
    Tx.copy_async(A_smem, A, mbar=A_smem[0, 0], dispatch="tma_auto")
    for i in range(4):
        Tx.fill(C[i * 4:i * 4 + 4], T.float16(i))


def test_scope_prefixes_and_operand_forms_print_as_0_27():
    lines = _lines(_roundtrip(_kernel))
    expected = [
        "T.cta.copy(A_smem[0:64, 0:64], A[0:64, 0:64])",
        "T.wg.exp2(A_smem[0:8, 0:8])",
        "T.wg.exp2(A_smem[0:8, 0:8], A_smem[8:16, 0:8])",
        "T.warp.fill(A_smem[0:8, 0:8], T.float16(0.0))",
        ('T.cluster.add(A_smem[0:64, 0:64], A_smem[0:64, 0:64], T.float16(1.0), '
        'workspace={"a": A, "z": C}, hint="x")'),
        "T.tile.permute_layout(A_smem[0:64, 0:64])",
        "T.tile.exp(A_smem[0:64, 0:64], A[0:64, 0:64], None, T.float32(2.0))",
        "T.tile.cast(A[0, 0:64], A_smem[0, 0:64])",
        "T.tile.select(A[0:64, 0:64], A_smem[0:64, 0:64], T.float32(1.0), lambda i, j: i < j)",
        ("T.cta.gemm(A_smem[0:64, 0:64], A_smem[0:64, 0:64], A_smem[0:64, 0:64], "
        "A_smem[0:64, 0:64], True, False, T.float32(1.0), T.float32(0.0))"),
        "T.tile.sum(A[0:64, 0], A[0:64, 0:64], [1], False)",
        ("T.tile.gemm_async(A_smem[0:64, 0:64], A_smem[0:64, 0:64], A_smem[0:64, 0:64], False, "
        'False, True, dispatch="tcgen05", cta_group=2)'),
        ("T.tile.binary_reduce(A[0:64, 0:64], A[0:64, 0], A[0:64, 0:64], A_smem[0:64, 0:64], "
        'I.Op("tirx.tile.add"), I.Op("tirx.tile.sum"), [1])'),
        'T.tile.reduce_negate(A[0:64, 0], A[0:64, 0:64], [-1], False, I.Op("tirx.tile.max"))',
        ('T.tile.copy_async(A_smem[0:64, 0:64], A[0:64, 0:64], dispatch="tma_auto", '
        "mbar=A_smem[0, 0])"),
        "T.tile.fill(C[i * 4:i * 4 + 4], T.Cast(\"float16\", i))",
    ]
    for line in expected:
        assert line in lines, line
    assert "# from tvm.script import ir as I" in lines


def test_compose_op_groups_calls():
    @T.prim_func
    def test():
        A = T.alloc_buffer([10], "float32")
        B = T.alloc_buffer([10], "float32")
        ws = T.alloc_buffer([10], "float32")
        with Tx.compose_op(workspace={"w": ws}, schedule="A"):
            Tx.add(B, A, T.float32(1))
            Tx.add(A, B, T.float32(1))
        with Tx.cta.compose_op():
            Tx.mul(B, A, T.float32(2))

    code = _roundtrip(test)
    assert 'with T.tile.compose_op(workspace={"w": ws}, schedule="A"):' in code
    assert "with T.cta.compose_op():" in code
    group = test.body.seq[3]
    assert group.op.name == "tirx.tile.compose_op" and len(group.args) == 2
    assert group.config == {"schedule": "A"}


def test_compose_op_takes_only_tile_calls():
    with pytest.raises(tvm.error.DiagnosticError, match="Only tile primitive calls"):
        @T.prim_func
        def bad():
            A = T.alloc_buffer([10], "float32")
            with Tx.compose_op():
                A[0] = T.float32(1)


def test_scalar_operand_is_a_type_error_naming_the_scalar_form():
    with pytest.raises(tvm.error.DiagnosticError,
                       match=r"Tx.exp is tile-only.*use T\.exp for scalar expressions"):
        @T.prim_func
        def bad(x: T.float32):
            Tx.exp(x)


def test_copy_regions_must_match():
    with pytest.raises(tvm.error.DiagnosticError, match="copy operands must cover the same"):
        @T.prim_func
        def bad():
            A = T.alloc_buffer([16, 16], "float32")
            B = T.alloc_buffer([16, 16], "float32")
            Tx.copy(A[0:8, 0:8], B[0:4, 0:8])


def test_unknown_names_and_scopes():
    with pytest.raises(AttributeError, match="Tx.cta.transpose is not a tile primitive"):
        Tx.cta.transpose  # noqa: B018
    with pytest.raises(AttributeError, match="Tx.transpose is not a tile primitive"):
        Tx.transpose  # noqa: B018


def test_gemm_async_scale_factors_come_in_pairs():
    A = tvm.tirx.decl_buffer((64, 64), "float16", scope="shared")
    SF = tvm.tirx.decl_buffer((64,), "float16", scope="shared")
    with pytest.raises(ValueError, match="SFA and SFB must both be provided"):
        Tx.gemm_async(A, A, A, SFA=SF)


def test_t_namespaces_match_tx():
    assert T.tile is Tx
    assert T.cta is Tx.cta and T.wg is Tx.wg and T.warp is Tx.warp and T.cluster is Tx.cluster
