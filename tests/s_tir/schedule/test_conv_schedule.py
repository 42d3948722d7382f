"""A padded 1-d convolution: compute_at of the padding, reverse_compute_at of the ReLU,
vectorize and decompose_reduction (the loop structure TVM 0.27 prints for the same steps)."""

from tvm import s_tir, te, tirx


def _conv():
    A = te.placeholder((2, 9), name="A")
    W = te.placeholder((4, 3), name="W")
    P = te.compute((2, 11), lambda c, x: tirx.if_then_else(
        tirx.all(x >= 1, x < 10), A[c, x - 1], tirx.const(0.0, "float32")), name="P")
    rc = te.reduce_axis((0, 2), name="rc")
    rx = te.reduce_axis((0, 3), name="rx")
    O = te.compute((4, 9), lambda f, x: te.sum(P[rc, x + rx.var] * W[f, rx], axis=[rc, rx]),
                   name="O")
    R = te.compute((4, 9), lambda f, x: tirx.max(O[f, x], tirx.const(0.0, "float32")),
                   name="R")
    return te.create_prim_func([A, W, R])


def _schedule(sch):
    f, x, rc, rx = sch.get_loops("O")
    xo, xi = sch.split(x, [None, 4])
    sch.reorder(f, xo, rc, rx, xi)
    sch.compute_at("P", xo)
    sch.reverse_compute_at("R", xo)
    sch.vectorize(xi)
    sch.decompose_reduction("O", rc)


# Lines printed by TVM 0.27 for this schedule (the loop nest and the moved blocks' bindings).
TVM_LINES = [
    "    for f, x_0 in T.grid(4, 3):",
    "        for ax0, ax1 in T.grid(2, 6):",
    "                v_x = T.axis.spatial(11, x_0 * 4 + ax1)",
    "                T.where(x_0 * 4 + ax1 < 11)",
    "        for x_1_init in T.vectorized(4):",
    '            with T.sblock("O_init"):',
    "        for rc, rx in T.grid(2, 3):",
    "            for x_1 in T.vectorized(4):",
    '                with T.sblock("O_update"):',
    "                    T.reads(O[v_f, v_x], P[v_rc, v_x + v_rx], W[v_f, v_rx])",
    "        for ax0 in range(4):",
    "                T.where(x_0 * 4 + ax0 < 9)",
]


def test_conv_schedule_structure_matches_tvm(wl):
    sch = s_tir.Schedule(_conv())
    _schedule(sch)
    lines = wl.script(sch).splitlines()
    positions = [lines.index(line) for line in TVM_LINES]
    assert positions == sorted(positions)


def test_conv_schedule_computes_the_same(wl):
    func = _conv()
    sch = s_tir.Schedule(func)
    _schedule(sch)
    inputs = [wl.rand(2, 9), wl.rand(4, 3, seed=1)]
    wl.assert_same_result(func, sch, inputs, (4, 9))
    wl.assert_replays(sch, func)
