"""GPU thread binding: ``UnifyThreadBinding`` and ``LowerThreadBindingLoops``.

A scheduled GPU function binds loops to the hardware's thread indices::

    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(256, thread="threadIdx.x"):
            B[bx * 256 + tx] = A[bx * 256 + tx]

* ``UnifyThreadBinding()`` gives each thread tag of a kernel one variable. The kernel is the
  outermost thread-bound loop or ``T.launch_thread``; every thread-bound loop or launch
  inside it (virtual threads included) is replaced by its body, and one loop per tag, named
  after the tag (``blockIdx_x``), is put around the kernel's body, in the order the tags
  first appear. All loops of one tag must have the same extent (``ValueError`` otherwise, as
  in TVM); extents of different integer dtypes are compared by value and the variable is
  cast. A bound loop's annotations stay in place on a one-iteration serial loop.
* ``LowerThreadBindingLoops()`` turns each hardware thread-bound loop into the launch form the
  host/device split works on: ``AttrStmt(IterVar(dom, var, ThreadIndex, tag), "thread_extent",
  extent, body)``, printed ``bx = T.launch_thread("blockIdx.x", 4)``. A loop with a non-zero
  start uses ``var + start`` in its body. Virtual-thread loops become serial loops (race-free
  code, which a virtual-thread binding requires, gives the same result). TVM does this inside
  ``s_tir.LowerOpaqueBlock``; here it is a pass of its own so TIR written with
  ``T.thread_binding`` outside sblocks can be lowered too.
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...ir.expr import Range
from ...ir.transform import PassInfo
from ..expr import Cast, IntImm, Var
from ..stmt import AttrStmt, For, ForKind, IterVar
from ..stmt_functor import StmtMutator, substitute
from .common import PrimFuncPass

__all__ = [
    "LowerThreadBindingLoops",
    "UnifyThreadBinding",
    "is_hardware_thread_tag",
    "lower_thread_binding_loops",
    "unify_thread_binding",
]


def is_hardware_thread_tag(tag: str) -> bool:
    """Whether ``tag`` names a launch dimension (``blockIdx.*``/``threadIdx.*``)."""
    return tag.startswith(("blockIdx.", "threadIdx."))


def _tag_of(loop: For) -> str | None:
    if loop.kind != ForKind.THREAD_BINDING or loop.thread_binding is None:
        return None
    return loop.thread_binding.thread_tag


def _is_virtual(tag: str) -> bool:
    return tag.startswith("vthread") or tag == "cthread"


# --- UnifyThreadBinding ------------------------------------------------------------------------


def _binding(node):
    """``(tag, var, min, extent, annotations)`` of a thread-bound loop or a launch, else None."""
    if isinstance(node, For):
        tag = _tag_of(node)
        if tag is None:
            return None
        return tag, node.loop_var, node.min, node.extent, node.annotations
    if isinstance(node, AttrStmt) and node.attr_key == "thread_extent":
        var = node.node.var
        return node.node.thread_tag, var, IntImm(var.dtype, 0), node.value, None
    return None


def _same_value(analyzer, a, b) -> bool:
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return a.dtype == b.dtype and analyzer.can_prove_equal(a, b)


class _KernelUnifier(StmtMutator):
    """Inside one kernel: drop thread-bound loops and launches, one (var, first) per tag."""

    def __init__(self, func_name):
        super().__init__()
        self.func_name = func_name
        self.order: list = []  # tags in order of first appearance
        self.unified: dict = {}  # tag -> (new Var, min, extent)
        self.var_map: dict = {}
        self.analyzer = Analyzer()

    def _unify(self, node, tag, var, lo, extent, annotations):
        entry = self.unified.get(tag)
        if entry is None:
            new_var = Var(tag.replace(".", "_"), var.dtype)
            self.unified[tag] = (new_var, lo, extent)
            self.order.append(tag)
        else:
            new_var, first_lo, first_extent = entry
            if not _same_value(self.analyzer, first_extent, extent):
                raise ValueError(
                    f"UnifyThreadBinding: in function {self.func_name}, all loops that are "
                    f"bound to `{tag}` should have the same extent. However, there are two "
                    f"loops with extent {first_extent} and {extent}, which are not equal"
                )
            if not _same_value(self.analyzer, first_lo, lo):
                raise ValueError(
                    f"UnifyThreadBinding: in function {self.func_name}, loops bound to `{tag}` "
                    f"start at {first_lo} and {lo}; they must start at the same value"
                )
        self.var_map[var] = new_var if new_var.dtype == var.dtype else Cast(var.dtype, new_var)
        body = self.visit_stmt(node.body)
        if annotations:
            # The annotations stay where the loop was, on a one-iteration serial loop.
            body = For(Var("var", var.dtype), IntImm(var.dtype, 0), IntImm(var.dtype, 1),
                       ForKind.SERIAL, body, annotations=annotations)
        return body

    def visit_for_(self, op: For):
        found = _binding(op)
        if found is None:
            return super().visit_for_(op)
        return self._unify(op, *found)

    def visit_attr_stmt_(self, op: AttrStmt):
        found = _binding(op)
        if found is None:
            return super().visit_attr_stmt_(op)
        return self._unify(op, *found)

    def visit_expr(self, expr):
        if not self.var_map:
            return expr
        return substitute(expr, lambda v: self.var_map.get(v))


class _Unifier(StmtMutator):
    def __init__(self, func_name):
        super().__init__()
        self.func_name = func_name

    def _kernel(self, op):
        kernel = _KernelUnifier(self.func_name)
        body = kernel.visit_stmt(op)
        for tag in reversed(kernel.order):
            new_var, lo, extent = kernel.unified[tag]
            dom = Range.from_min_extent(lo, extent)
            binding = IterVar(dom, Var(tag, new_var.dtype), IterVar.ThreadIndex, tag)
            body = For(new_var, lo, extent, ForKind.THREAD_BINDING, body, thread_binding=binding)
        return body

    def visit_for_(self, op: For):
        if _binding(op) is None:
            return super().visit_for_(op)
        return self._kernel(op)

    def visit_attr_stmt_(self, op: AttrStmt):
        if _binding(op) is None:
            return super().visit_attr_stmt_(op)
        return self._kernel(op)


def unify_thread_binding(func):
    """Apply :func:`UnifyThreadBinding` to one PrimFunc."""
    name = str(func.get_attr("global_symbol") or "<anonymous>")
    body = _Unifier(name).visit_stmt(func.body)
    return func if body is func.body else func.with_body(body)


def UnifyThreadBinding():
    """One variable and one loop per thread tag and kernel (see module doc)."""
    return PrimFuncPass(lambda f, m, c: unify_thread_binding(f),
                        PassInfo(0, "tirx.UnifyThreadBinding"))


# --- LowerThreadBindingLoops -------------------------------------------------------------------


class _LoopLowerer(StmtMutator):
    def visit_for_(self, op: For):
        tag = _tag_of(op)
        if tag is None:
            return super().visit_for_(op)
        body = self.visit_stmt(op.body)
        if _is_virtual(tag):
            return For(op.loop_var, op.min, op.extent, ForKind.SERIAL, body,
                       annotations=op.annotations, step=op.step, span=op.span)
        if not is_hardware_thread_tag(tag):
            raise ValueError(
                f"loop {op.loop_var.name} is bound to the unknown thread tag {tag!r}; expected "
                "blockIdx.x/y/z, threadIdx.x/y/z or vthread*"
            )
        if op.step is not None and not (isinstance(op.step, IntImm) and op.step.value == 1):
            raise ValueError(
                f"loop {op.loop_var.name} bound to {tag} has step {op.step}; thread-bound loops "
                "with a step are not supported yet"
            )
        var = op.loop_var
        zero = isinstance(op.min, IntImm) and op.min.value == 0
        if not zero:
            var = Var(op.loop_var.name, op.loop_var.dtype)
            body = substitute(body, {op.loop_var: var + op.min})
        dom = Range.from_min_extent(IntImm(op.extent.dtype, 0), op.extent)
        iter_var = IterVar(dom, var, IterVar.ThreadIndex, tag)
        return AttrStmt(iter_var, "thread_extent", op.extent, body, span=op.span)


def lower_thread_binding_loops(func):
    """Apply :func:`LowerThreadBindingLoops` to one PrimFunc."""
    body = _LoopLowerer().visit_stmt(func.body)
    return func if body is func.body else func.with_body(body)


def LowerThreadBindingLoops():
    """Thread-bound loops -> ``thread_extent`` launches (see module doc)."""
    return PrimFuncPass(lambda f, m, c: lower_thread_binding_loops(f),
                        PassInfo(0, "tirx.LowerThreadBindingLoops"))
