"""Property tests of the layout algebra (tvm.tirx.layout) against a brute-force model.

The model evaluates ``L(x) = D(x) + O`` directly: split ``x`` row-major over the shard
extents (the first iter takes the high digits) and add ``digit * stride`` on each axis.
"""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tvm
from tvm.tirx.layout import Axis, ComposeLayout, Iter, TileLayout

AXES = ["m", "m", "m", "laneid", "F"]


def model(shard, offset, x):
    """{axis name: value} of the layout for the flat index ``x`` (brute force)."""
    out = {}
    rest = x
    digits = []
    for k in range(len(shard) - 1, -1, -1):
        extent = shard[k][0]
        digits.append(rest % extent if k > 0 else rest)
        rest //= extent
    digits.reverse()
    for (_extent, stride, axis), digit in zip(shard, digits):
        out[axis] = out.get(axis, 0) + digit * stride
    for axis, value in offset.items():
        out[axis] = out.get(axis, 0) + value
    return {a: v for a, v in out.items() if v}


def build(shard, offset=None):
    return TileLayout.from_iters([Iter(e, s, a) for e, s, a in shard], [], offset or {})


def values(layout, *coords, shape=None):
    return {k: int(v) for k, v in layout.apply(*coords, shape=shape).items() if int(v)}


def size_of(shard):
    return int(np.prod([e for e, _s, _a in shard]))


iter_st = st.tuples(st.sampled_from([1, 2, 3, 4, 8]), st.sampled_from([0, 1, 2, 3, 4, 8, 16, 64]),
                    st.sampled_from(AXES))
shard_st = st.lists(iter_st, min_size=1, max_size=4)
mem_iter_st = st.tuples(st.sampled_from([1, 2, 3, 4]), st.sampled_from([0, 1, 2, 4, 8]),
                        st.just("m"))


@st.composite
def compact_layout(draw):
    """A bijection onto [0, size) of ``m``: row-major strides of a permuted shape."""
    extents = draw(st.lists(st.sampled_from([2, 3, 4]), min_size=1, max_size=4))
    order = draw(st.permutations(range(len(extents))))
    strides = [0] * len(extents)
    stride = 1
    for k in reversed(order):
        strides[k] = stride
        stride *= extents[k]
    return [(e, s, "m") for e, s in zip(extents, strides)]


def factorization(n, draw):
    dims = []
    while n > 1 and len(dims) < 2:
        d = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
        dims.append(d)
        n //= d
    return [*dims, n]


@settings(max_examples=30, deadline=None)
@given(shard_st, st.sampled_from([{}, {"m": 5}, {"laneid": 2, "m": 1}]))
def test_apply_matches_brute_force_model(shard, offset):
    layout = build(shard, offset)
    for x in range(size_of(shard)):
        assert values(layout, x) == model(shard, offset, x)


@settings(max_examples=30, deadline=None)
@given(shard_st, st.data())
def test_apply_with_shape_is_the_flat_index_of_the_coordinate(shard, data):
    layout = build(shard)
    shape = factorization(size_of(shard), data.draw)
    for coord in itertools.product(*[range(e) for e in shape]):
        flat = 0
        for c, e in zip(coord, shape):
            flat = flat * e + c
        assert values(layout, *coord, shape=shape) == model(shard, {}, flat)


@settings(max_examples=30, deadline=None)
@given(shard_st)
def test_canonicalize_keeps_the_map(shard):
    layout = build(shard, {"m": 3})
    canon = layout.canonicalize()
    assert len(canon.shard) <= len(shard)
    for x in range(size_of(shard)):
        assert values(canon, x) == model(shard, {"m": 3}, x)


@settings(max_examples=30, deadline=None)
@given(shard_st, st.data())
def test_group_splits_iters_without_changing_the_map(shard, data):
    layout = build(shard)
    shape = factorization(size_of(shard), data.draw)
    try:
        grouped, seps = layout.group(shape)
    except tvm.error.InternalError as err:
        # Only a shape whose cumulative products interleave the layout's is refused.
        assert "incompatible cumulative boundaries" in str(err)
        return
    assert seps[0] == 0 and seps[-1] == len(grouped.shard)
    for d, extent in enumerate(shape):
        part = grouped.shard[seps[d]:seps[d + 1]]
        assert int(np.prod([int(it.extent) for it in part])) == extent
    for x in range(size_of(shard)):
        assert values(grouped, x) == model(shard, {}, x)


@settings(max_examples=30, deadline=None)
@given(compact_layout())
def test_inverse_round_trips_a_bijective_layout(shard):
    layout = build(shard)
    inverse = layout.inverse()
    seen = set()
    for x in range(size_of(shard)):
        address = int(layout.apply(x)["m"])
        seen.add(address)
        assert int(inverse.apply(address)["m"]) == x
    assert seen == set(range(size_of(shard)))


def _tile_values(layout, shape):
    return [values(layout, *c, shape=shape)
            for c in itertools.product(*[range(e) for e in shape])]


@settings(max_examples=25, deadline=None)
@given(st.lists(mem_iter_st, min_size=1, max_size=2), st.lists(mem_iter_st, min_size=1, max_size=2),
       st.lists(mem_iter_st, min_size=1, max_size=2))
def test_tiling_is_associative(a_iters, b_iters, c_iters):
    a, b, c = build(a_iters), build(b_iters), build(c_iters)
    sa, sb, sc = [size_of(a_iters)], [size_of(b_iters)], [size_of(c_iters)]
    left = a.tile(b, sb, sa).tile(c, sc, [sa[0] * sb[0]])
    right = a.tile(b.tile(c, sc, sb), [sb[0] * sc[0]], sa)
    shape = [sa[0] * sb[0] * sc[0]]
    assert _tile_values(left, shape) == _tile_values(right, shape)


@settings(max_examples=25, deadline=None)
@given(st.lists(mem_iter_st, min_size=1, max_size=3), st.lists(iter_st, min_size=1, max_size=2))
def test_tile_matches_outer_times_span_plus_inner(inner_iters, outer_iters):
    inner, outer = build(inner_iters), build(outer_iters)
    si, so = size_of(inner_iters), size_of(outer_iters)
    tiled = inner.tile(outer, [so], [si])
    span = int(inner.span())
    for o, i in itertools.product(range(so), range(si)):
        expect = model(outer_iters, {}, o)
        if "m" in expect:
            expect["m"] *= span
        for axis, v in model(inner_iters, {}, i).items():
            expect[axis] = expect.get(axis, 0) + v
        expect = {k: v for k, v in expect.items() if v}
        assert values(tiled, o * si + i) == expect


@settings(max_examples=25, deadline=None)
@given(st.lists(mem_iter_st, min_size=1, max_size=3), st.lists(iter_st, min_size=1, max_size=2))
def test_tile_recognition_recovers_an_equivalent_factor(inner_iters, outer_iters):
    inner, outer = build(inner_iters), build(outer_iters)
    si, so = size_of(inner_iters), size_of(outer_iters)
    tiled = inner.tile(outer, [so], [si])
    found = inner.is_tile_inner(tiled, [so * si], [si])
    assert found is not None
    assert _tile_values(inner.tile(found, [so], [si]), [so * si]) == _tile_values(
        tiled, [so * si])


@settings(max_examples=30, deadline=None)
@given(shard_st, st.data())
def test_slice_agrees_with_the_layout_on_the_region(shard, data):
    layout = build(shard, {"m": 7})
    shape = factorization(size_of(shard), data.draw)
    region = []
    for extent in shape:
        begin = data.draw(st.integers(0, extent - 1))
        region.append((begin, data.draw(st.integers(begin + 1, extent))))
    sliced = layout.slice(shape, region)
    if sliced is None:
        return
    sizes = [end - begin for begin, end in region]
    for rel in itertools.product(*[range(n) for n in sizes]):
        full = [begin + r for (begin, _end), r in zip(region, rel)]
        assert values(sliced, *rel, shape=sizes) == values(layout, *full, shape=shape)


def test_the_model_agrees_with_a_hand_computed_layout():
    # (8, 4):(4 @ laneid, 1): x = 9 -> digits (2, 1) -> laneid 8, m 1.
    assert model([(8, 4, "laneid"), (4, 1, "m")], {}, 9) == {"laneid": 8, "m": 1}
    assert Axis.get("laneid").is_thread()


_BINARY = {
    "Add": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "FloorDiv": lambda a, b: a // b,
    "FloorMod": lambda a, b: a % b,
    "BitwiseXor": lambda a, b: a ^ b,
    "BitwiseAnd": lambda a, b: a & b,
    "LShift": lambda a, b: a << b,
    "RShift": lambda a, b: a >> b,
}


def evaluate(expr, env):
    """Evaluate an integer PrimExpr with Python ints (variables from ``env``)."""
    kind = type(expr).__name__
    if kind == "IntImm":
        return int(expr.value)
    if kind == "Var":
        return env[expr]
    if kind == "Let":
        return evaluate(expr.body, {**env, expr.var: evaluate(expr.value, env)})
    return _BINARY[kind](evaluate(expr.a, env), evaluate(expr.b, env))


def swizzle_model(value, per_element, swizzle_len, atom_len, inner):
    chunk = 1 << per_element
    unit, low = divmod(value, chunk)
    mask = (1 << swizzle_len) - 1
    if inner:
        unit ^= (unit >> atom_len) & mask
    else:
        unit ^= (unit & mask) << atom_len
    return unit * chunk + low


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 4), st.integers(0, 3), st.integers(1, 4), st.booleans(),
       st.sampled_from([0, 8, 72, 512]))
def test_symbolic_swizzle_matches_the_swizzle_of_each_address(per_element, swizzle_len,
                                                               atom_len, inner, offset):
    x, y = tvm.tirx.Var("x", "int32"), tvm.tirx.Var("y", "int32")
    tile = TileLayout.from_iters([Iter(8, 64, "m"), Iter(64, 1, "m")], [], {"m": offset})
    layout = ComposeLayout(per_element, swizzle_len, atom_len, tile, inner)
    address = layout.apply(x, y, shape=(8, 64))["m"]
    for xv, yv in itertools.product(range(8), range(0, 64, 3)):
        expect = swizzle_model(xv * 64 + yv + offset, per_element, swizzle_len, atom_len, inner)
        assert evaluate(address, {x: xv, y: yv}) == expect
        assert int(layout.apply(xv * 64 + yv)["m"]) == expect


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2, 4, 8, 16]), st.sampled_from([1, 2, 8, 64, 512])),
                min_size=1, max_size=3),
       st.integers(0, 3), st.integers(0, 3), st.integers(1, 4), st.booleans(),
       st.sampled_from([0, 4, 8, 72, 520, 1024]))
def test_symbolic_swizzle_of_any_tile_matches_the_model(iters, per_element, swizzle_len,
                                                        atom_len, inner, offset):
    coords = [tvm.tirx.Var(f"c{k}", "int32") for k in range(len(iters))]
    flat = tvm.tirx.Var("flat", "int32")
    tile = TileLayout.from_iters([Iter(e, s, "m") for e, s in iters], [], {"m": offset})
    layout = ComposeLayout(per_element, swizzle_len, atom_len, tile, inner)
    per_iter = layout.apply(*coords)["m"] if len(iters) > 1 else None
    flat_addr = layout.apply(flat)["m"]
    total = size_of([(e, s, "m") for e, s in iters])
    for x in range(0, total, max(1, total // 64)):
        expect = swizzle_model(model([(e, s, "m") for e, s in iters], {"m": offset}, x).get(
            "m", 0), per_element, swizzle_len, atom_len, inner)
        assert evaluate(flat_addr, {flat: x}) == expect
        if per_iter is not None:
            digits, rest = [], x
            for e, _s in reversed(iters):
                digits.append(rest % e)
                rest //= e
            env = dict(zip(coords, reversed(digits)))
            assert evaluate(per_iter, env) == expect
