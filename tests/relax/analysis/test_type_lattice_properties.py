"""Lattice laws of the Relax types, checked on random types (hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tvm import relax
from tvm.relax.analysis import (
    BaseCheckResult,
    erase_to_well_defined,
    get_static_type,
    is_base_of,
    struct_info_base_check,
    struct_info_lca,
)
from tvm.tirx.expr import Var as TirVar

N = TirVar("n", "int64")
DIMS = st.one_of(st.sampled_from([1, 2, 3]), st.just(N))


def _tensor(draw_shape, dtype, ndim_only):
    if ndim_only is not None:
        return relax.TensorType(None, dtype, ndim=ndim_only)
    return relax.TensorType(draw_shape, dtype)


TENSORS = st.builds(
    _tensor,
    st.lists(DIMS, min_size=0, max_size=3),
    st.sampled_from(["float32", "int32", "void"]),
    st.one_of(st.none(), st.sampled_from([-1, 1, 2])),
)
SHAPES = st.one_of(
    st.builds(relax.ShapeType, st.lists(DIMS, max_size=3)),
    st.builds(lambda n: relax.ShapeType(ndim=n), st.sampled_from([-1, 0, 2])),
)
LEAVES = st.one_of(
    TENSORS,
    SHAPES,
    st.builds(relax.PrimType, st.sampled_from(["int64", "float32"])),
    st.just(relax.ObjectType()),
)
TYPES = st.recursive(
    LEAVES, lambda inner: st.builds(relax.TupleType, st.lists(inner, max_size=3)), max_leaves=6
)


@settings(max_examples=60, deadline=None)
@given(TYPES)
def test_reflexive_and_top(ty):
    assert is_base_of(ty, ty)
    assert is_base_of(relax.ObjectType(), ty)


@settings(max_examples=60, deadline=None)
@given(TYPES, TYPES)
def test_lca_is_a_common_base(a, b):
    lca = struct_info_lca(a, b)
    assert is_base_of(lca, a)
    assert is_base_of(lca, b)


@settings(max_examples=60, deadline=None)
@given(TYPES)
def test_coarsening_gives_bases(ty):
    assert is_base_of(erase_to_well_defined(ty), ty)
    assert is_base_of(get_static_type(ty), ty)


@settings(max_examples=60, deadline=None)
@given(TYPES, TYPES)
def test_base_check_result_is_consistent(a, b):
    result = struct_info_base_check(a, b)
    assert isinstance(result, BaseCheckResult)
    if result == BaseCheckResult.PASS and struct_info_base_check(b, a) == BaseCheckResult.PASS:
        # Mutual bases are the same type up to symbolic equality: the LCA is one of them.
        assert is_base_of(struct_info_lca(a, b), a)
