"""``relax.transform.LegalizeOps``: every high-level op call becomes an ``R.call_tir``.

The pass reads only the ``FLegalize`` table (:func:`register_legalize`); the default rules are
in ``src/tvm/relax/op/<family>/legalize.py``. Before/after::

    # before
    lv = R.add(x, y)
    # after (the PrimFunc ``add`` is built with te/topi and added to the module)
    lv = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((2, 3), dtype="float32"))
"""

from __future__ import annotations

import warnings

from ....ffi.structural import structural_equal, structural_hash
from ....ir.op import Op, get_op_attr_table
from ....ir.transform import module_pass
from ....tirx.expr import FloatImm, IntImm
from ...expr import Call, Constant, Function, GlobalVar, PrimValue, ShapeExpr, Tuple, Var
from ...expr_functor import ExprMutator
from ...ty import TensorType
from .common import has_known_shape, load_default_rules, register_legalize

__all__ = ["KEPT_OPS", "LegalizeOps", "register_legalize"]

#: Ops that are already low level (the VM or later passes handle them): never legalized.
KEPT_OPS = frozenset(
    {
        "relax.call_tir",
        "relax.call_tir_with_grad",  # kept as in TVM 0.27; the VM runs it as call_tir
        "relax.call_tir_inplace",
        "relax.call_dps_packed",
        "relax.call_packed",
        "relax.call_pure_packed",
        "relax.print",
        "relax.shape_of",
        "relax.null_value",
        "relax.make_closure",
        "relax.invoke_closure",
        "relax.invoke_pure_closure",
        "relax.call_builtin_with_ctx",
        "relax.assert_op",  # a run-time check: the VM executes it
    }
)
_KEPT_PREFIXES = ("relax.builtin.", "relax.memory.", "relax.vm.")


class _Legalizer(ExprMutator):
    def __init__(self, mod, table, enable_warning, keep_ops):
        super().__init__(mod)
        self.table = table
        self.enable_warning = enable_warning
        self.keep_ops = keep_ops
        # (op, attrs, argument types) -> [(call, rule, gvar, argument positions, out types)].
        self._memo: dict = {}

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if not isinstance(call, Call) or not isinstance(call.op, Op):
            return call
        name = call.op.name
        rule = self.table.get(name)
        if rule is None:
            self._missing(call.op)
            return call
        # As in TVM, a call whose tensors have unknown shapes is left for a later stage.
        output_known = (
            has_known_shape(call.ty)
            or getattr(rule, "legalizes_unknown_output_shape", False)
            or bool(call.op.get_attr("FDataDependent"))
        )
        if not output_known or not all(has_known_shape(a.ty) for a in call.args):
            if self.enable_warning:
                warnings.warn(
                    f"LegalizeOps: {name} is not legalized, since an argument or the result "
                    f"has an unknown shape",
                    stacklevel=2,
                )
            return call
        key = self._memo_key(call)  # once: both the lookup and the remembering use it
        reused = self._reuse(call, rule, key)
        if reused is not None:
            return reused
        # A rule that emitted bindings (its result refers to them) is not remembered; the
        # builder's binding table tells (read directly: BlockBuilder has no public count).
        bindings_before = len(self.builder_._bindings)
        raw = rule(self.builder_, call)
        if (isinstance(raw, Call) and isinstance(raw.op, Op) and raw.op.name != name
                and any(isinstance(a, Call) for a in raw.args)):
            # A composite of other high-level ops (``matmul(a, w) + b``): legalized inside out,
            # as TVM visits a rule's result again.
            return self.visit_call_(raw)
        result = self.builder_.normalize(raw)
        if len(self.builder_._bindings) == bindings_before:
            self._remember(call, rule, result, key)
        # A rule may return other high-level ops (a composite): legalize them in turn.
        if isinstance(result, Call) and isinstance(result.op, Op) and result.op.name != name:
            return self.visit_call_(result)
        return result

    # The memo: an op applied to variables of the same names and static tensor types, and to
    # equal constants, static shapes and scalar values, with the same attributes, legalizes to
    # the same PrimFunc (te kernels are deterministic, and the builder's add_func would return
    # the first call's GlobalVar for the structurally equal PrimFunc of a later call), so a
    # later call reuses the first call's GlobalVar and skips te and create_prim_func. Only
    # calls whose rule returned a plain ``call_tir`` of some of the call's own arguments,
    # without emitting bindings, are remembered.

    @staticmethod
    def _memo_key(call):
        args = call.args
        parts = []
        for arg in args:
            part = _arg_key(arg)
            if part is None:
                return None
            parts.append(part)
        # Which arguments are the same object matters: call_te makes one input of ``x`` in
        # ``multiply(x, x)``; variable names too: te names buffers and blocks after them
        # (``x_red``), and such names make kernels differ.
        aliasing = tuple(next(j for j, b in enumerate(args) if b is a) for a in args)
        return (call.op.name, structural_hash(call.attrs), _type_key(call.ty),
                structural_hash(call.sinfo_args), aliasing, tuple(parts))

    def _reuse(self, call, rule, key):
        if key is None:
            return None
        for first, first_rule, gvar, positions, out_ty in self._memo.get(key, ()):
            if first_rule is not rule or not self._same_call(first, call):
                continue
            from ...op.base import call_tir  # lazy: op.base imports the transform package

            return self.builder_.normalize(call_tir(gvar, [call.args[i] for i in positions],
                                                    out_ty))
        return None

    @staticmethod
    def _same_call(first, call):
        return (structural_equal(first.attrs, call.attrs)
                and structural_equal(first.ty, call.ty)
                and structural_equal(list(first.sinfo_args), list(call.sinfo_args))
                and all(_same_arg(a, b) for a, b in zip(first.args, call.args)))

    def _remember(self, call, rule, result, key):
        if key is None or not (
                isinstance(result, Call) and isinstance(result.op, Op)
                and result.op.name == "relax.call_tir" and len(result.args) == 2
                and isinstance(result.args[0], GlobalVar) and isinstance(result.args[1], Tuple)
                and len(result.sinfo_args) == 1):
            return
        positions = []
        for item in result.args[1].fields:
            index = next((i for i, a in enumerate(call.args) if a is item), None)
            if index is None:
                return
            positions.append(index)
        entry = (call, rule, result.args[0], positions, result.sinfo_args[0])
        self._memo.setdefault(key, []).append(entry)

    def _missing(self, op):
        name = op.name
        if name in KEPT_OPS or name.startswith(_KEPT_PREFIXES) or name in self.keep_ops:
            return
        if not name.startswith("relax.") or not self.enable_warning:
            return
        # As TVM: the call is left as it is (a later stage, or the VM's reference rule, runs
        # it); with enable_warning the message says where the rule belongs.
        warnings.warn(
            f"LegalizeOps: no legalization rule (FLegalize) for {name}; the call is left as "
            "it is. " + op.missing_rule_message("FLegalize", "needed by LegalizeOps")
            + " To silence this warning, pass keep_ops=[...] to LegalizeOps.",
            stacklevel=3,
        )


def _arg_key(arg):
    """What the memo key says of one call argument, or None when the call is not memoized."""
    if isinstance(arg, Var):
        ty = arg.ty
        if not isinstance(ty, TensorType):
            return None
        dims = getattr(ty.shape, "values", None)
        if dims is None or not all(isinstance(dim, IntImm) for dim in dims):
            return None
        return ("var", type(arg).__name__, arg.name_hint, _type_key(ty))
    if isinstance(arg, Constant):
        return ("const", structural_hash(arg))  # the data's dtype, shape and bytes
    if isinstance(arg, ShapeExpr) and all(isinstance(dim, IntImm) for dim in arg.values):
        return ("shape", tuple((dim.dtype, dim.value) for dim in arg.values))
    if isinstance(arg, PrimValue) and isinstance(arg.value, (IntImm, FloatImm)):
        return ("prim", arg.value.dtype, arg.value.value)
    return None


def _type_key(ty):
    """A key of a type that structurally equal types share: a static tensor type's dtype and
    dims read directly (cheaper than its structural hash, which other types get)."""
    if type(ty) is TensorType and ty.vdevice is None:
        dims = getattr(ty.shape, "values", None)
        if dims is not None and all(type(dim) is IntImm for dim in dims):
            return ("tensor", ty.dtype, tuple((dim.dtype, dim.value) for dim in dims))
    return structural_hash(ty)


def _same_arg(first, arg):
    """Whether a remembered call's argument and ``arg`` give the same te kernel."""
    if type(first) is not type(arg):
        return False
    if isinstance(arg, Var):
        return first.name_hint == arg.name_hint and structural_equal(first.ty, arg.ty)
    return structural_equal(first, arg)  # constants (data), shapes, scalar values


@module_pass(opt_level=0, name="LegalizeOps")
class LegalizeOps:
    """Legalize every high-level Relax op call into ``R.call_tir`` of a te-built PrimFunc.

    Parameters
    ----------
    customize_legalize_map : dict[str, callable], optional
        Rules ``rule(bb, call)`` that take precedence over the registered ones.
    enable_warning : bool
        Warn about calls left as they are: a shape is unknown, or the op has no rule (the
        warning names the file the rule belongs in).
    keep_ops : iterable of str, optional
        Extra op names to leave as they are without a warning (pytvm extension). As in TVM,
        a call of an op without a rule is left as it is.
    """

    def __init__(self, customize_legalize_map=None, enable_warning=True, keep_ops=None):
        self.customize_legalize_map = dict(customize_legalize_map or {})
        self.enable_warning = enable_warning
        self.keep_ops = frozenset(keep_ops or ())

    def transform_module(self, mod, ctx):
        """Legalize the op calls of every Relax function of ``mod``.

        Functions bound to an external codegen (a ``Codegen`` attribute) and PrimFuncs are left as
        they are.

        Parameters
        ----------
        mod : IRModule
            The module.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The module with the legalized functions and the PrimFuncs the rules added.
        """
        load_default_rules()
        table = get_op_attr_table("FLegalize")
        table.update(self.customize_legalize_map)
        legalizer = _Legalizer(mod, table, self.enable_warning, self.keep_ops)
        for gvar, func in list(mod.functions.items()):
            if not isinstance(func, Function) or func.attrs and "Codegen" in func.attrs:
                continue
            new_func = legalizer.visit_expr(func)
            if new_func is not func:
                legalizer.builder_.update_func(gvar, new_func)
        return legalizer.builder_.get()
