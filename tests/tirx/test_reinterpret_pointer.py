# ruff: noqa: F841  (TVMScript scope ids define names a kernel need not read)
"""``T.reinterpret`` to a ``PointerType``: a typed pointer from an integer address.

A remote shared-memory address from ``T.ptx.mapa.u64`` becomes a pointer a buffer can use as
its ``data`` (Apache TVM 0.27's model: the call's ``ty`` is the pointer type; a variable bound
to it has that type; the printed form is ``T.reinterpret(T.handle("uint64", "shared").ty, x)``).
"""

import pytest

import tvm
from tvm.ir import PointerType, PrimType, assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx import Bind, DeclBuffer, Var, reinterpret

SHARED_U64 = PointerType(PrimType("uint64"), "shared")


def test_call_carries_the_pointer_type():
    addr = Var("addr", "uint64")
    call = reinterpret(SHARED_U64, addr)
    assert call.dtype == "handle"
    assert_structural_equal(call.ty, SHARED_U64)
    assert call.ty.storage_scope == "shared"
    # A different scope is a different type, so a different call.
    other = reinterpret(PointerType(PrimType("uint64"), "global"), addr)
    assert not tvm.ir.structural_equal(call, other)
    # Scalar reinterprets keep no annotation: their type is their dtype.
    assert reinterpret(PrimType("float64"), addr).ty == PrimType("float64")
    assert reinterpret("float64", addr).dtype == "float64"


def test_pointer_needs_a_64_bit_address():
    with pytest.raises(TypeError, match="pointer type .* 64-bit integer or handle.*uint32"):
        reinterpret(SHARED_U64, Var("addr", "uint32"))


def test_mutators_keep_the_pointer_type():
    addr, other = Var("addr", "uint64"), Var("other", "uint64")
    call = reinterpret(SHARED_U64, addr)
    rebuilt = tvm.tirx.stmt_functor.substitute(call, {addr: other})
    assert rebuilt.args[0].same_as(other)
    assert_structural_equal(rebuilt.ty, SHARED_U64)


@T.prim_func
def remote_load(A: T.Buffer((1,), "uint64")):
    T.device_entry()
    cta_id = T.cta_id([1])
    tid = T.thread_id([1])
    mbar = T.alloc_shared([2], "uint64")
    mapped = T.alloc_local([1], "uint64")
    T.ptx.mapa.u64(mapped[0], mbar.ptr_to([0]), T.uint32(0))
    remote_ptr = T.reinterpret(SHARED_U64, mapped[0])
    remote_mbar = T.decl_buffer([1], "uint64", data=remote_ptr, scope="shared")
    A[0] = remote_mbar[0]


def _collect(func, kind):
    found = []
    tvm.tirx.stmt_functor.post_order_visit(
        func.body, lambda n: found.append(n) if isinstance(n, kind) else None)
    return found


def test_script_binds_a_typed_pointer_and_round_trips():
    (bind,) = _collect(remote_load, Bind)
    assert_structural_equal(bind.var.ty, SHARED_U64)
    assert_structural_equal(bind.value.ty, SHARED_U64)
    (decl,) = _collect(remote_load, DeclBuffer)
    assert decl.buffer.data.same_as(bind.var)
    assert decl.buffer.scope() == "shared"
    text = remote_load.script()
    assert ('remote_ptr: T.let[T.handle("uint64", "shared")] = '
            'T.reinterpret(T.handle("uint64", "shared").ty, mapped)') in text
    assert 'T.decl_buffer((1,), "uint64", data=remote_ptr, scope="shared")' in text
    assert_structural_equal(remote_load, tvm.script.from_source(text))
