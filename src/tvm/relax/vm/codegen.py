"""Relax function -> straight-line Python closure (the VM's "bytecode").

Each Relax function of a built module becomes the source text of one Python function, compiled
once with ``exec``. A binding becomes one line: a ``call_tir`` allocates its outputs and calls
the compiled kernel (a raw ``tvm_ffi.Function``) directly, tuples are Python tuples, symbolic
dims are Python ints held in local variables. There is no per-instruction dispatch: the per-call
cost is the parameter checks plus one Python call per kernel.

Memory: outputs that only feed kernels (never returned, put in a tuple, or passed to another
Relax function) and have static shapes are allocated once per ``VirtualMachine`` and reused by
every call; bindings whose lifetimes do not overlap share storage (``memory_plan.py``). Functions that
call other Relax functions get no planned buffers (recursion would clobber them). Everything a
call can return is allocated fresh, so results never alias a later call's work. A VM is
therefore not reentrant across threads (one VM per thread).
"""

from __future__ import annotations

import numpy as np

from ...error import InternalError
from ...ir.expr import GlobalVar
from ...ir.op import Op
from ...ir.type import PrimType, TupleType
from ..expr import (
    Call,
    Constant,
    DataTypeImm,
    ExternFunc,
    Function,
    If,
    MatchCast,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ty import ObjectType, ShapeType, TensorType
from .builtins import BUILTINS, builtin_ident
from .codegen_vm_ir import VM_IR_EMITTERS
from .memory_plan import StoragePlanner

__all__ = ["FunctionCode", "compile_function"]

# Ops whose result is a call into a compiled kernel (destination-passing style).
_CALL_TIR = ("relax.call_tir", "relax.call_tir_with_grad")


class FunctionCode:
    """The generated source of one Relax function and the constants it refers to."""

    def __init__(self, name, source, namespace, planned, kernels, fallbacks):
        self.name = name
        self.source = source
        self.namespace = namespace
        #: (slot name, shape, numpy dtype) of buffers allocated once per VM.
        self.planned = planned
        #: names of the compiled kernels the function calls, in call order.
        self.kernels = kernels
        #: ops run by their NumPy reference rule (no legalization rule was applied).
        self.fallbacks = fallbacks
        #: slot name -> index of the shared storage it is a view of (see memory_plan.py).
        self.storage_of = {}
        #: byte size of each shared storage.
        self.storage_sizes = []
        #: the Relax parameter names, in order (``set_input``/``save_function`` keywords).
        self.param_names = []


def compile_function(name, func, mod, profile=False, check_params=True) -> FunctionCode:
    """Generate the Python source that runs Relax function ``func`` (module ``mod``).

    ``check_params=False`` (``relax.vm_build._vmcodegen``, as TVM's bare VM code generator)
    checks nothing the IR does not say: the arguments' symbolic dims are still read when
    they can be, but a mismatch raises nothing (a lowered module checks with
    ``vm.builtin.check_tensor_info`` / ``match_shape`` calls of its own).
    """
    gen = _Gen(name, func, mod, profile)
    gen.check_params = check_params
    return gen.run()


def _np_dtype(dtype):
    from ..op.registry import reference_dtype

    return reference_dtype(dtype)


class _Gen:
    def __init__(self, name, func, mod, profile):
        self.name, self.func, self.mod, self.profile = name, func, mod, profile
        self.lines = []
        self.ns = {}
        self.names = {}  # relax Var -> python name
        self.sym = {}  # tir Var -> python name
        self.counter = 0
        self.lazy = set()
        self.planned = []
        self.kernels = []
        self.fallbacks = []
        self.escaping = set()
        self.aliases = []  # (view var, viewed var) of R.reshape bindings, in binding order
        self.slot_of = {}  # relax Var -> its planned slot
        self.tuple_slots = {}  # relax Var of a kernel's tuple result -> the fields' slots
        self.storage = None  # StoragePlanner, made when the first slot is planned
        self.storage_of = {}
        self.check_params = True

    # --- helpers --------------------------------------------------------------------------
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def const(self, value, prefix="_c"):
        key = self.fresh(prefix)
        self.ns[key] = value
        return key

    def emit(self, indent, line):
        self.lines.append("    " * indent + line)

    # --- driver ---------------------------------------------------------------------------
    def run(self):
        func = self.func
        self._find_escaping(func)
        self.calls_relax = _calls_relax_function(func, self.mod)
        params = []
        for p in func.params:
            # The Relax name plus "_" (never a fresh ``<prefix><digits>`` name), so Python's own
            # arity error names the parameters: "main() missing 1 required positional
            # argument: 'w_'".
            pname = _ident(p.name_hint) + "_"
            if pname[0].isdigit() or pname in params:
                pname = f"p{len(params)}_{pname}"
            self.names[p] = pname
            params.append(pname)
        # The full checks, as a separate function run only when a kernel rejected an argument
        # (the fast path below leaves dtype checks of runtime tensors to the kernels).
        self.lazy = set()
        self.emit(0, f"def _check_{_ident(self.name)}({', '.join(params)}):")
        self._param_checks(func, params)
        self.emit(1, "return None")
        checker = self.lines
        self.lines, self.sym = [], {}
        self.lazy = self._lazy_dtype_params(func) if self.check_params else set()
        self.emit(0, f"def {_ident(self.name)}({', '.join(params)}):")
        if self.check_params:
            self._param_checks(func, params)
        else:
            # Read the symbolic dims the arguments bind, raising nothing (see compile_function).
            self.emit(1, "try:")
            self.emit(2, "pass")
            self._param_checks(func, params, indent=2)
            self.emit(1, "except Exception:")
            self.emit(2, "pass")
        if self.lazy:
            self.emit(1, "try:")
            result = self.expr(func.body, 2)
            self._return_check(func, result, 2)
            self.emit(2, f"return _ret({result})")
            self.emit(1, "except (TypeError, ValueError):")
            # Re-raise as the parameter's ValueError when an argument is what is wrong.
            self.emit(2, f"_check_{_ident(self.name)}({', '.join(params)})")
            self.emit(2, "raise")
        else:
            result = self.expr(func.body, 1)
            self._return_check(func, result, 1)
            self.emit(1, f"return _ret({result})")
        source = "\n".join(checker + self.lines) + "\n"
        code = FunctionCode(
            self.name, source, self.ns, self.planned, self.kernels, self.fallbacks
        )
        if self.storage is not None:
            code.storage_of, code.storage_sizes = self.storage_of, self.storage.sizes
        code.param_names = [p.name_hint for p in func.params]
        return code

    def _find_escaping(self, func):
        """Variables whose value may leave a kernel call (returned, tupled, passed on)."""
        # Lazy: the visitor is only needed while generating code.
        from ..expr_functor import ExprVisitor

        escaping = self.escaping
        aliases = self.aliases
        views = set()

        class _Visitor(ExprVisitor):
            def visit_call_(self, call):
                op = call.op
                if call in views:
                    # R.reshape is a view: its input escapes when the view does (below).
                    for a in call.args[1:]:
                        self.visit_expr(a)
                    return
                if isinstance(op, Op) and op.name in _CALL_TIR:
                    # Kernel inputs do not escape; visit them without marking.
                    inputs = call.args[1]
                    fields = inputs.fields if isinstance(inputs, Tuple) else [inputs]
                    for f in fields:
                        if not isinstance(f, Var):
                            self.visit_expr(f)
                    for a in call.args[2:]:
                        self.visit_expr(a)
                    return
                for a in call.args:
                    _mark(a)
                super().visit_call_(call)

            def visit_tuple_(self, tup):
                for f in tup.fields:
                    _mark(f)
                super().visit_tuple_(tup)

            def visit_seq_expr_(self, seq):
                super().visit_seq_expr_(seq)
                _mark(seq.body)

            def visit_if_(self, node):
                super().visit_if_(node)
                # A branch's value is the If's value: it may be returned.
                _mark(node.true_branch)
                _mark(node.false_branch)

            def visit_var_binding_(self, binding):
                value = binding.value
                if _is_view(value):
                    views.add(value)
                    aliases.append((binding.var, value.args[0]))
                super().visit_var_binding_(binding)
                if isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
                    # A field of a tuple (a split's outputs): the tuple escapes when the
                    # field does (below), and lives as long as the field is used.
                    aliases.append((binding.var, value.tuple_value))
                    return
                if isinstance(binding.value, (Var, TupleGetItem, If)):
                    _mark(binding.value)
                    escaping.add(binding.var)  # aliases: be conservative

            def visit_match_cast_(self, binding):
                super().visit_match_cast_(binding)
                _mark(binding.value)
                escaping.add(binding.var)

        def _mark(expr):
            if isinstance(expr, Var):
                escaping.add(expr)
            elif isinstance(expr, TupleGetItem):
                _mark(expr.tuple_value)

        _Visitor().visit_expr(func)
        _mark(func.body)
        for view, viewed in reversed(aliases):
            if view in escaping:
                escaping.add(viewed)

    # --- run-time parameter checks ----------------------------------------------------------
    def _lazy_dtype_params(self, func):
        """``(param index, tuple field or None)`` of tensors that go straight into a kernel.

        Reading ``dtype`` of a runtime tensor costs about 1 µs; a kernel checks the dtype of
        its arguments anyway, so for these the fast path checks NumPy arrays only.
        """
        from ..expr_functor import ExprVisitor

        direct, items = set(), {}

        class _Visitor(ExprVisitor):
            def visit_call_(self, call):
                if isinstance(call.op, Op) and call.op.name in _CALL_TIR:
                    inputs = call.args[1]
                    fields = inputs.fields if isinstance(inputs, Tuple) else [inputs]
                    direct.update(f for f in fields if isinstance(f, Var))
                super().visit_call_(call)

            def visit_var_binding_(self, binding):
                value = binding.value
                if isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
                    items[binding.var] = (value.tuple_value, value.index)
                super().visit_var_binding_(binding)

        _Visitor().visit_expr(func)
        index = {p: i for i, p in enumerate(func.params)}
        lazy = {(index[v], None) for v in direct if v in index}
        for var, (tup, k) in items.items():
            if var in direct and tup in index:
                lazy.add((index[tup], k))
        return lazy

    def _param_checks(self, func, params, indent=1):
        deferred = []
        for i, (p, pname) in enumerate(zip(func.params, params)):
            self._check_value(pname, p.ty, i, p.name_hint, deferred, indent, lazy_key=(i, None))
        for line in deferred:
            self.emit(indent, str(line))

    def _return_check(self, func, result, indent):
        """Check the returned value against the function's return annotation, as TVM's VM
        does, when the body's type does not already prove it (``return y`` with ``y: R.Any``
        and ``-> R.Tensor(["m", "n"])``): a kind, rank or dtype mismatch raises ValueError, a
        dim mismatch RuntimeError; both messages name the return value."""
        # Lazy: the type lattice is only needed here, at code generation.
        from ..analysis.type_analysis import is_base_of

        ret_ty, body_ty = func.ret_ty, getattr(func.body, "ty", None)
        if not self.check_params or ret_ty is None or isinstance(ret_ty, ObjectType):
            return
        if body_ty is not None and is_base_of(ret_ty, body_ty):
            return
        deferred = []
        self._check_value(result, ret_ty, -2, "return", deferred, indent)
        for line in deferred:
            self.emit(indent, str(line))

    def _check_value(self, value, ty, index, pname, deferred, indent, what=None,
                     lazy_key=None):
        """Emit checks of ``value`` against ``ty``; bind symbolic dims seen first here."""
        if not self.check_params and index >= 0:
            fail = fail_dims = self.const(_ignore_mismatch, "_e")
        else:
            fail = self.const(_ParamError(self.name, index, pname, ty, what), "_e")
            fail_dims = fail
        if index == -2:  # the return value: a dim mismatch is TVM's RuntimeError
            fail_dims = self.const(_ReturnShapeError(self.name, index, pname, ty, what), "_e")
        if ty is None or isinstance(ty, ObjectType):
            return
        if isinstance(ty, TensorType):
            conds = [f"not hasattr({value}, 'shape')"]
            self.emit(indent, f"if {conds[0]}: {fail}({value})")
            shape = self.fresh("_s")
            self.emit(indent, f"{shape} = {value}.shape")
            dims = getattr(ty.shape, "values", None)
            checks = []
            if dims is not None:
                checks.append(f"len({shape}) != {len(dims)}")
            elif ty.ndim != -1:
                checks.append(f"len({shape}) != {ty.ndim}")
            if ty.dtype != "void":
                dt = self.const(_DTypeCheck(ty.dtype), "_dt")
                if lazy_key in self.lazy:
                    checks.append(f"(type({value}) is _ndarray and not {dt}({value}))")
                else:
                    checks.append(f"not {dt}({value})")
            if checks:
                self.emit(indent, f"if {' or '.join(checks)}: {fail}({value})")
            if ty.dtype != "void" and _np_dtype(ty.dtype).kind not in "biuf":
                # ml_dtypes arrays reach kernels as runtime tensors (NumPy's DLPack refuses them).
                self.emit(indent, f"{value} = _as_tensor({value})")
            if dims is not None:
                self._match_dims(shape, dims, value, fail_dims, deferred, indent)
            return
        if isinstance(ty, ShapeType):
            self.emit(indent, f"if not isinstance({value}, tuple): {fail}({value})")
            if ty.values is not None:
                self.emit(indent, f"if len({value}) != {len(ty.values)}: {fail}({value})")
                self._match_dims(value, ty.values, value, fail_dims, deferred, indent)
            return
        if isinstance(ty, TupleType):
            n = len(ty.fields)
            self.emit(
                indent,
                f"if not isinstance({value}, (tuple, list)) or len({value}) != {n}: "
                f"{fail}({value})",
            )
            for k, field_ty in enumerate(ty.fields):
                sub = self.fresh("_t")
                self.emit(indent, f"{sub} = {value}[{k}]")
                label = f"{what or ''}[{k}]"
                key = (index, k) if what is None else None
                self._check_value(sub, field_ty, index, pname, deferred, indent, label,
                                  lazy_key=key)
            return
        if isinstance(ty, PrimType):
            expr = getattr(ty, "value", None)
            if expr is not None:
                self._match_dims(f"({value},)", (expr,), value, fail_dims, deferred, indent)

    def _match_dims(self, shape, dims, value, fail, deferred, indent):
        from ...tirx.expr import IntImm
        from ...tirx.expr import Var as TirVar

        for k, dim in enumerate(dims):
            if isinstance(dim, (int, IntImm)):
                self.emit(indent, f"if {shape}[{k}] != {int(dim)}: {fail}({value})")
            elif isinstance(dim, TirVar) and dim not in self.sym:
                name = self.fresh("n")
                self.sym[dim] = name
                self.emit(indent, f"{name} = {shape}[{k}]")
            elif isinstance(dim, TirVar):
                self.emit(indent, f"if {shape}[{k}] != {self.sym[dim]}: {fail}({value})")
            else:
                # A compound dim (n * 2): checked after every parameter bound its vars.
                deferred.append(_LazyLine(self, shape, k, dim, value, fail))

    # --- expressions ------------------------------------------------------------------------
    def prim(self, expr):
        """Python source of a PrimExpr over the bound symbolic variables."""
        return _prim_source(expr, self.sym, self.name)

    def expr(self, expr, indent):
        """Emit code computing ``expr``; return the Python expression holding its value."""
        if isinstance(expr, Var):
            if expr not in self.names:
                raise ValueError(
                    f"relax.build: {expr.name_hint} is used before it is defined in function "
                    f"{self.name} (invalid IR)"
                )
            return self.names[expr]
        if isinstance(expr, Constant):
            return self.const(np.require(expr.data.numpy(), requirements="C"))
        if isinstance(expr, Tuple):
            items = [self.expr(f, indent) for f in expr.fields]
            return "(" + "".join(f"{i}, " for i in items) + ")"
        if isinstance(expr, TupleGetItem):
            return f"{self.expr(expr.tuple_value, indent)}[{expr.index}]"
        if isinstance(expr, ShapeExpr):
            items = [self.prim(v) for v in expr.values]
            return "(" + "".join(f"{i}, " for i in items) + ")"
        if isinstance(expr, PrimValue):
            return self.prim(expr.value)
        if isinstance(expr, (StringImm, DataTypeImm)):
            return repr(str(expr.value))
        if isinstance(expr, SeqExpr):
            for block in expr.blocks:
                for binding in block.bindings:
                    self.binding(binding, indent)
            return self.expr(expr.body, indent)
        if isinstance(expr, If):
            return self._if(expr, indent)
        if isinstance(expr, GlobalVar):
            return f"_funcs[{expr.name_hint!r}]"
        if isinstance(expr, ExternFunc):
            if expr.global_symbol in BUILTINS:
                return builtin_ident(expr.global_symbol)  # bound when the VM links the code
            return f"_packed({expr.global_symbol!r})"
        if isinstance(expr, Function):
            raise ValueError(  # noqa: TRY004 - invalid IR for the VM, not a bad argument
                f"relax.build: function {self.name} binds a local function; the VM runs lifted "
                "functions only (run relax.transform.LambdaLift first; relax.build does)"
            )
        if isinstance(expr, Call):
            return self.call(expr, indent, None)
        raise ValueError(
            f"relax.build: function {self.name}: the VM does not run "
            f"{type(expr).__name__} expressions"
        )

    def binding(self, binding, indent):
        var = binding.var
        name = self.fresh("v")
        value = binding.value
        if isinstance(value, TupleGetItem) and value.tuple_value in self.tuple_slots:
            slot = self.tuple_slots[value.tuple_value][value.index]
            if slot is not None:
                self.slot_of[var] = slot
        if isinstance(binding.value, Call):
            value = self.call(binding.value, indent, var)
        else:
            value = self.expr(binding.value, indent)
        if value == "None" and not isinstance(binding, MatchCast):
            self.names[var] = "None"  # kills, direct kernel calls: nothing to keep
            return
        self.emit(indent, f"{name} = {value}")
        if isinstance(binding, MatchCast):
            deferred = []
            self._check_value(name, binding.ty, -1, var.name_hint, deferred, indent)
            for line in deferred:
                self.emit(indent, str(line))
        self.names[var] = name

    def _if(self, expr, indent):
        cond = self.expr(expr.cond, indent)
        out = self.fresh("r")
        self.emit(indent, f"if _truth({cond}):")
        t = self.expr(expr.true_branch, indent + 1)
        self.emit(indent + 1, f"{out} = {t}")
        self.emit(indent, "else:")
        f = self.expr(expr.false_branch, indent + 1)
        self.emit(indent + 1, f"{out} = {f}")
        return out

    # --- calls ------------------------------------------------------------------------------
    def call(self, call, indent, var):
        op = call.op
        if isinstance(op, Op):
            name = op.name
            if name in _CALL_TIR:
                return self._call_tir(call, indent, var)
            if _is_view(call):
                return self._reshape_view(call, indent, var)
            if name == "relax.call_tir_inplace":
                return self._call_tir_inplace(call, indent)
            special = _SPECIAL.get(name)
            if special is not None:
                return special(self, call, indent)
            return self._fallback(call, indent)
        if isinstance(op, GlobalVar):
            target = self.mod[op]
            from ...tirx.function import PrimFunc  # lazy: the TIR layer only for kernels

            if isinstance(target, PrimFunc):
                # A direct destination-passing call (after CallTIRRewrite): f(inputs..., outs).
                kernel = self._kernel(op.name_hint)
                args = [self.expr(a, indent) for a in call.args]
                if self.profile:
                    self.emit(indent, f"_prof({op.name_hint!r}, {', '.join([kernel] + args)})")
                else:
                    self.emit(indent, f"{kernel}({', '.join(args)})")
                return "None"
            args = [self.expr(a, indent) for a in call.args]
            return f"_funcs[{op.name_hint!r}]({', '.join(args)})"
        callee = self.expr(op, indent)
        args = [self.expr(a, indent) for a in call.args]
        if isinstance(op, Var):
            # A function value (a callback passed in, or a closure): it receives runtime
            # tensors, as from any VM call (NumPy arrays are wrapped without a copy).
            args = [f"_ret({a})" for a in args]
        return f"{callee}({', '.join(args)})"

    def _kernel(self, name):
        key = f"_k_{_ident(name)}"
        self.ns.setdefault("__kernels__", {})[key] = name
        self.kernels.append(name)
        return key

    def _out_types(self, call):
        out_ty = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
        if not call.ty_args:
            out_ty = call.ty
        tys = list(out_ty.fields) if isinstance(out_ty, TupleType) else [out_ty]
        return tys, isinstance(out_ty, TupleType)

    def _alloc(self, ty, indent, planned_ok, what, var=None):
        if not isinstance(ty, TensorType) or getattr(ty.shape, "values", None) is None:
            raise ValueError(
                f"relax.build: function {self.name}: {what} needs an output type with a known "
                f"shape, got {ty}"
            )
        dtype = self.const(_np_dtype(ty.dtype), "_d")
        dims = [self.prim(v) for v in ty.shape.values]
        static = all(d.lstrip("-").isdigit() for d in dims)
        shape = "(" + "".join(f"{d}, " for d in dims) + ")"
        if planned_ok and static and _np_dtype(ty.dtype).kind in "biuf":
            slot = self.fresh("_p")
            shape_ints = tuple(int(d) for d in dims)
            self.planned.append((slot, shape_ints, _np_dtype(ty.dtype)))
            if self.storage is None:
                self.storage = StoragePlanner(self.func, self.aliases)
            nbytes = _np_dtype(ty.dtype).itemsize
            for d in shape_ints:
                nbytes *= d
            self.storage_of[slot] = self.storage.assign(var, nbytes)
            if var is not None:
                self.slot_of[var] = slot
            return f"_mem[{slot!r}]", None
        out = self.fresh("o")
        if _np_dtype(ty.dtype).kind in "biuf":
            self.emit(indent, f"{out} = _empty({shape}, {dtype})")
        else:
            # NumPy cannot export ml_dtypes (bfloat16, float8) through DLPack: runtime tensors.
            self.emit(indent, f"{out} = _empty_tensor({shape}, {str(ty.dtype)!r})")
        return out, out

    def _call_tir(self, call, indent, var):
        gvar = call.args[0]
        kernel = self._kernel(gvar.name_hint)
        inputs = call.args[1]
        fields = list(inputs.fields) if isinstance(inputs, Tuple) else [inputs]
        args = [self.expr(f, indent) for f in fields]
        if isinstance(inputs, Var):
            args = [f"*{args[0]}"] if isinstance(inputs.ty, TupleType) else args
        tys, is_tuple = self._out_types(call)
        # A tuple result is planned when only its fields are read (each kept alive as long as
        # the tuple: ``memory_plan`` extends its lifetime to the fields' last uses).
        planned_ok = var is not None and var not in self.escaping and not self.calls_relax
        outs = []
        for ty in tys:
            out, _ = self._alloc(ty, indent, planned_ok, f"R.call_tir({gvar.name_hint})", var)
            outs.append(out)
        if is_tuple and var in self.slot_of:
            del self.slot_of[var]
            self.tuple_slots[var] = [o[len("_mem['"):-len("']")] if o.startswith("_mem[")
                                     else None for o in outs]
        self._emit_kernel_call(call, indent, gvar, kernel, args + outs)
        if is_tuple:
            return "(" + "".join(f"{o}, " for o in outs) + ")"
        return outs[0]

    def _emit_kernel_call(self, call, indent, gvar, kernel, args):
        """The kernel call of a ``call_tir``-like call: ``args`` then the symbolic TIR
        variables (``call.args[2]``), through the profiler when profiling."""
        extra = []
        if len(call.args) > 2:
            tir_vars = call.args[2]
            if isinstance(tir_vars, ShapeExpr):
                extra = [self.prim(v) for v in tir_vars.values]
            else:
                extra = [f"*{self.expr(tir_vars, indent)}"]
        all_args = ", ".join(args + extra)
        if self.profile:
            self.emit(indent, f"_prof({gvar.name_hint!r}, {kernel}, {all_args})")
        else:
            self.emit(indent, f"{kernel}({all_args})")

    def _reshape_view(self, call, indent, var):
        """``R.reshape`` as a view of its input's memory (no kernel, no copy).

        The view of a planned buffer is itself a planned slot on the same storage, made once
        when the VM links (``memory_plan`` keeps the storage alive while the view is used);
        any other input (a parameter, a fresh result) is viewed at run time (``_view``).
        """
        data = call.args[0]
        ty = call.ty
        src_slot = self.slot_of.get(data)
        dims = [self.prim(v) for v in ty.shape.values]
        static = all(d.lstrip("-").isdigit() for d in dims)
        if src_slot is not None and var is not None and var not in self.escaping and static:
            slot = self.fresh("_p")
            self.planned.append((slot, tuple(int(d) for d in dims), _np_dtype(ty.dtype)))
            self.storage_of[slot] = self.storage_of[src_slot]
            self.slot_of[var] = slot
            return f"_mem[{slot!r}]"
        shape = "(" + "".join(f"{d}, " for d in dims) + ")"
        return f"_view({self.expr(data, indent)}, {shape})"

    def _call_tir_inplace(self, call, indent):
        """The kernel writes the in-place outputs into their inputs; new outputs are
        allocated (never from the planned buffers: they may escape with the inputs)."""
        gvar = call.args[0]
        kernel = self._kernel(gvar.name_hint)
        inputs = call.args[1]
        args = [self.expr(f, indent) for f in inputs.fields]
        tys, is_tuple = self._out_types(call)
        results, fresh = [], []
        for ty, index in zip(tys, call.attrs.inplace_indices):
            if int(index) != -1:
                results.append(args[int(index)])
                continue
            out, _ = self._alloc(ty, indent, False, f"R.call_tir_inplace({gvar.name_hint})")
            fresh.append(out)
            results.append(out)
        self._emit_kernel_call(call, indent, gvar, kernel, args + fresh)
        if is_tuple:
            return "(" + "".join(f"{r}, " for r in results) + ")"
        return results[0]

    def _fallback(self, call, indent):
        op = call.op
        rule = op.get_attr("FReference")
        if rule is None:
            raise ValueError(
                f"relax.build: function {self.name} calls {op.name}, which was not legalized "
                "(no R.call_tir) and has no reference rule the VM could run; run "
                "relax.transform.LegalizeOps first or register a legalization for it"
            )
        self.fallbacks.append(op.name)
        fn = self.const(_Reference(op.name, rule, call.attrs), "_ref")
        args = [self.expr(a, indent) for a in call.args]
        if self.profile:
            return f"_prof({'numpy:' + op.name!r}, {fn}, {', '.join(args)})"
        return f"{fn}({', '.join(args)})"

    def _builtin(fn_name):
        def emit(self, call, indent):
            args = [self.expr(a, indent) for a in call.args]
            return f"{fn_name}({', '.join(args)})"

        return emit

    def _alloc_tensor(self, call, indent):
        out, _ = self._alloc(call.ty, indent, False, "R.builtin.alloc_tensor")
        return out

    def _call_dps_packed(self, call, indent):
        func = self.expr(call.args[0], indent)
        inputs = call.args[1]
        fields = list(inputs.fields) if isinstance(inputs, Tuple) else [inputs]
        args = [self.expr(f, indent) for f in fields]
        tys, is_tuple = self._out_types(call)
        outs = [self._alloc(ty, indent, False, "R.call_dps_packed")[0] for ty in tys]
        self.emit(indent, f"{func}({', '.join(args + outs)})")
        return "(" + "".join(f"{o}, " for o in outs) + ")" if is_tuple else outs[0]

    def _call_packed(self, call, indent):
        func = self.expr(call.args[0], indent)
        args = [self.expr(a, indent) for a in call.args[1:]]
        return f"{func}({', '.join(args)})"

    def _print(self, call, indent):
        args = [self.expr(a, indent) for a in call.args]
        self.emit(indent, f"_print({', '.join(args)})")
        return "()"


_SPECIAL = {
    "relax.shape_of": _Gen._builtin("_shape_of"),
    "relax.null_value": lambda self, call, indent: "None",
    "relax.call_dps_packed": _Gen._call_dps_packed,
    "relax.call_pure_packed": _Gen._call_packed,
    "relax.call_packed": _Gen._call_packed,
    "relax.builtin.alloc_tensor": _Gen._alloc_tensor,
    "relax.print": _Gen._print,
    "relax.memory.kill_tensor": lambda self, call, indent: "None",
    "relax.memory.kill_storage": lambda self, call, indent: "None",
    **VM_IR_EMITTERS,
}


class _LazyLine:
    """A compound-dim check, rendered once every symbolic variable has been bound."""

    def __init__(self, gen, shape, k, dim, value, fail):
        self.gen, self.shape, self.k, self.dim, self.value, self.fail = (
            gen, shape, k, dim, value, fail
        )

    def __str__(self):
        expect = self.gen.prim(self.dim)
        return f"if {self.shape}[{self.k}] != {expect}: {self.fail}({self.value})"


def _is_view(call):
    """Whether ``call`` is an ``R.reshape`` of a variable with a known result shape (a view)."""
    if not (isinstance(call, Call) and isinstance(call.op, Op) and call.op.name == "relax.reshape"):
        return False
    ty = call.ty
    return isinstance(call.args[0], Var) and isinstance(ty, TensorType) \
        and getattr(ty.shape, "values", None) is not None


def _calls_relax_function(func, mod):
    from ..expr_functor import ExprVisitor

    found = []

    class _Visitor(ExprVisitor):
        def visit_global_var_(self, gvar):
            if isinstance(mod[gvar], Function):
                found.append(gvar)

        def visit_call_(self, call):
            # A call of a function value or closure may re-enter this function.
            if isinstance(call.op, Var) or (
                isinstance(call.op, Op)
                and call.op.name in ("relax.invoke_closure", "relax.invoke_pure_closure")
            ):
                found.append(call)
            super().visit_call_(call)

    _Visitor().visit_expr(func.body)
    return bool(found)


def _ident(name):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in str(name)) or "f"


def _prim_source(expr, sym, fname):
    from ...tirx import expr as te

    if isinstance(expr, (int, np.integer)):
        return str(int(expr))
    if isinstance(expr, (float, bool)):
        return repr(expr)
    if isinstance(expr, te.IntImm):
        return str(int(expr.value))
    if isinstance(expr, te.FloatImm):
        return repr(float(expr.value))
    if isinstance(expr, te.Var):
        if expr not in sym:
            raise ValueError(
                f"relax.build: function {fname}: symbolic variable {expr.name} is used before "
                "a parameter or match_cast defines it"
            )
        return sym[expr]
    if isinstance(expr, te.Cast):
        inner = _prim_source(expr.value, sym, fname)
        return f"int({inner})" if "int" in expr.dtype else f"float({inner})"
    ops = {te.Add: "+", te.Sub: "-", te.Mul: "*", te.FloorDiv: "//", te.FloorMod: "%",
           te.EQ: "==", te.NE: "!=", te.LT: "<", te.LE: "<=", te.GT: ">", te.GE: ">="}
    for cls, sign in ops.items():
        if type(expr) is cls:
            a = _prim_source(expr.a, sym, fname)
            b = _prim_source(expr.b, sym, fname)
            return f"({a} {sign} {b})"
    if isinstance(expr, (te.Min, te.Max)):
        fn = "min" if isinstance(expr, te.Min) else "max"
        return f"{fn}({_prim_source(expr.a, sym, fname)}, {_prim_source(expr.b, sym, fname)})"
    raise ValueError(
        f"relax.build: function {fname}: the VM cannot evaluate the shape expression {expr} "
        f"({type(expr).__name__}); supported: + - * // % min max casts and comparisons"
    )


class _DTypeCheck:
    """``check(x)``: whether tensor ``x`` (NumPy array or runtime Tensor) has the dtype."""

    __slots__ = ("accepted", "name")

    def __init__(self, name):
        self.name = name
        self.accepted = set()

    def __call__(self, x):
        dt = x.dtype
        try:
            if dt in self.accepted:
                return True
        except TypeError:
            pass
        ok = str(dt) == self.name or (isinstance(dt, np.dtype) and dt == _np_dtype(self.name))
        if ok:
            try:
                self.accepted.add(dt)  # hashable dtype objects are remembered
            except TypeError:
                pass
        return ok


class _ParamError:
    """Raises the ValueError of a parameter (or match_cast) that does not fit its type."""

    def __init__(self, fname, index, pname, ty, what):
        self.fname, self.index, self.pname, self.what = fname, index, pname, what
        # The annotation is printed when first needed (an error, or pickling: exported
        # executables keep the text); printing every parameter's type at build time cost
        # ~10 ms of a training-step build.
        self._ty, self._annotation = ty, None
        self.ndim = ty.ndim if isinstance(ty, TensorType) else -1
        self.kind = _kind_of(ty)

    @property
    def annotation(self) -> str:
        if self._annotation is None:
            self._annotation = _annotation(self._ty)
        return self._annotation

    def __getstate__(self):
        state = dict(self.__dict__, _annotation=self.annotation)
        state["_ty"] = None
        return state

    def __call__(self, value):
        annotation = self.annotation
        got = _describe(value)
        if self.index == -2:
            where = f"the return value{self.what or ''}"
        elif self.index < 0:
            where = f"R.match_cast of {self.pname}"
        else:
            where = f"parameter {self.index} ({self.pname}{self.what or ''})"
        shape = getattr(value, "shape", None)
        ndim = getattr(self, "ndim", -1)
        if shape is not None and ndim not in (-1, len(shape)):
            got += f" (ndim {len(shape)}, expected ndim {ndim})"
        message = f"VirtualMachine: function {self.fname}: {where} expects {annotation}, got {got}"
        if _wrong_kind(getattr(self, "kind", None), value):
            # A value of another kind (a list for a tensor): TVM's TypeError.
            raise TypeError(message)
        raise ValueError(message)


def _kind_of(ty):
    """The kind of value a type describes: "tensor", "shape", "tuple" or None (any other)."""
    if isinstance(ty, TensorType):
        return "tensor"
    return {"ShapeType": "shape", "TupleType": "tuple"}.get(type(ty).__name__)


def _wrong_kind(kind, value) -> bool:
    """Whether ``value`` is not even of ``kind`` (a list given for a tensor)."""
    if kind == "tensor":
        return isinstance(value, tuple) or not hasattr(value, "shape")
    if kind == "shape":
        return not isinstance(value, tuple)
    if kind == "tuple":
        return not isinstance(value, (tuple, list)) or hasattr(value, "shape")
    return False


def _ignore_mismatch(_value):
    """The failure action of unchecked parameters (``compile_function(check_params=False)``)."""


class _ReturnShapeError(_ParamError):
    """The RuntimeError of a returned value whose dims differ from the return annotation."""

    def __call__(self, value):
        try:
            super().__call__(value)
        except ValueError as err:
            raise RuntimeError(str(err)) from None


def _annotation(ty):
    try:
        return ty.script()
    except Exception:  # noqa: BLE001 - printing is best effort; the type's repr still says it
        return str(ty)


def _describe(value):
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"a tensor of shape {tuple(shape)} and dtype {value.dtype}"
    return f"{type(value).__name__} {value!r}"


class _Reference:
    """An op run by its NumPy reference rule (used when an op was not legalized)."""

    def __init__(self, name, rule, attrs):
        self.name, self.rule, self.attrs = name, rule, attrs

    def __call__(self, *args):
        values = [np.asarray(a) if hasattr(a, "shape") else a for a in args]
        result = self.rule(self.attrs, *values)
        return _as_arrays(result)


def _as_arrays(value):
    if isinstance(value, tuple):
        return tuple(_as_arrays(v) for v in value)
    if isinstance(value, (np.ndarray, np.generic)):
        # np.require keeps 0-d arrays 0-d (ascontiguousarray would make them 1-d).
        return np.require(np.asarray(value), requirements="C")
    return value


def check_invariant(cond, message):
    """Raise InternalError when a VM code-generation invariant does not hold."""
    if not cond:
        raise InternalError(message)
