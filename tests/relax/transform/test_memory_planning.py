"""StaticPlanBlockMemory, LowerAllocTensor, KillAfterLastUse and VMBuiltinLower."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Chain:
    """Four kernels in a row: the third output can reuse the first one's storage."""

    @R.function(pure=False)
    def main(x: R.Tensor((2, 3), "float32")):
        alloc = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
        _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
        alloc1 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
        _ = R.call_packed("exp", alloc, alloc1, ty_args=R.Tuple())
        alloc2 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
        _ = R.call_packed("exp", alloc1, alloc2, ty_args=R.Tuple())
        alloc3 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
        _ = R.call_packed("exp", alloc2, alloc3, ty_args=R.Tuple())
        return alloc3


def test_static_plan_reuses_dead_storage():
    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
            alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
            storage1 = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
            alloc1 = R.memory.alloc_tensor(storage1, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", alloc, alloc1, ty_args=R.Tuple())
            alloc2 = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", alloc1, alloc2, ty_args=R.Tuple())
            alloc3 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
            _ = R.call_packed("exp", alloc2, alloc3, ty_args=R.Tuple())
            return alloc3

    assert_structural_equal(relax.transform.StaticPlanBlockMemory()(Chain), Expected)


def test_different_sizes_and_aliases_do_not_share():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            a = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
            _ = R.call_packed("f", x, a, ty_args=R.Tuple())
            alias = a
            b = R.builtin.alloc_tensor(R.shape([4]), R.dtype("float32"), 0, R.str("global"))
            _ = R.call_packed("f", alias, b, ty_args=R.Tuple())
            c = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
            _ = R.call_packed("f", alias, c, ty_args=R.Tuple())
            d = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
            _ = R.call_packed("f", c, d, ty_args=R.Tuple())
            out = (b, d)
            return out

    after = relax.transform.StaticPlanBlockMemory()(Before)
    text = after["main"].script()
    # a and c overlap through the alias (used by c's call), so they get two storages; b and
    # d are returned and stay builtin allocations.
    assert text.count("R.memory.alloc_storage") == 2
    assert text.count("R.builtin.alloc_tensor") == 2


def test_lower_alloc_tensor_gives_escaping_tensors_their_storage():
    planned = relax.transform.StaticPlanBlockMemory()(Chain)
    lowered = relax.transform.LowerAllocTensor()(planned)
    text = lowered["main"].script()
    assert "R.builtin.alloc_tensor" not in text
    assert 'R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("uint8"))' in text
    assert text.count("R.memory.alloc_tensor") == 4


def test_kill_after_last_use():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
            alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
            storage1 = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("uint8"))
            alloc1 = R.memory.alloc_tensor(storage1, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", alloc, alloc1, ty_args=R.Tuple())
            return alloc1

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
            alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.memory.kill_storage(storage)
            _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
            storage1 = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("uint8"))
            alloc1 = R.memory.alloc_tensor(storage1, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.memory.kill_storage(storage1)
            _ = R.call_packed("exp", alloc, alloc1, ty_args=R.Tuple())
            _ = R.memory.kill_tensor(alloc)
            return alloc1

    assert_structural_equal(relax.transform.KillAfterLastUse()(Before), Expected)


def test_vm_builtin_lower():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
            alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.memory.kill_storage(storage)
            _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
            out = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
            _ = R.call_packed("exp", alloc, out, ty_args=R.Tuple())
            _ = R.memory.kill_tensor(alloc)
            return out

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((2, 3), "float32")):
            storage = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
            alloc = R.vm.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.vm.kill_object(storage)
            _ = R.call_packed("exp", x, alloc, ty_args=R.Tuple())
            storage1 = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
            out = R.vm.alloc_tensor(storage1, 0, R.shape([2, 3]), R.dtype("float32"), 0)
            _ = R.call_packed("exp", alloc, out, ty_args=R.Tuple())
            _ = R.vm.kill_object(alloc)
            return out

    assert_structural_equal(relax.transform.VMBuiltinLower()(Before), Expected)
