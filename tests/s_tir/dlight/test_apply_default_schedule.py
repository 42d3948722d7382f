"""ApplyDefaultSchedule and ScheduleRule: which functions get scheduled, by which rule."""

import pytest

import tvm
from tvm import te
from tvm.s_tir import dlight as dl


def _add_one(n=64):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    return te.create_prim_func([A, B])


def test_marks_scheduled_and_skips_marked_functions(gpu):
    mod = tvm.IRModule({"main": _add_one()})
    with tvm.target.Target("cuda"):
        once = dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod)
        assert bool(once["main"].attrs["tirx.is_scheduled"])
        twice = dl.ApplyDefaultSchedule(dl.gpu.Fallback())(once)
    assert twice["main"] is once["main"]


def test_first_applicable_rule_wins():
    seen = []

    @dl.ScheduleRule.from_callable("Declines")
    def declines(func, target, tunable):
        seen.append("declines")

    @dl.ScheduleRule.from_callable("Takes")
    def takes(func, target, tunable):
        seen.append("takes")
        return tvm.s_tir.Schedule(func)

    @dl.ScheduleRule.from_callable("Never")
    def never(func, target, tunable):
        seen.append("never")

    with tvm.target.Target("cuda"):
        dl.ApplyDefaultSchedule(declines, takes, never)(tvm.IRModule({"main": _add_one()}))
    assert seen == ["declines", "takes"]
    assert type(takes).__name__ == "Takes"


def test_gpu_rules_skip_cpu_targets():
    mod = tvm.IRModule({"main": _add_one()})
    with tvm.target.Target("llvm"):
        out = dl.ApplyDefaultSchedule(dl.gpu.Fallback())(mod)
    assert out["main"] is mod["main"]


def test_function_target_attribute_wins_over_context(gpu):
    func = _add_one().with_attr("target", tvm.target.Target("cuda"))
    with tvm.target.Target("llvm"):
        out = dl.ApplyDefaultSchedule(dl.gpu.Fallback())(tvm.IRModule({"main": func}))
    assert "threadIdx.x" in gpu.thread_extents(out["main"])


def test_no_target_is_an_error():
    with pytest.raises(ValueError, match="needs a target"):
        dl.ApplyDefaultSchedule(dl.gpu.Fallback())(tvm.IRModule({"main": _add_one()}))


def test_rules_must_be_schedule_rules():
    with pytest.raises(TypeError, match="ScheduleRule"):
        dl.ApplyDefaultSchedule(lambda f, t, u: None)


def test_is_a_module_pass_usable_in_sequential(gpu):
    seq = tvm.transform.Sequential([dl.ApplyDefaultSchedule(dl.gpu.Fallback())])
    with tvm.target.Target("cuda"):
        out = seq(tvm.IRModule({"main": _add_one()}))
    assert bool(out["main"].attrs["tirx.is_scheduled"])


def test_block_analysis_kinds():
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    sch = tvm.s_tir.Schedule(te.create_prim_func([A, B]))
    (info,) = dl.normalize_prim_func(sch)
    assert info.name == "B" and info.dom_kind() == "SR" and info.is_reduction()
    assert [it.extent for it in info.iters] == [4, 8]


def test_driver_default_schedule_uses_the_gpu_rules_for_gpu_targets(gpu):
    from tvm import topi
    from tvm.s_tir.default_schedule import apply_default_schedule

    A = te.placeholder((8, 100), name="A")
    mod = tvm.IRModule({"main": te.create_prim_func([A, topi.nn.softmax(A, axis=1)])})
    out = apply_default_schedule(mod, tvm.target.Target("cuda"))
    assert gpu.thread_extents(out["main"]) == {"blockIdx.x": 8, "threadIdx.x": 128}
    assert bool(out["main"].attrs["tirx.is_scheduled"])
    # CPU targets keep the CPU default schedule (no thread bindings).
    cpu = apply_default_schedule(mod, tvm.target.Target("llvm"))
    assert not gpu.thread_extents(cpu["main"])
    # Functions already scheduled are left alone.
    again = dl.apply_gpu_default_schedule(out, tvm.target.Target("cuda"))
    assert again["main"] is out["main"]
