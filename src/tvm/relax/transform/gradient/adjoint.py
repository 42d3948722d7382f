"""The reverse sweep of the Gradient pass (spec F.3, steps 4-6).

Adjoints are emitted eagerly: every contribution to a variable's adjoint is bound right away
to ``<var>_adjoint`` (the builder suffixes repeats: ``x_adjoint1``, ``x_adjoint2``), adding
to the previous adjoint with a tuple-aware ``R.add``.
"""

from __future__ import annotations

from ....error import InternalError, check_failed
from ....ir.op import MissingOpRuleError, Op
from ...expr import Call, Constant, If, SeqExpr, Tuple, TupleGetItem, Var, VarBinding
from ...op import add, ones, zeros
from ...ty import TensorType, TupleType
from ...utils import renew_vars
from .._utils import free_relax_vars
from .checkpoint import CheckpointInfo, Recomputer, substitute
from .te_grad import emit_te_gradient

__all__ = ["BackwardGenerator", "GradientError", "GradientRuleMissingError", "zeros_of_type"]


class GradientError(InternalError, ValueError):
    """A function or argument the Gradient pass cannot differentiate.

    An ``InternalError`` (the kind Apache TVM 0.27 raises, so ``RuntimeError`` handlers catch
    it) and a ``ValueError`` (the IR or the arguments are what is wrong).
    """


def gradient_error(cond_text: str, msg: str) -> GradientError:
    """A :class:`GradientError` with TVM's ``Check failed: (cond) is false: msg`` text."""
    return GradientError(str(check_failed(cond_text, msg)))


class GradientRuleMissingError(MissingOpRuleError, InternalError):
    """An op on the path to the target has no ``FPrimalGradient`` rule.

    It is a :class:`~tvm.ir.op.MissingOpRuleError` (a TypeError: the IR is unsupported) and an
    ``InternalError`` (the kind Apache TVM 0.27 raises).
    """


def _shape_expr(ty, what):
    shape = getattr(ty, "shape", None)
    if shape is None or getattr(shape, "values", None) is None:
        raise ValueError(
            f"Gradient needs a known shape to build {what}, but the type is {ty}; "
            "annotate the variable with a shape"
        )
    return shape


def zeros_of_type(ty, what="a zero adjoint"):
    """``R.zeros`` of a tensor type, or a (nested) Tuple of them for a tuple type."""
    if isinstance(ty, TupleType):
        return Tuple([zeros_of_type(field, what) for field in ty.fields])
    if isinstance(ty, TensorType):
        return zeros(_shape_expr(ty, what), ty.dtype)
    raise ValueError(f"Gradient cannot build {what} for a value of type {ty}")


def ones_of_type(ty):
    """``R.ones`` of the target's tensor type (the seed adjoint)."""
    return ones(_shape_expr(ty, "the seed adjoint"), ty.dtype)


def tuple_aware_add(bb, lhs, rhs):
    """``lhs + rhs`` for tensors, fieldwise (recursively) for tuples.

    A tuple-typed operand that is neither a variable nor a Tuple literal is bound first, so
    its fields are read from one variable.
    """
    ty = lhs.ty if lhs.ty is not None else bb.normalize(lhs).ty
    if not isinstance(ty, TupleType):
        return add(lhs, rhs)
    if not isinstance(lhs, (Var, Tuple)):
        lhs = bb.emit(lhs)
    if not isinstance(rhs, (Var, Tuple)):
        rhs = bb.emit(rhs)
    fields = []
    for i in range(len(ty.fields)):
        left = lhs.fields[i] if isinstance(lhs, Tuple) else TupleGetItem(lhs, i)
        right = rhs.fields[i] if isinstance(rhs, Tuple) else TupleGetItem(rhs, i)
        fields.append(tuple_aware_add(bb, left, right))
    return Tuple(fields)


def _is_no_grad(expr) -> bool:
    return isinstance(expr, Call) and getattr(expr.op, "name", None) == "relax.grad.no_grad"


class BackwardGenerator:
    """Emits the adjoint bindings of one dataflow block into ``bb``, in reverse order."""

    def __init__(self, bb, recomputer: Recomputer, relevant=None):
        self._bb = bb
        self._recompute = recomputer
        #: The variables whose adjoint can matter (they depend on a requested variable); None
        #: for all. Only an R.If's adjoint tuple consults it: elsewhere unused adjoints are
        #: removed afterwards, but a tuple field is a use.
        self._relevant = relevant
        #: var -> the variable currently bound to its adjoint.
        self.adjoints = {}

    # --- accumulation -----------------------------------------------------------------------
    def _emit_adjoint(self, var, value):
        self.adjoints[var] = self._bb.emit(value, f"{var.name_hint}_adjoint")

    def update(self, base, increment):
        """Add ``increment`` into the adjoint of ``base`` (a Var, a Tuple of them, a leaf)."""
        if isinstance(base, Var):
            existing = self.adjoints.get(base)
            value = (
                increment if existing is None else tuple_aware_add(self._bb, existing, increment)
            )
            self._emit_adjoint(base, value)
        elif isinstance(base, Tuple):
            if not isinstance(increment, Tuple):
                # Bind the tuple-valued increment once, then hand out its fields.
                if not isinstance(increment, Var):
                    increment = self._bb.emit(increment)
                parts = [TupleGetItem(increment, i) for i in range(len(base.fields))]
            else:
                parts = list(increment.fields)
            for field, part in zip(base.fields, parts):
                self.update(field, part)
        # Constants, shapes and other leaves have no adjoint.

    def update_item(self, base, index, increment):
        """Add ``increment`` into position ``index`` of the adjoint of tuple ``base``."""
        if not isinstance(base, Var):
            if isinstance(base, Tuple):
                self.update(base.fields[index], increment)
            return
        ty = base.ty
        existing = self.adjoints.get(base)
        fields = []
        for i, field_ty in enumerate(ty.fields):
            if existing is None:
                fields.append(increment if i == index else zeros_of_type(field_ty))
            else:
                item = TupleGetItem(existing, i)
                fields.append(tuple_aware_add(self._bb, item, increment) if i == index else item)
        self._emit_adjoint(base, Tuple(fields))

    # --- the sweep --------------------------------------------------------------------------
    def seed(self, target):
        """Bind ``<target>_adjoint = R.ones(shape, dtype)``."""
        self._emit_adjoint(target, ones_of_type(target.ty))

    def visit_binding(self, binding):
        """Propagate the adjoint of ``binding.var`` (if any) into the values it reads."""
        if not isinstance(binding, VarBinding):
            raise gradient_error(
                "binding->IsInstance<VarBindingNode>()",
                f"Now only support VarBindingNode, but {binding.var.name_hint} is bound by a "
                f"{type(binding).__name__}; Gradient cannot differentiate through it, so move "
                "it out of the differentiated function",
            )
        var = binding.var
        grad = self.adjoints.get(var)
        if grad is None:
            return  # the value does not reach the target
        value = binding.value
        if isinstance(value, Call):
            self._visit_call(binding, grad)
        elif isinstance(value, Tuple):
            for i, field in enumerate(value.fields):
                self.update(field, TupleGetItem(grad, i))
        elif isinstance(value, TupleGetItem):
            self.update_item(value.tuple_value, value.index, grad)
        elif isinstance(value, Var):
            self.update(value, grad)
        elif isinstance(value, Constant):
            pass
        elif isinstance(value, If):
            self._visit_if(binding, grad)
        else:
            raise gradient_error(
                "false",
                f"Now does not support the type of binding value: {type(value).__name__} "
                f"(bound to {var.name_hint}); Gradient supports Call, Tuple, TupleGetItem, "
                "Var, Constant and If values",
            )

    def _visit_call(self, binding, grad):
        call = binding.value
        op = call.op
        if not isinstance(op, Op):
            # Calls of the module's Relax functions were inlined before the sweep; what is
            # left (an extern function, a closure in a variable) has no known derivative.
            # Apache TVM 0.27 treats it as constant and returns zeros; pytvm refuses.
            callee = getattr(op, "name_hint", None) or getattr(op, "global_symbol", None)
            raise GradientError(
                f"Gradient cannot differentiate through the call bound to "
                f"{binding.var.name_hint}: its callee {callee or type(op).__name__} "
                f"({type(op).__name__}) is not a Relax function of the module, so its "
                "derivative is unknown. Express it with Relax ops, or wrap it with "
                "R.call_tir_with_grad and a registered TE gradient"
            )
        if op.name == "relax.call_tir":
            raise GradientError(
                "Differentiation of call_tir op without registering corresponding gradient "
                "function is not supported yet. Express the computation with Relax ops, or "
                "use R.call_tir_with_grad with a TE gradient (register_te_gradient)."
            )
        if op.name == "relax.call_tir_with_grad":
            # The registered TE gradient gives the partials of the inputs (spec F.2).
            _orig_var, orig_call = self._recompute.binding(binding.var, call)
            partials = emit_te_gradient(self._bb, orig_call, grad)
            for arg, partial in zip(call.args[1].fields, partials):
                self.update(arg, partial)
            return
        rule = op.get_attr("FPrimalGradient")
        if rule is None:
            raise GradientRuleMissingError(
                op.missing_rule_message("FPrimalGradient", "needed by relax.transform.Gradient")
            )
        orig_var, orig_call = self._recompute.binding(binding.var, call)
        partials = rule(orig_var, orig_call, grad, self._bb)
        if len(partials) != len(call.args):
            raise check_failed(
                "partials.size() == call->args.size()",
                f"the FPrimalGradient rule of {op.name} returned {len(partials)} partials for "
                f"{len(call.args)} arguments; fix the rule in "
                f"src/tvm/relax/op/{op.family}/grad.py",
            )
        for arg, partial in zip(call.args, partials):
            if partial is None or _is_no_grad(partial):
                continue
            self.update(arg, partial)

    def _visit_if(self, binding, grad):
        """``r = R.If(c, A, B)``: the backward pass branches on the same ``c``.

        Each backward branch re-emits its forward branch (fresh variables: a branch's values
        live only inside it), seeds the branch result with ``grad``, sweeps it, and returns
        the adjoints of the outer variables the branch reads (zeros where it reads none).
        The outer variables then receive the fields of that tuple. The outer values the
        branches read come through the recomputer, so checkpointing applies to them.
        """
        value = binding.value
        free = free_vars_of(value)
        outer = [
            var for var in free
            if is_float_value(var.ty) and (self._relevant is None or var in self._relevant)
        ]
        if not outer:
            return
        mapping = {var: self._recompute.var(var) for var in free}
        seen = [mapping[var] for var in outer]
        branches = [
            self._backward_branch(substitute(branch, mapping), grad, seen)
            for branch in (value.true_branch, value.false_branch)
        ]
        adjoint = self._bb.emit(
            If(substitute(value.cond, mapping), branches[0], branches[1]),
            f"{binding.var.name_hint}_if_adjoint",
        )
        for i, var in enumerate(outer):
            self.update(var, TupleGetItem(adjoint, i))

    def _backward_branch(self, branch, grad, outer):
        branch = renew_vars(branch if isinstance(branch, SeqExpr) else SeqExpr([], branch))
        bb = self._bb
        bb.begin_binding_block()
        bindings = [b for block in branch.blocks for b in block.bindings]
        for inner in bindings:
            bb.emit_normalized(inner)
        # Inside a branch every forward value is at hand: nothing to recompute.
        relevant = None
        if self._relevant is not None:
            relevant = depends_on(set(self._relevant) | set(outer), bindings)
        sub = BackwardGenerator(bb, Recomputer(bb, CheckpointInfo(set(), {}, {})), relevant)
        sub.update(branch.body, grad)
        for inner in reversed(bindings):
            sub.visit_binding(inner)
        result = Tuple([
            sub.adjoints[var] if var in sub.adjoints else bb.emit(zeros_of_type(var.ty))
            for var in outer
        ])
        block = bb.end_block()
        return SeqExpr([block], result)

    # --- epilogue ---------------------------------------------------------------------------
    def epilogue(self, require_grads, dataflow=True):
        """Zero-fill the requested variables without adjoint; emit the ``_adjoint_out`` aliases
        (dataflow outputs when ``dataflow``)."""
        outs = []
        emit = self._bb.emit_output if dataflow else self._bb.emit
        for var in require_grads:
            if var not in self.adjoints:
                self._emit_adjoint(var, zeros_of_type(var.ty))
            outs.append(emit(self.adjoints[var], f"{var.name_hint}_adjoint_out"))
        return outs


def is_float_dtype(dtype) -> bool:
    """Whether ``dtype`` is a floating-point type (float*, bfloat*)."""
    return str(dtype).startswith(("float", "bfloat"))


def is_float_value(ty) -> bool:
    """A float tensor, or a (nested) tuple of them: what can have an adjoint."""
    if isinstance(ty, TupleType):
        return all(is_float_value(field) for field in ty.fields)
    return isinstance(ty, TensorType) and is_float_dtype(ty.dtype)


def depends_on(requested, bindings) -> set:
    """``requested`` plus every variable of ``bindings`` whose value depends on one of them."""
    reached = set(requested)
    for binding in bindings:
        if any(v in reached for v in free_relax_vars(binding.value)):
            reached.add(binding.var)
    return reached


def free_vars_of(value) -> list:
    """The variables ``value`` (an ``R.If``) reads that are bound outside it, in first-use order."""
    bound = set()

    def collect(expr):
        if isinstance(expr, SeqExpr):
            for block in expr.blocks:
                for b in block.bindings:
                    bound.add(b.var)
                    collect(b.value)
        elif isinstance(expr, If):
            collect(expr.true_branch)
            collect(expr.false_branch)

    collect(value)
    return [v for v in free_relax_vars(value) if v not in bound]
