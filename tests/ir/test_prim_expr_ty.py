"""``PrimExpr.ty``: the type of a TIR expression (as in Apache TVM 0.27)."""

import tvm
from tvm import tirx
from tvm.ir import PointerType, PrimType


def test_ty_of_scalars_is_their_prim_type():
    x = tirx.Var("x", "int32")
    assert tvm.ir.structural_equal(x.ty, PrimType("int32"))
    assert tvm.ir.structural_equal((x + 1).ty, PrimType("int32"))
    assert tvm.ir.structural_equal(tirx.FloatImm("float16", 1.0).ty, PrimType("float16"))


def test_ty_of_a_pointer_variable_is_its_annotation():
    ptr_type = PointerType(PrimType("float32"), "shared")
    p = tirx.Var("p", ptr_type)
    assert p.ty is p.type_annotation
    assert p.ty.storage_scope == "shared"
