"""cache_read and cache_write."""

import pytest

from tvm import s_tir


def test_cache_read_of_a_temporary_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    cached = sch.cache_read(sch.get_sblock("C"), 0, "shared")
    wl.assert_tvm_output(sch, "cache_read")
    assert sch.get(cached).name_hint == "B_shared"


def test_cache_read_of_an_input_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    sch.cache_read(sch.get_sblock("B"), 0, "shared")
    wl.assert_tvm_output(sch, "cache_read_input")


def test_cache_write_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    sch.cache_write(sch.get_sblock("C"), 0, "local")
    wl.assert_tvm_output(sch, "cache_write")


def test_cache_buffers_have_the_scope(wl):
    sch = s_tir.Schedule(wl.chain())
    sch.cache_read(sch.get_sblock("B"), 0, "shared")
    sch.cache_write(sch.get_sblock("C"), 0, "local")
    allocs = {b.name: b.scope() for b in sch.mod["main"].body.block.alloc_buffers}
    assert allocs["A_shared"] == "shared" and allocs["C_local"] == "local"


def test_cache_read_and_write_compute_the_same(wl):
    func = wl.matmul(9, 7, 5, relu=True)
    sch = s_tir.Schedule(func)
    c = sch.get_sblock("C")
    a_shared = sch.cache_read(c, 0, "shared")
    sch.cache_read(c, 1, "local")
    c_local = sch.cache_write(c, 0, "local")
    # The cache blocks are ordinary blocks: move them like any other.
    i, j = sch.get_loops(sch.get_sblock("D"))
    sch.reverse_compute_at(c_local, sch.get_loops(c)[0])
    sch.compute_at(a_shared, sch.get_loops(c)[0])
    del i, j
    inputs = [wl.rand(9, 5), wl.rand(7, 5, seed=1)]
    wl.assert_same_result(func, sch, inputs, (9, 7))
    wl.assert_replays(sch, func)


def test_cache_read_consumer_blocks(wl):
    func = wl.elemwise()
    sch = s_tir.Schedule(func)
    # Only C reads the cache of B.
    sch.cache_read(sch.get_sblock("C"), 0, "local", consumer_blocks=[sch.get_sblock("C")])
    text = wl.script(sch)
    assert "C[v_i, v_j] = B_local[v_i, v_j] + T.float32(1.0)" in text
    assert "consumer_blocks=[b" in str(sch.trace)
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7, 5))
    wl.assert_replays(sch, func)


def test_cache_names_stay_unique(wl):
    sch = s_tir.Schedule(wl.chain())
    sch.cache_read(sch.get_sblock("B"), 0, "shared")
    second = sch.cache_read(sch.get_sblock("A_shared"), 0, "shared")
    # TVM 0.27 gives both blocks the name "A_shared"; here block names stay unique.
    assert sch.get(second).name_hint == "A_shared_1"


def test_cache_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match=r"read buffer index 3 is out of range: block "
                       r"'C' has 1 reads buffers \(\['B'\]\)"):
        sch.cache_read(sch.get_sblock("C"), 3, "shared")
    with pytest.raises(s_tir.ScheduleError, match="write buffer index -1 is out of range"):
        sch.cache_write(sch.get_sblock("C"), -1, "local")
    with pytest.raises(TypeError, match="storage_scope must be a str"):
        sch.cache_write(sch.get_sblock("C"), 0, None)


def test_cache_read_inside_the_writer_nest_matches_tvm(wl):
    func = wl.chain()
    sch = s_tir.Schedule(func)
    sch.compute_at(sch.get_sblock("B"), sch.get_loops(sch.get_sblock("C"))[0])
    sch.cache_read(sch.get_sblock("C"), 0, "shared")
    # The copy sits between B and C inside loop i and covers the row C reads.
    assert wl.script(sch) == wl.tvm_output("cache_read_in_nest")[0]
    wl.assert_same_result(func, sch, [wl.rand(16, 12)], (16,))
    wl.assert_replays(sch, func)


def test_cache_write_inside_a_tile_copies_the_tile(wl):
    func = wl.matmul(9, 7, 5, relu=True)
    sch = s_tir.Schedule(func)
    i, j = sch.get_loops(sch.get_sblock("D"))
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 3])
    sch.reorder(io, jo, ii, ji)
    sch.compute_at(sch.get_sblock("C"), jo)
    sch.cache_write(sch.get_sblock("C"), 0, "local")
    text = wl.script(sch)
    # The copy covers what the guarded writer writes: its tile clipped to the buffer, as in
    # TVM 0.27 (which simplifies the first extent further, to 9 - T.max(i_0 * 4, 5)).
    assert """        for ax0, ax1 in T.grid(T.min(i_0 * 4 + 3, 8) + 1 - i_0 * 4, T.min(j_0 * 3 + 2, 6) + 1 - j_0 * 3):
            with T.sblock("C_local"):
                v0 = T.axis.spatial(9, i_0 * 4 + ax0)
                v1 = T.axis.spatial(7, j_0 * 3 + ax1)
                T.reads(C_local[v0, v1])""" in text
    inputs = [wl.rand(9, 5), wl.rand(7, 5, seed=1)]
    wl.assert_same_result(func, sch, inputs, (9, 7))
    wl.assert_replays(sch, func)


def test_cache_of_a_buffer_with_two_writers_is_refused(wl):
    sch = s_tir.Schedule(wl.matmul(6, 5, 4, relu=True), error_render_level="fast")
    c = sch.get_sblock("C")
    init = sch.decompose_reduction(c, sch.get_loops(c)[1])
    message = (r"The buffer C is expected to be written by single block, but got 2 blocks who "
               r"write it \(\['C_init', 'C_update'\]\)")
    with pytest.raises(s_tir.ScheduleError, match=message):
        sch.cache_write(init, 0, "local")
    with pytest.raises(s_tir.ScheduleError, match=message):
        sch.cache_read(c, 0, "local")


def test_inlining_a_block_that_shares_its_buffer_is_refused(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    c = sch.get_sblock("C")
    init = sch.decompose_reduction(c, sch.get_loops(c)[1])
    with pytest.raises(s_tir.ScheduleError, match=r"'C_init' is not the only writer of C \(also "
                       r"written by \['C_update'\]\)"):
        sch.compute_inline(init)
    with pytest.raises(s_tir.ScheduleError, match="'C_update' is not the only writer"):
        sch.reverse_compute_inline(c)
