"""Relax annotation proxies (``tvm.script.parser.relax.entry.TensorProxy``...) as values."""

import pytest

import tvm
from tvm import relax
from tvm.script import relax as R
from tvm.script.parser.relax import entry
from tvm.script.parser.relax.types import as_type

BARE = [
    (entry.AnyProxy, relax.ObjectType()),
    (entry.TensorProxy, relax.TensorType(None, "void")),
    (entry.CallableProxy, relax.FuncType.opaque_func(purity=False)),
    (entry.TupleProxy, relax.TupleType([])),
    (entry.ShapeProxy, relax.ShapeType(None)),
]


@pytest.mark.parametrize("proxy, expected", BARE, ids=lambda p: getattr(p, "__name__", ""))
def test_proxy_class_in_match_cast(proxy, expected):
    @R.function
    def func(A: R.Any):
        B = R.match_cast(A, proxy)
        return B

    from_proxy = func

    @R.function
    def func(A: R.Any):
        B = R.match_cast(A, expected)
        return B

    # Text, not structural equality: an empty tuple's var is re-normalised to ``R.tuple()``.
    assert from_proxy.script() == func.script()
    assert tvm.ir.structural_equal(from_proxy.body.blocks[0].bindings[0].ty, expected)
    text = from_proxy.script()
    assert tvm.script.from_source(text).script() == text


def test_proxy_instance_calls_the_constructor():
    ty = entry.TensorProxy()([2, 3], "float32")
    tvm.ir.assert_structural_equal(ty, R.Tensor([2, 3], "float32"))
    assert isinstance(entry.ObjectProxy(), entry.AnyProxy)
    tvm.ir.assert_structural_equal(as_type(entry.PrimProxy()("int64")), R.Prim("int64"))
    assert issubclass(entry.ShapeProxy, entry.TypeProxy)


def test_prim_proxy_has_no_bare_form():
    with pytest.raises(TypeError, match="dtype or a value"):
        as_type(entry.PrimProxy)
