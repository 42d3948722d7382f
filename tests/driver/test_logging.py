"""Compile timing goes to the ``tvm`` logger (DEBUG), not to stdout."""

from __future__ import annotations

import logging

import numpy as np

import tvm
from tvm import relax, te


def test_compile_and_relax_build_log_their_stages(caplog, capsys):
    A = te.placeholder((7,), name="A")
    B = te.compute((7,), lambda i: A[i] * 3.0, name="B")
    func = te.create_prim_func([A, B])
    x = relax.Var("x", relax.TensorType((2, 5), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(relax.op.nn.relu(x)))
    # A context without the suite's well-formedness instrument: instruments turn caching off.
    with caplog.at_level(logging.DEBUG, logger="tvm"), tvm.transform.PassContext():
        tvm.compile(func)
        tvm.compile(func)  # the same module again: the in-memory cache
        ex = relax.build(bb.get(), "llvm")
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("tvm.driver")]
    assert any("lowered and compiled in" in m for m in messages), messages
    assert any("in-memory cache hit" in m for m in messages), messages
    assert any(m.startswith("relax.build for llvm: Relax pipeline") and "1 Relax functions" in m
               for m in messages), messages
    assert capsys.readouterr().out == ""
    out = relax.VirtualMachine(ex, tvm.cpu())["main"](np.full((2, 5), -1.0, "float32"))
    assert (out.numpy() == 0).all()


def test_silent_by_default(caplog):
    A = te.placeholder((3,), name="A")
    B = te.compute((3,), lambda i: A[i] - 1.0, name="B")
    with caplog.at_level(logging.WARNING):
        tvm.compile(te.create_prim_func([A, B]))
    assert not [r for r in caplog.records if r.name.startswith("tvm")]
