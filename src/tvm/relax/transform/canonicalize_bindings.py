"""``CanonicalizeBindings``: remove trivial bindings and simplify through known bindings.

* ``y = x`` (a variable bound to a variable) is removed and ``y``'s uses read ``x``, unless
  ``y`` is visible outside a dataflow block and ``x`` is not (then ``y`` stays);
* ``y = R.match_cast(x, ty)`` whose ``ty`` equals ``x``'s type becomes ``y = x`` (and then
  goes away as above);
* ``t = (a, b); c = t[0]`` reads ``a`` directly;
* bindings left unused are removed (as ``remove_all_unused``).

Before::

    with R.dataflow():
        lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((2,), dtype="float32"))
        lv1 = lv
        t = (lv1, x)
        gv = t[0]
        R.output(gv)
    return gv

After::

    with R.dataflow():
        gv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((2,), dtype="float32"))
        R.output(gv)
    return gv
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ...ir.transform import module_pass
from ..analysis import remove_all_unused
from ..expr import DataflowVar, MatchCast, Tuple, TupleGetItem, Var, VarBinding
from ..expr_functor import ExprMutator
from ._utils import relax_functions

__all__ = ["CanonicalizeBindings"]


class _Canonicalizer(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.tuples = {}  # var -> Tuple value
        self.rename = {}  # dataflow var -> the output var that takes over its binding

    def visit_dataflow_block_(self, block):
        # ``gv = lv`` at the end of a block: ``lv``'s own binding is made to define ``gv``.
        defined = {b.var for b in block.bindings}
        for b in block.bindings:
            value = b.value
            if (
                isinstance(b, VarBinding)
                and not isinstance(b.var, DataflowVar)
                and isinstance(value, DataflowVar)
                and value in defined
                and value not in self.rename
                and value.ty is not None
                and b.var.ty is not None
                and structural_equal(value.ty, b.var.ty)
            ):
                self.rename[value] = b.var
        result = super().visit_dataflow_block_(block)
        # A tuple with a field local to this block cannot be read through after it.
        self.tuples = {
            var: value for var, value in self.tuples.items()
            if not any(isinstance(f, DataflowVar) for f in value.fields)
        }
        return result

    def _target(self, var, value):
        """The variable ``var`` can be replaced by, or None."""
        if not isinstance(value, Var):
            return None
        if not isinstance(var, DataflowVar) and isinstance(value, DataflowVar):
            return None  # the output var must stay visible after the block
        if var.ty is not None and value.ty is not None and not structural_equal(var.ty, value.ty):
            return None  # the binding refines the type: keep it
        return value

    def visit_var_binding_(self, binding):
        if isinstance(binding.value, Var) and self.rename.get(binding.value) is binding.var:
            return  # ``gv = lv``: ``lv``'s binding already defines ``gv``
        value = self.visit_expr(binding.value)
        output = self.rename.get(binding.var)
        if output is not None:
            self.builder_.emit_normalized(VarBinding(output, value, span=binding.span))
            self.set_var_remap(binding.var, output)
            return
        if isinstance(value, TupleGetItem) and isinstance(value.tuple_value, Var):
            known = self.tuples.get(value.tuple_value)
            if known is not None:
                value = known.fields[value.index]
        target = self._target(binding.var, value)
        if target is not None:
            self.set_var_remap(binding.var, target)
            return
        if isinstance(value, Var) and not isinstance(binding.var, DataflowVar):
            # The output var keeps its binding; nothing to simplify.
            self._reemit(binding, value)
            return
        self._reemit(binding, value)
        if isinstance(value, Tuple):
            self.tuples[self.get_var_remap(binding.var) or binding.var] = value

    def visit_match_cast_(self, binding):
        value = self.visit_expr(binding.value)
        if value.ty is not None and structural_equal(value.ty, binding.ty):
            self.visit_var_binding_(VarBinding(binding.var, value, span=binding.span))
            return
        self.builder_.emit_normalized(
            binding if value is binding.value else MatchCast(binding.var, value, binding.ty)
        )


@module_pass(opt_level=0, name="CanonicalizeBindings")
class CanonicalizeBindings:
    """Remove trivial bindings (see the module docstring)."""

    def transform_module(self, mod, ctx):
        """Replace trivial bindings (``y = x``, a tuple item of a known tuple) by their source,
        in two rounds, and remove the bindings left unused.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The canonicalized module; the functions that did not change are the same objects.
        """
        first = _round(mod, None)
        # A second round sees the chains the first one shortened (``gv = t[0]`` -> ``gv = lv``).
        # Why only over the functions the first round changed: a function it left as it was
        # (the same object) would come out of the same deterministic round the same again.
        changed = {gv for gv, f in relax_functions(first) if mod.functions.get(gv) is not f}
        if not changed:
            return first
        return _round(first, changed)


def _round(mod, only):
    """One round over the Relax functions (those in ``only`` when given), then
    ``remove_all_unused`` of each function the round visited."""
    mutator = _Canonicalizer(mod)
    for gvar, func in relax_functions(mod):
        if only is not None and gvar not in only:
            continue
        new_func = remove_all_unused(mutator.visit_expr(func))
        if new_func is not func:
            mutator.builder_.update_func(gvar, new_func)
    return mutator.builder_.get()
