"""Helpers shared by the dlight tests (the ``gpu`` fixture)."""

import numpy as np
import pytest

import tvm
from tvm.s_tir import dlight as dl
from tvm.s_tir.transform import lower_for_gpu
from tvm.tirx import For, ForKind, PrimFunc
from tvm.tirx.gpu_simulator import simulate_prim_func
from tvm.tirx.stmt_functor import post_order_visit


class GPU:
    """Schedule with dlight rules, lower for the GPU, run in the SIMT simulator, inspect."""

    target = tvm.target.Target("cuda")

    def schedule(self, func, *rules):
        """``func`` (PrimFunc) scheduled by ``ApplyDefaultSchedule(*rules)`` for CUDA."""
        mod = tvm.IRModule({"main": func})
        with self.target:
            return dl.ApplyDefaultSchedule(*rules)(mod)["main"]

    def run(self, scheduled, arrays):
        """Lower ``scheduled`` and run it on ``arrays`` (outputs written in place)."""
        lowered = lower_for_gpu(scheduled)
        simulate_prim_func(lowered, arrays)
        return lowered

    @staticmethod
    def thread_extents(func):
        """``{tag: largest extent}`` of the thread-bound loops of ``func``."""
        out = {}

        def visit(node):
            if isinstance(node, For) and node.kind == ForKind.THREAD_BINDING:
                tag = node.thread_binding.thread_tag
                out[tag] = max(out.get(tag, 0), int(node.extent))

        post_order_visit(func.body, visit)
        return out

    def threads_per_block(self, func):
        ext = self.thread_extents(func)
        return ext.get("threadIdx.x", 1) * ext.get("threadIdx.y", 1) * ext.get("threadIdx.z", 1)

    @staticmethod
    def alloc_scopes(func):
        """``{buffer name: scope}`` of the buffers allocated in ``func`` (blocks or stmts)."""
        out = {}

        def visit(node):
            name = type(node).__name__
            if name == "SBlock":
                for b in node.alloc_buffers:
                    out[b.name] = b.scope()
            elif name == "AllocBuffer":
                out[node.buffer.name] = node.buffer.scope()

        post_order_visit(func.body, visit)
        return out

    @staticmethod
    def calls(func):
        """Names of the ops called in ``func`` (``"tvm_storage_sync"``...), with repeats."""
        out = []

        def visit(node):
            if type(node).__name__ == "Call":
                out.append(getattr(node.op, "name", "").rsplit(".", 1)[-1])

        post_order_visit(func.body, visit)
        return out

    @staticmethod
    def rand(*shape, seed=0):
        return np.random.default_rng(seed + sum(shape)).uniform(-1, 1, shape).astype("float32")

    @staticmethod
    def is_prim_func(f):
        return isinstance(f, PrimFunc)


@pytest.fixture
def gpu():
    return GPU()
