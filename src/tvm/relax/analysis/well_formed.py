"""``relax.analysis.well_formed`` / ``check_well_formed``: the rules of Relax's normal form.

:func:`well_formed` raises on the first violation (``ValueError`` or ``TypeError``), seeded with
the offending node (``tvm.ir.error_context``), so that inside a pass the error is rendered with
that node underlined. :func:`check_well_formed` returns a bool. The rules (spec C.5), with the
stem of each message:

1. every expression except an ``Op`` has a type: ``The ty of Expr <e> is missing.``; with
   ``check_ty``, so do the Relax variables a type depends on (``R.Tensor(shape_var)``);
2. a GlobalVar used in a module is that module's (``GlobalVar <gv> is not defined.``) and its
   type, if any, is a function type (``The ty of GlobalVar <gv> must be either FuncType.``);
3. a ``global_symbol`` attribute equals the GlobalVar's name;
4. a Var is a parameter of one function only, and a symbolic var is defined by one function's
   signature only;
5. variables (Relax and symbolic) are defined before use, also in a call's ``ty_args`` and a
   function's return type;
6. each variable is defined once;
7. DataflowVars are defined and used only inside DataflowBlocks, never as parameters, never in
   a dependent type;
8. variables bound inside an ``If`` branch are not visible after it (reported as rule 5);
9. a SeqExpr is only a function body or an ``If`` branch, and its body is a leaf;
10. ANF: call callees and arguments, tuple fields, a TupleGetItem's tuple and an If's condition
    are leaves (Var, DataflowVar, GlobalVar, Constant, ShapeExpr, PrimValue, StringImm,
    DataTypeImm, ExternFunc, Op, or a Tuple);
11. functions have a return type;
12. no ``If`` inside a DataflowBlock;
13. (``check_ty``) no impure call inside a DataflowBlock;
14. (``check_ty``) a pure function without ``relax.force_pure`` contains no impure call;
15. ``relax.force_pure`` requires ``is_pure``;
16. ShapeExpr values are integers;
17. no TIR PrimFunc inline as a binding value;
18. (``check_ty``) a binding's value type is a subtype of the variable's type;
19. calls to an op with an ``FNormalize`` rule are normalized by it;
20. calls to an op with an ``FValidate`` rule pass it;
21. (``check_ty``) a call's type can be re-inferred, and its annotation is not provably wrong.

Only Relax functions of a module are checked; TIR functions are left to
``tvm.tirx.analysis.verify_well_formed``. Conservative where the rules are undecidable: a
binding whose value type can be neither proved nor refuted a subtype (symbolic shapes) passes.
"""

from __future__ import annotations

from ...ffi.node import Node
from ...ir.error_context import attach_node
from ...ir.expr import GlobalVar
from ...ir.module import IRModule
from ...ir.op import Op
from ...support.recursion import deep_recursion
from ..expr import (
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
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
    VarBinding,
)
from ..op.infer_utils import text
from ..ty import FuncType
from .binding_analysis import _call_is_impure
from .type_analysis import BaseCheckResult, definable_tir_vars_in_type, struct_info_base_check

__all__ = ["check_well_formed", "well_formed"]

_LEAVES = (Var, GlobalVar, Constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, ExternFunc, Op)
_FAILS = (BaseCheckResult.FAIL_L0, BaseCheckResult.FAIL_L1)


def well_formed(obj, check_ty: bool = True, *, check_struct_info=None) -> None:
    """Check that a Relax ``IRModule`` or ``Function`` is well-formed; raise on a violation.

    Parameters
    ----------
    obj : IRModule or relax.Function
    check_ty : bool
        Also check the rules that need types (13, 14, 18, 21 above).
    check_struct_info : bool, optional
        The seed-era name of ``check_ty``.

    Raises
    ------
    ValueError or TypeError
        At the first violation, naming the rule and the node; the exception carries the
        node (``tvm.ir.error_context.error_node``).

    Examples
    --------
    >>> from tvm import relax
    >>> x = relax.Var("x", relax.TensorType([3], "float32"))
    >>> relax.analysis.well_formed(relax.Function([x], relax.SeqExpr([], x)))
    >>> undefined = relax.Var("u", relax.TensorType([3], "float32"))
    >>> relax.analysis.well_formed(relax.Function([x], relax.SeqExpr([], undefined)))
    Traceback (most recent call last):
    ...
    ValueError: Var u is not defined.
    """
    if check_struct_info is not None:
        check_ty = check_struct_info
    with deep_recursion("relax.analysis.well_formed"):
        _Checker(obj, bool(check_ty)).run()


def check_well_formed(obj, check_ty: bool = True, *, check_struct_info=None) -> bool:
    """Whether ``obj`` passes :func:`well_formed` (False on any error it raises)."""
    try:
        well_formed(obj, check_ty, check_struct_info=check_struct_info)
    except Exception:  # noqa: BLE001 - any failure of the check means "not well-formed"
        return False
    return True


def _fail(cls, message, node):
    raise attach_node(cls(message), node)


def _type_dependencies(ty):
    """``(symbolic TIR vars, Relax vars)`` a type depends on, outside nested function types
    (which bind their own)."""
    symbolic, relax_vars = {}, []
    stack = [ty]
    while stack:
        value = stack.pop()
        if isinstance(value, (list, tuple)):
            stack.extend(value)
            continue
        fields = getattr(value, "_fields", None)
        if fields is None or isinstance(value, FuncType):
            continue
        if isinstance(value, Var):
            relax_vars.append(value)
        elif value._sequal_kind == "var" and hasattr(value, "dtype"):
            symbolic.setdefault(id(value), value)
        else:
            for fobj in fields:
                if fobj.role != "ignore":
                    child = getattr(value, fobj.name, None)
                    # Only nodes and sequences can hold variables (skip ints, strings).
                    if isinstance(child, (Node, list, tuple)):
                        stack.append(child)
    return list(symbolic.values()), relax_vars


class _FuncState:
    """What is visible inside one function being checked."""

    def __init__(self, name, func, gvar):
        self.name = name
        self.func = func
        self.gvar = gvar  # the module's GlobalVar of a top-level function (recursive calls)
        self.tir_defined = set()
        # A pure function without force_pure must not contain impure calls (rule 14).
        self.check_purity = func.is_pure and not func.get_attr("relax.force_pure", False)


class _Checker:
    """One well-formedness check over a module or a function."""

    def __init__(self, obj, check_ty):
        if not isinstance(obj, (IRModule, Function)):
            raise TypeError(
                f"well_formed expects an IRModule or a relax.Function, got {type(obj).__name__}"
            )
        self.obj = obj
        self.mod = obj if isinstance(obj, IRModule) else None
        self.check_ty = check_ty
        self.param_owner = {}  # id(relax param) -> function name (rule 4)
        self.sym_owner = {}  # id(symbolic var) -> function name (rule 4b)
        self.ever_defined = set()  # ids of Relax vars defined anywhere (rule 6)
        self.visible = set()  # ids of Relax vars in scope (rule 5)
        self.in_dataflow = False
        self.funcs = []  # stack of _FuncState
        self._builder = None

    # --- entry ---------------------------------------------------------------------------------
    def run(self):
        if self.mod is None:
            self.visit_function(self.obj, _func_name(self.obj, None))
            return
        for gvar, func in self.mod.functions.items():
            if not isinstance(func, Function):
                continue  # TIR functions are verified by tvm.tirx.analysis
            symbol = func.get_attr("global_symbol")
            if symbol is not None and str(symbol) != gvar.name_hint:
                _fail(
                    ValueError,
                    "Name in GlobalVar is not equal to name in gsymbol: "
                    f'I.GlobalVar("{gvar.name_hint}") != {symbol}',
                    func,
                )
            self.visit_function(func, gvar.name_hint, gvar)

    # --- functions -----------------------------------------------------------------------------
    def visit_function(self, func, name, gvar=None):
        if func.attrs is not None and func.get_attr("relax.force_pure", False) and not func.is_pure:
            _fail(
                ValueError,
                f"Function {name} has true for relax.force_pure but false for is_pure; "
                "relax.force_pure should be true only if is_pure is also true.",
                func,
            )
        if func.ret_ty is None:
            _fail(TypeError, "Function must have defined ret_ty", func)
        state = _FuncState(name, func, gvar)
        outer = self.funcs[-1] if self.funcs else None
        if outer is not None:
            state.tir_defined |= outer.tir_defined  # closures see the enclosing signature
        self.funcs.append(state)
        saved_visible, saved_dataflow = set(self.visible), self.in_dataflow
        self.in_dataflow = False
        try:
            self._define_params(func, state)
            if isinstance(func.body, SeqExpr):
                self.visit_seq(func.body)
            elif func.body is not None:
                self.visit(func.body)
            # Rule 5 for the return type: its symbolic variables come from the parameters or
            # from a match_cast of the body.
            self._check_symbolic_uses(func.ret_ty, func)
        finally:
            self.funcs.pop()
            self.visible, self.in_dataflow = saved_visible, saved_dataflow

    def _define_params(self, func, state):
        for param in func.params:
            if param.ty is None:
                _fail(TypeError, f"The ty of Expr {param.name_hint} is missing.", param)
            if isinstance(param, DataflowVar):
                _fail(
                    ValueError,
                    f"DataflowVar {param.name_hint} is defined outside DataflowBlock.",
                    param,
                )
            owner = self.param_owner.get(id(param))
            if owner is not None and owner != state.name:
                _fail(
                    ValueError,
                    f"Relax variable {param.name_hint} is used as a parameter in both function "
                    f'"{owner}" and function "{state.name}".',
                    param,
                )
            self.param_owner[id(param)] = state.name
            self._define_var(param)
            for sym in definable_tir_vars_in_type(param.ty):
                owner = self.sym_owner.get(id(sym))
                if owner is not None and owner != state.name and len(self.funcs) == 1:
                    _fail(
                        ValueError,
                        f'Var {sym.name} is defined in both function "{owner}" and function '
                        f'"{state.name}".',
                        param,
                    )
                if len(self.funcs) == 1:
                    self.sym_owner[id(sym)] = state.name
                state.tir_defined.add(id(sym))
        for param in func.params:
            self._check_symbolic_uses(param.ty, param)

    # --- variables -----------------------------------------------------------------------------
    def _define_var(self, var):
        if id(var) in self.ever_defined:
            kind = "DataflowVar" if isinstance(var, DataflowVar) else "Var"
            _fail(ValueError, f"{kind} {var.name_hint} is defined more than once.", var)
        self.ever_defined.add(id(var))
        self.visible.add(id(var))

    def _check_symbolic_uses(self, ty, node):
        if ty is None or not self.funcs:
            return
        symbolic, relax_vars = _type_dependencies(ty)
        for var in relax_vars:
            if isinstance(var, DataflowVar):
                _fail(
                    ValueError, "DataflowVar cannot be used as a dependent type expression.", node
                )
            if self.check_ty and var.ty is None:
                # Rule 1b: expressions embedded in a type are typed as well.
                _fail(TypeError, f"Expr must have ty populated.  Expr.type_key={var.type_key}", var)
        defined = self.funcs[-1].tir_defined
        for sym in symbolic:
            if id(sym) not in defined:
                _fail(ValueError, f"Var {sym.name} is not defined.", node)

    def visit_var(self, var):
        if isinstance(var, DataflowVar):
            if not self.in_dataflow:
                _fail(
                    ValueError, f"DataflowVar {var.name_hint} is used outside DataflowBlock.", var
                )
            if id(var) not in self.visible:
                _fail(ValueError, f"DataflowVar {var.name_hint} is not defined.", var)
        elif id(var) not in self.visible:
            _fail(ValueError, f"Var {var.name_hint} is not defined.", var)

    # --- sequences and bindings ----------------------------------------------------------------
    def visit_seq(self, seq):
        """A SeqExpr in one of its allowed places (function body, If branch)."""
        self._require_ty(seq)
        saved_visible = set(self.visible)
        try:
            for block in seq.blocks:
                self.visit_block(block)
            if not isinstance(seq.body, (*_LEAVES, Tuple)):
                _fail(TypeError, "SeqExpr bodies must be leaf expressions.", seq.body)
            self.visit(seq.body)
        finally:
            self.visible = saved_visible  # rule 8: bindings of a branch do not escape it

    def visit_block(self, block):
        is_dataflow = isinstance(block, DataflowBlock)
        saved_dataflow = self.in_dataflow
        self.in_dataflow = is_dataflow
        defined_here = []
        try:
            for binding in block.bindings:
                self.visit_binding(binding, is_dataflow)
                defined_here.append(binding.var)
        finally:
            self.in_dataflow = saved_dataflow
        for var in defined_here:
            if isinstance(var, DataflowVar):
                self.visible.discard(id(var))  # dataflow vars end with their block

    def visit_binding(self, binding, is_dataflow):
        value = binding.value
        if getattr(value, "type_key", "") == "tirx.PrimFunc":
            _fail(ValueError, "Inline PrimFunc is disallowed in Relax IR.", value)
        if is_dataflow and isinstance(value, If):
            _fail(ValueError, "If nodes are not allowed to appear in dataflow blocks.", value)
        if isinstance(value, SeqExpr):
            _fail(
                ValueError,
                "SeqExpr only serves as the function body in FunctionNode, or the true/false "
                "branch body in IfNode.",
                value,
            )
        var = binding.var
        local_function = isinstance(value, Function)
        if local_function:
            # A local function may call itself through the variable it is bound to.
            self._define_var(var)
            self.visit_function(value, var.name_hint)
        else:
            self.visit(value)
        if isinstance(var, DataflowVar) and not is_dataflow:
            _fail(ValueError, f"DataflowVar {var.name_hint} is defined outside DataflowBlock.", var)
        state = self.funcs[-1]
        if isinstance(binding, MatchCast):
            for sym in definable_tir_vars_in_type(binding.ty):
                state.tir_defined.add(id(sym))
            self._check_symbolic_uses(binding.ty, binding)
        if not local_function:
            self._define_var(var)
        if var.ty is None:
            _fail(TypeError, f"The ty of Expr {var.name_hint} is missing.", var)
        if self.check_ty:  # as in TVM, a binding's annotation is a type check
            self._check_symbolic_uses(var.ty, var)
        if (
            isinstance(binding, VarBinding)
            and self.check_ty
            and value.ty is not None
            and struct_info_base_check(var.ty, value.ty) in self._assign_fails(value)
        ):
            _fail(
                TypeError,
                f"Expression of type {text(value.ty)} cannot be assigned to a variable of "
                f"type {text(var.ty)}",
                binding,
            )

    @staticmethod
    def _assign_fails(value):
        """Base-check results that make binding ``value`` to a typed variable an error."""
        # A call bound to a more specific annotation is accepted as long as the annotation is
        # not provably wrong (TVMScript ``w: R.Tensor((3, 3)) = R.add(x, x)``; rule 21 checks
        # the call itself). Other values need a match_cast to narrow their type.
        return (BaseCheckResult.FAIL_L0,) if isinstance(value, Call) else _FAILS

    # --- expressions ---------------------------------------------------------------------------
    def _require_ty(self, expr):
        if expr.ty is None:
            shown = expr.name_hint if isinstance(expr, Var) else text(expr)
            _fail(TypeError, f"The ty of Expr {shown} is missing.", expr)

    def _require_leaf(self, expr, cls, message):
        if not isinstance(expr, (*_LEAVES, Tuple)):
            _fail(cls, message, expr)

    def visit(self, expr):
        if isinstance(expr, Op):
            return
        if isinstance(expr, GlobalVar):
            self.visit_global_var(expr)
            return
        self._require_ty(expr)
        if isinstance(expr, Var):
            self.visit_var(expr)
        elif isinstance(expr, Call):
            self.visit_call(expr)
        elif isinstance(expr, Tuple):
            for index, item in enumerate(expr.fields):
                self._require_leaf(
                    item, ValueError, f"Tuple is not in ANF form, field {index} gets {_key(item)}"
                )
                self.visit(item)
        elif isinstance(expr, TupleGetItem):
            self._require_leaf(
                expr.tuple_value,
                TypeError,
                "The tuple value in a TupleGetItem node must be a leaf expression.",
            )
            self.visit(expr.tuple_value)
        elif isinstance(expr, If):
            self._require_leaf(
                expr.cond, TypeError, "The condition for an if node must be a leaf expression."
            )
            self.visit(expr.cond)
            for branch in (expr.true_branch, expr.false_branch):
                if isinstance(branch, SeqExpr):
                    self.visit_seq(branch)
                else:
                    self.visit(branch)
        elif isinstance(expr, SeqExpr):
            _fail(
                ValueError,
                "SeqExpr only serves as the function body in FunctionNode, or the true/false "
                "branch body in IfNode.",
                expr,
            )
        elif isinstance(expr, ShapeExpr):
            for value in expr.values:
                if not str(value.dtype).startswith(("int", "uint")):
                    _fail(
                        TypeError,
                        f"Shape expressions must be of integer type, but got {value.dtype}",
                        expr,
                    )
            self._check_symbolic_uses(expr.values, expr)
        elif isinstance(expr, PrimValue):
            self._check_symbolic_uses(expr.value, expr)
        elif isinstance(expr, Function):
            self.visit_function(expr, _func_name(expr, None))
        elif getattr(expr, "type_key", "") == "tirx.PrimFunc":
            _fail(ValueError, "Inline PrimFunc is disallowed in Relax IR.", expr)

    def visit_global_var(self, gvar):
        if self.mod is not None:
            known = self.mod.functions.get(gvar)
            if known is None:
                _fail(
                    ValueError, f'GlobalVar I.GlobalVar("{gvar.name_hint}") is not defined.', gvar
                )
        ty = gvar.ty
        if ty is not None and not isinstance(ty, FuncType):
            _fail(
                TypeError,
                f'The ty of GlobalVar I.GlobalVar("{gvar.name_hint}") must be either FuncType.',
                gvar,
            )

    def visit_call(self, call):
        op = call.op
        if not isinstance(op, (*_LEAVES, Tuple)):
            _fail(TypeError, "The called expression must be a leaf expression", call)
        for index, arg in enumerate(call.args):
            self._require_leaf(
                arg, ValueError, f"Call is not in ANF form, arg {index} gets {_key(arg)}"
            )
        self.visit(op)
        for arg in call.args:
            self.visit(arg)
        for ty in call.ty_args:  # rule 5: out_ty / ty_args use defined symbolic variables
            self._check_symbolic_uses(ty, call)
        if isinstance(op, Op):
            self._check_op_rules(call, op)
        if not self.check_ty:
            return
        state = self.funcs[-1] if self.funcs else None
        own = state.gvar if state is not None else None
        if (self.in_dataflow or (state is not None and state.check_purity)) and _call_is_impure(
            call, own
        ):
            if self.in_dataflow:
                _fail(
                    ValueError,
                    f"Impure function call {text(call)} occurs within a dataflow block.",
                    call,
                )
            _fail(
                ValueError,
                f"Function {state.name} is annotated as pure but contains an impure call: "
                f"{text(call)}.  Please set relax.force_pure to true or use a pure operator "
                "variant (e.g., call_pure_packed) if it is necessary to override this judgment.",
                call,
            )
        if isinstance(op, Op):
            self._check_inferred_type(call, op)

    def _check_op_rules(self, call, op):
        normalize = op.get_attr("FNormalize")
        if normalize is not None:
            normalized = normalize(self._bb(), call)
            if normalized is not call:
                _fail(
                    ValueError,
                    "If an operator defines an operator-specific normalization function "
                    "(FNormalize), calls to that operator must be normalized with it.  However, "
                    f"normalization of {text(call)} resulted in {text(normalized)}",
                    call,
                )
        validate = op.get_attr("FValidate")
        if validate is not None:
            try:
                if getattr(validate, "takes_module", False):
                    validate(call, self.mod)  # call_tir: checked against its PrimFunc
                else:
                    validate(call)
            except Exception as err:  # noqa: BLE001 - any rejection is reported with the op
                _fail(
                    ValueError,
                    f"Operator-specific validation (FValidate) for {op.name} identified error: "
                    f"\n{err}",
                    call,
                )

    def _check_inferred_type(self, call, op):
        rule = op.get_attr("FInferType")
        if rule is None:
            return
        try:
            inferred = rule(call, self._bb())
        except Exception as err:  # noqa: BLE001 - the rule's error is part of the report
            _fail(
                TypeError,
                "Each Relax expression must be able to have its Type inferred.  However, "
                f"inferring the type of expression {text(call)} resulted in the error: \n{err}",
                call,
            )
        annotated = call.ty
        if (
            inferred is not None
            and struct_info_base_check(annotated, inferred) == BaseCheckResult.FAIL_L0
            and struct_info_base_check(inferred, annotated) == BaseCheckResult.FAIL_L0
        ):
            _fail(
                TypeError,
                "All information in Type annotations must be correct.  However, while the "
                f"expression {text(call)} is annotated as {text(annotated)}, the expression "
                f"outputs {text(inferred)}",
                call,
            )

    def _bb(self):
        if self._builder is None:
            # Lazy: the builder sits above the analyses it uses.
            from ..block_builder import BlockBuilder

            self._builder = BlockBuilder(self.mod)
        return self._builder


# TVM 0.27 moved Call to the ``ir`` namespace; messages use its type key.
_TVM_TYPE_KEYS = {"relax.expr.Call": "ir.Call"}


def _key(node) -> str:
    key = getattr(node, "type_key", type(node).__name__)
    return _TVM_TYPE_KEYS.get(key, key)


def _func_name(func, default):
    symbol = func.get_attr("global_symbol") if func.attrs is not None else None
    return str(symbol) if symbol is not None else (default or "<anonymous>")
