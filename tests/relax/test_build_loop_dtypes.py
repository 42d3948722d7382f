"""relax.build's loop dtype workaround (``vm_build._unify_loop_dtypes``): loops and block
iterators get their variable's dtype; kernels without a mixed bound come back unchanged."""

import numpy as np

import tvm
from tvm import relax, te, tirx
from tvm.ir import assert_structural_equal
from tvm.relax import vm_build
from tvm.tirx.stmt import SBlock


def _mixed_reduction():
    # A reduce axis over range(0, K) with an int64 K: the loop minimum stays an int32 0.
    n = tirx.IntImm("int64", 4)
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


def _loops_and_iterators(func):
    found = []

    def visit(node):
        if isinstance(node, tirx.For):
            found.append((node.loop_var.dtype, node.min.dtype, node.extent.dtype))
        elif isinstance(node, SBlock):
            for iv in node.iter_vars:
                found.append((iv.var.dtype, iv.dom.min.dtype, iv.dom.extent.dtype))

    tirx.stmt_functor.post_order_visit(func.body, visit)
    return found


def test_kernel_without_mixed_bounds_is_returned_as_is():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    func = te.create_prim_func([A, B])
    assert not vm_build._has_mixed_loop_dtypes(func.body)
    assert vm_build._unify_loop_dtypes(func) is func


def test_mixed_bounds_are_found_and_unified():
    func = _mixed_reduction()
    assert vm_build._has_mixed_loop_dtypes(func.body)
    fixed = vm_build._unify_loop_dtypes(func)
    assert fixed is not func
    assert not vm_build._has_mixed_loop_dtypes(fixed.body)
    loops = _loops_and_iterators(fixed)
    assert len(loops) == 4 and all(len(set(dtypes)) == 1 for dtypes in loops)
    assert any(len(set(dtypes)) > 1 for dtypes in _loops_and_iterators(func))
    assert vm_build._unify_loop_dtypes(fixed) is fixed
    # The rewrite itself, without the check, gives the same function.
    assert_structural_equal(fixed, vm_build._unify_loop_dtypes(fixed))


def test_mixed_reduction_runs_after_build():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((4, 4), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            k = te.reduce_axis((0, tirx.IntImm("int64", 4)), name="k")
            out = bb.emit_output(bb.emit_te(
                lambda a: te.compute((4,), lambda i: te.sum(a[i, k], axis=k), name="s"), x,
                primfunc_name_hint="rowsum"))
        bb.emit_func_output(out)
    ex = relax.build(bb.get(), relax_pipeline=None)
    data = np.arange(16, dtype="float32").reshape(4, 4)
    vm = relax.VirtualMachine(ex, tvm.cpu())
    np.testing.assert_allclose(vm["main"](data).numpy(), data.sum(axis=1))
