"""``VMShapeLower``: symbolic shapes become VM builtin calls over a *shape heap*.

The Relax VM keeps the values of a function's symbolic variables in an int64 tensor, the
shape heap (one slot per variable, then one per composite expression such as ``n * 16``).
The pass makes every shape computation explicit (this is the IR the VM executes):

* ``shape_heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (k,), ...)``, or
  ``R.null_value()`` when the function has no symbolic variable;
* for each parameter, a check of its kind: ``R.call_packed("vm.builtin.check_tensor_info",
  x, ndim, R.dtype(dtype), R.str(err))``, ``check_shape_info(s, ndim, err)``,
  ``check_prim_value_info(v, R.dtype(dtype), err)``, or ``check_tuple_info(t, nfields, err)``
  followed by the checks of each field (read with ``t[i]``); after all checks, each tensor
  and shape is matched with ``R.call_packed("vm.builtin.match_shape", x, shape_heap, ndim,
  code0, value0, ..., R.str(err))``, with per-dim codes
  0 = must equal the immediate value, 1 = store into heap slot value, 2 = no check,
  3 = must equal heap slot value;
* PrimFuncs ``shape_func(H)`` computing the composite expressions into their slots, each
  called as soon as the variables it reads are stored (after the parameters are matched,
  then after each ``match_cast`` that binds new variables);
* every ``R.shape([...])`` that is not constant becomes ``R.call_packed("vm.builtin.make_shape",
  shape_heap, ndim, code0, value0, ...)`` (code 0 = immediate, 1 = load heap slot);
* ``MatchCast`` of a tensor matches its dims the same way (storing new variables);
* a symbolic scalar argument (a ``PrimValue`` from ``tir_vars``) becomes
  ``R.call_packed("vm.builtin.make_prim_value", shape_heap, 1, slot)`` (code 1: load the
  slot; 0: immediate);
* before returning, the result is checked against the function's return annotation.

``err`` strings read ``ErrorContext(fn=main, loc=param[0], param=x, annotation=...)``.
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ...ir.transform import module_pass
from ...ir.type import PrimType, TupleType
from ...tirx import expr as tir_expr
from ...tirx.expr import IntImm
from ..block_builder import BlockBuilder
from ..expr import (
    DataTypeImm,
    MatchCast,
    PrimValue,
    ShapeExpr,
    StringImm,
    TupleGetItem,
    VarBinding,
)
from ..op.base import call_packed as _call_packed
from ..op.base import null_value
from ..op.vm import call_builtin_with_ctx
from ..ty import ShapeType, TensorType
from ._utils import emit_binding, relax_functions

__all__ = ["VMShapeLower"]

USE_IMM, STORE, NO_OP, ASSERT_EQUAL = 0, 1, 2, 3
MAKE_IMM, MAKE_LOAD = 0, 1


def call_packed(name, *args, ty_args):
    """A packed call; Python ints become int64 ``PrimValue`` arguments."""
    from ..expr import PrimValue

    args = [PrimValue(IntImm("int64", a)) if isinstance(a, int) else a for a in args]
    return _call_packed(name, *args, ty_args=ty_args)


def _static(dim):
    return isinstance(dim, (int, IntImm))


def _is_const(value):
    """A literal scalar (int, float or bool): nothing to compute at run time."""
    return isinstance(value, (int, float)) or (
        not isinstance(value, tir_expr.Var) and getattr(value, "value", None) is not None
    )


def _int(dim):
    return dim if isinstance(dim, int) else int(dim.value)


class _Lowerer:
    def __init__(self, func, name, bb):
        self.func = func
        self.name = name
        self.bb = bb
        self.slots = {}  # tir Var -> heap slot
        self.exprs = []  # (PrimExpr, slot) of composite expressions
        self.out = []
        self.heap = None

    # --- heap slots --------------------------------------------------------------------------
    def _collect(self):
        def visit_dims(dims):
            for dim in dims or ():
                if isinstance(dim, tir_expr.Var) and dim not in self.slots:
                    self.slots[dim] = len(self.slots)

        def visit_type(ty):
            if isinstance(ty, TupleType):
                for field_ty in ty.fields:
                    visit_type(field_ty)
            else:
                visit_dims(_dims(ty))

        for param in self.func.params:
            visit_type(param.ty)
        for block in self.func.body.blocks:
            for binding in block.bindings:
                if isinstance(binding, MatchCast):
                    visit_dims(_dims(binding.ty))

    def _slot_of_expr(self, expr):
        for known, slot in self.exprs:
            if structural_equal(known, expr):
                return slot
        slot = len(self.slots) + len(self.exprs)
        self.exprs.append((expr, slot))
        return slot

    # --- emission ----------------------------------------------------------------------------
    def emit(self, name, value):
        binding = emit_binding(self.bb, name, value)
        self.out.append(binding)
        return binding.var

    def _err(self, loc, ty, param=None):
        param_part = f", param={param}" if param else ""
        return StringImm(f"ErrorContext(fn={self.name}, loc={loc}{param_part}, annotation={ty}) ")

    def _match(self, value, ty, err, stored):
        dims = _dims(ty)
        if dims is None:
            return
        args = [value, self.heap, len(dims)]
        for dim in dims:
            if _static(dim):
                args += [USE_IMM, _int(dim)]
            elif isinstance(dim, tir_expr.Var) and dim in self.slots:
                if dim in stored:
                    args += [ASSERT_EQUAL, self.slots[dim]]
                else:
                    stored.add(dim)
                    args += [STORE, self.slots[dim]]
            else:
                args += [NO_OP, 0]
        self.emit("_", call_packed("vm.builtin.match_shape", *args, err, ty_args=TupleType([])))

    def make_shape(self, values):
        args = [self.heap, len(values)]
        for dim in values:
            if _static(dim):
                args += [MAKE_IMM, _int(dim)]
            elif isinstance(dim, tir_expr.Var) and dim in self.slots:
                args += [MAKE_LOAD, self.slots[dim]]
            else:
                args += [MAKE_LOAD, self._slot_of_expr(dim)]
        return self.emit(
            "gv", call_packed("vm.builtin.make_shape", *args, ty_args=ShapeType(ndim=len(values)))
        )

    def _check(self, value, ty, err, deferred):
        """Emit the run-time checks of a parameter (recursing into tuples), deferring the
        shape matches."""
        unit = TupleType([])
        if isinstance(ty, TensorType):
            args = [value, ty.ndim, DataTypeImm(ty.dtype), err]
            self.emit("_", call_packed("vm.builtin.check_tensor_info", *args, ty_args=unit))
            deferred.append((value, ty, err))
        elif isinstance(ty, ShapeType):
            args = [value, ty.ndim, err]
            self.emit("_", call_packed("vm.builtin.check_shape_info", *args, ty_args=unit))
            deferred.append((value, ty, err))
        elif isinstance(ty, PrimType):
            args = [value, DataTypeImm(ty.dtype), err]
            self.emit("_", call_packed("vm.builtin.check_prim_value_info", *args, ty_args=unit))
        elif isinstance(ty, TupleType):
            args = [value, len(ty.fields), err]
            self.emit("_", call_packed("vm.builtin.check_tuple_info", *args, ty_args=unit))
            for i, field_ty in enumerate(ty.fields):
                item = self.emit("gv", TupleGetItem(value, i))
                self._check(item, field_ty, err, deferred)

    def make_prim_value(self, value):
        """A symbolic scalar argument (``tir_vars``) read from its heap slot."""
        if isinstance(value, tir_expr.Var) and value in self.slots:
            slot = self.slots[value]
        else:
            slot = self._slot_of_expr(value)
        call = call_packed(
            "vm.builtin.make_prim_value",
            self.heap,
            MAKE_LOAD,
            slot,
            ty_args=PrimType(value.dtype),
        )
        return self.emit("gv", call)

    def rewrite_shapes(self, value):
        """``value`` with its non-constant ``ShapeExpr`` arguments replaced by make_shape."""
        from ..expr import Call

        if not isinstance(value, Call):
            return value
        args = []
        changed = False
        for arg in value.args:
            if isinstance(arg, ShapeExpr) and not all(_static(d) for d in arg.values):
                args.append(self.make_shape(list(arg.values)))
                changed = True
            elif isinstance(arg, PrimValue) and not _is_const(arg.value):
                args.append(self.make_prim_value(arg.value))
                changed = True
            else:
                args.append(arg)
        if not changed:
            return value
        return Call(value.op, args, value.attrs, value.ty_args, span=value.span)

    def _collect_exprs(self):
        """Slots for the composite dims of every shape in the body (known before emission)."""
        from ..expr_functor import ExprVisitor

        lowerer = self

        def need(dim):
            if not _static(dim) and not (isinstance(dim, tir_expr.Var) and dim in lowerer.slots):
                lowerer._slot_of_expr(dim)

        class _Find(ExprVisitor):
            def visit_shape_expr_(self, op):
                for dim in op.values:
                    need(dim)

            def visit_prim_value_(self, op):
                if not _is_const(op.value):
                    need(op.value)

        _Find().visit_expr(self.func.body)

    def run(self, add_shape_func):
        from ..expr import BindingBlock, Call, If, SeqExpr, Var

        self._collect()
        self._collect_exprs()
        size = len(self.slots) + len(self.exprs)
        if size:
            heap = call_builtin_with_ctx(
                "vm.builtin.alloc_shape_heap", [size], ty_args=TensorType(None, "int64", ndim=1)
            )
        else:
            heap = null_value()
        self.heap = self.emit("shape_heap", heap)
        stored = set()
        deferred = []  # (value, type, err) whose dims are matched after every check
        for i, param in enumerate(self.func.params):
            err = self._err(f"param[{i}]", param.ty, param.name_hint)
            self._check(param, param.ty, err, deferred)
        for value, ty, err in deferred:
            self._match(value, ty, err, stored)
        computed = set()

        def compute_ready():
            # Composite dims are computed as soon as every variable they read is stored.
            ready = [
                (expr, slot)
                for expr, slot in self.exprs
                if slot not in computed and _free_vars(expr) <= stored
            ]
            if ready:
                computed.update(slot for _, slot in ready)
                gvar = add_shape_func(self._shape_func(size, ready))
                self.emit("_", Call(gvar, [self.heap]))

        compute_ready()

        def lower_bindings(bindings):
            for binding in bindings:
                value = binding.value
                if isinstance(value, If):
                    value = If(
                        value.cond,
                        lower_branch(value.true_branch),
                        lower_branch(value.false_branch),
                        span=value.span,
                    )
                value = self.rewrite_shapes(value)
                if isinstance(binding, MatchCast):
                    if value is not binding.value:
                        binding = MatchCast(binding.var, value, binding.ty, span=binding.span)
                    self.out.append(binding)
                    err = self._err(f"match_cast {binding.var.name_hint}", binding.ty)
                    self._match(binding.var, binding.ty, err, stored)
                    compute_ready()
                    continue
                if value is not binding.value:
                    binding = VarBinding(binding.var, self.bb.normalize(value), span=binding.span)
                self.out.append(binding)

        def lower_branch(seq):
            # A branch's shape computations are emitted inside the branch.
            outer, self.out = self.out, []
            try:
                lower_bindings([b for block in seq.blocks for b in block.bindings])
                branch = SeqExpr([BindingBlock(self.out)], seq.body, span=seq.span)
            finally:
                self.out = outer
            return branch

        lower_bindings([b for block in self.func.body.blocks for b in block.bindings])
        ret_ty = self.func.ret_ty
        body_value = self.func.body.body
        if isinstance(body_value, Var) and _dims(ret_ty) is not None:
            self._match(body_value, ret_ty, self._err("return", ret_ty), stored)
        return self.func.replace(body=SeqExpr([BindingBlock(self.out)], body_value))

    def _shape_func(self, size, exprs):
        from ... import tirx
        from ...tirx import stmt_functor

        heap = tirx.decl_buffer((size,), "int64", name="H")
        loads = {v: tirx.BufferLoad(heap, [IntImm("int64", s)]) for v, s in self.slots.items()}
        stores = [
            tirx.BufferStore(heap, stmt_functor.substitute(expr, loads), [IntImm("int64", s)])
            for expr, s in exprs
        ]
        body = stores[0] if len(stores) == 1 else tirx.SeqStmt(stores)
        handle = tirx.Var("H_handle", "handle")
        return tirx.PrimFunc([handle], body, buffer_map={handle: heap}).with_attr(
            {"tirx.is_host_func": True}
        )


def _free_vars(expr):
    """The TIR variables an expression reads."""
    from ...tirx.stmt_functor import post_order_visit

    found = set()
    post_order_visit(expr, lambda n: found.add(n) if isinstance(n, tir_expr.Var) else None)
    return found


def _dims(ty):
    """The dims of a tensor type or a shape type, when known."""
    if isinstance(ty, TensorType):
        values = getattr(ty.shape, "values", None)
        return None if values is None else list(values)
    if isinstance(ty, ShapeType) and ty.values is not None:
        return list(ty.values)
    return None


@module_pass(opt_level=0, name="VMShapeLower")
class VMShapeLower:
    """Lower shape checks and symbolic shape computations to VM builtins (see module doc)."""

    def __init__(self, *, emit_err_ctx: bool = True):
        self.emit_err_ctx = emit_err_ctx

    def transform_module(self, mod, ctx):
        """Lower the symbolic shape computations and checks of each non-primitive Relax
        function into VM builtins on a shape heap (arithmetic goes to added ``shape_func``
        PrimFuncs).

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The module with the lowered functions and their shape functions.
        """
        bb = BlockBuilder(mod)
        for gvar, func in relax_functions(mod):
            if func.attrs and func.attrs.get("Primitive"):
                continue
            name = gvar.name_hint
            new_func = _Lowerer(func, name, bb).run(lambda prim: bb.add_func(prim, "shape_func"))
            if new_func.is_pure:
                # The checks are impure calls: a pure function now forces its purity.
                new_func = new_func.with_attr("relax.force_pure", True)
            bb.update_func(gvar, bb.normalize(new_func))
        return bb.get()
