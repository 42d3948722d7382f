"""sample_perfect_tile and sample_categorical."""

import pytest

from tvm import s_tir

# Printed by Apache TVM 0.27 for test_sampled_split_trace_matches_tvm.
TVM_TRACE = '''# from tvm import s_tir
def apply_trace(sch: s_tir.Schedule) -> None:
  b0 = sch.get_sblock(name="C", func_name="main")
  l1, l2, l3 = sch.get_loops(block=b0)
  v4, v5, v6 = sch.sample_perfect_tile(loop=l1, n=3, max_innermost_factor=4, decision=[64, 1, 1])
  l7, l8, l9 = sch.split(loop=l1, factors=[v4, v5, v6], preserve_unit_iters=True, disable_predication=False)
  v10 = sch.sample_categorical(candidates=[1, 2, 4], probs=[0.20000000000000001, 0.29999999999999999, 0.5], decision=2)
  sch.annotate(block_or_loop=l2, ann_key="u", ann_val=v10)'''


def test_sampled_split_trace_matches_tvm(wl):
    func = wl.matmul(64, 48, 12)
    sch = s_tir.Schedule(func)
    i, j, _ = sch.get_loops(sch.get_sblock("C"))
    tiles = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4, decision=[64, 1, 1])
    assert [sch.get(t) for t in tiles] == [64, 1, 1]
    sch.split(i, tiles)
    v = sch.sample_categorical([1, 2, 4], [0.2, 0.3, 0.5], decision=2)
    assert sch.get(v) == 4
    sch.annotate(j, "u", v)
    assert str(sch.trace) == TVM_TRACE
    text = wl.script(sch)
    assert "v_i = T.axis.spatial(64, i_0 + i_1 + i_2)" in text
    assert 'for j in T.serial(48, annotations={"u": 4}):' in text
    assert list(sch.trace.decisions.values()) == [[64, 1, 1], 2]
    wl.assert_replays(sch, func)


@pytest.mark.parametrize("seed", range(1, 9))
def test_sampled_tiles_are_perfect_and_replay(wl, seed):
    func = wl.matmul(12, 10, 3)
    sch = s_tir.Schedule(func, seed=seed)
    i, j, _ = sch.get_loops(sch.get_sblock("C"))
    ti = sch.sample_perfect_tile(i, n=3, max_innermost_factor=4)
    tj = sch.sample_perfect_tile(j, n=2, max_innermost_factor=2)
    fi, fj = [sch.get(t) for t in ti], [sch.get(t) for t in tj]
    assert fi[0] * fi[1] * fi[2] == 12 and fi[2] <= 4
    assert fj[0] * fj[1] == 10 and fj[1] <= 2
    sch.split(i, ti)
    sch.split(j, tj)
    wl.assert_same_result(func, sch, [wl.rand(12, 3), wl.rand(10, 3, seed=1)], (12, 10))
    # Replays reuse the recorded decisions; the same seed samples the same values.
    wl.assert_replays(sch, func)
    again = s_tir.Schedule(func, seed=seed)
    i2 = again.get_loops(again.get_sblock("C"))[0]
    assert [again.get(t) for t in again.sample_perfect_tile(i2, n=3, max_innermost_factor=4)] == fi


def test_sample_categorical_respects_zero_weights(wl):
    sch = s_tir.Schedule(wl.elemwise(), seed=1)
    values = {sch.get(sch.sample_categorical([3, 5], [0.0, 1.0])) for _ in range(20)}
    assert values == {5}


def test_sampling_errors(wl):
    sch = s_tir.Schedule(wl.matmul(12, 10, 3), error_render_level="fast")
    i = sch.get_loops(sch.get_sblock("C"))[0]
    with pytest.raises(ValueError, match=r"number of candidates \(2\) does not match number of "
                       r"probabilities \(1\)"):
        sch.sample_categorical([1, 2], [0.5])
    with pytest.raises(ValueError, match="non-negative probabilities with a positive sum"):
        sch.sample_categorical([1, 2], [0.0, 0.0])
    with pytest.raises(ValueError, match="decision 2 is not an index"):
        sch.sample_categorical([1, 2], [0.5, 0.5], decision=2)
    with pytest.raises(ValueError, match=r"decision \[5, 4\] must be 2 positive factors whose "
                       "product is the extent 12"):
        sch.sample_perfect_tile(i, n=2, decision=[5, 4])
    with pytest.raises(ValueError, match="n must be a positive int"):
        sch.sample_perfect_tile(i, n=0)


def test_seed_range(wl):
    with pytest.raises(ValueError, match=r"seed must be in the range \[1, 2147483647\], but gets: 0"):
        s_tir.Schedule(wl.elemwise(), seed=0)
