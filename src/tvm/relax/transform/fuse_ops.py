"""``FuseOps``: group ``R.call_tir`` bindings into fused Relax functions (``Primitive``).

Works on the PrimFunc ``op_pattern`` attributes (run ``AnnotateTIROpPattern`` first). Within a
dataflow block, a call joins the group of one of its producers when that producer's result has
no other use and the patterns allow it:

* injective (elementwise, broadcast, injective) calls chain together;
* elementwise/broadcast calls join a group ending in a reduction or an
  out-elementwise-fusable call (``matmul``, ``conv2d``), so ``matmul -> add -> relu`` is one
  group;
* a reduction joins a group of injective calls (``exp -> sum``);
* an out-elementwise-fusable call joins a lone transpose (``permute_dims``) that feeds it, so
  a gradient's ``matmul(permute_dims(x), dy)`` is one kernel that reads ``x`` in place (the
  default schedule inlines the transpose).

Each group of two or more calls becomes a private Relax function with ``"Primitive": True``
whose parameters are the group's inputs, and the calls are replaced by one call of it.
Opaque calls and calls with tuple outputs are never fused. This is a greedy version of TVM's
dominator-based partitioning: a producer used more than once is not fused into its consumers,
but chains of injective calls that start from the same input and meet in one injective call
(a diamond: ``gelu``'s gradient) are merged into that call's group.

Before::

    with R.dataflow():
        lv = R.call_tir(cls.matmul, (x, w), out_ty=R.Tensor((2, 4), dtype="float32"))
        lv1 = R.call_tir(cls.add, (lv, b), out_ty=R.Tensor((2, 4), dtype="float32"))
        gv = R.call_tir(cls.relu, (lv1,), out_ty=R.Tensor((2, 4), dtype="float32"))
        R.output(gv)

After::

    @R.function(private=True)
    def fused_matmul_add_relu(x, w, b):
        R.func_attr({"Primitive": True})
        with R.dataflow():
            lv = R.call_tir(cls.matmul, (x, w), ...)
            lv1 = R.call_tir(cls.add, (lv, b), ...)
            gv = R.call_tir(cls.relu, (lv1,), ...)
            R.output(gv)
        return gv

    # in main
    gv = cls.fused_matmul_add_relu(x, w, b)
"""

from __future__ import annotations

from ...ir.transform import module_pass, register_pass_config
from ...ir.type import TupleType
from ...tirx.stmt import BufferLoad, BufferStore, SBlock
from ...tirx.stmt_functor import post_order_visit
from ..analysis.type_analysis import tir_vars_in, tir_vars_in_type
from ..block_builder import BlockBuilder
from ..expr import (
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    Function,
    SeqExpr,
    Tuple,
    Var,
    VarBinding,
)
from ..ty import TensorType
from ..utils import copy_with_new_vars
from ._utils import free_relax_vars, is_op, relax_functions
from .annotate_tir_op_pattern import OpPatternKind as K

__all__ = ["DEFAULT_MAX_DEPTH", "FuseOps"]

#: The most calls one fused group holds (TVM's ``kMaxFusedOps``); the PassContext option
#: ``relax.FuseOps.max_depth`` changes it. Longer chains are cut into several groups, which
#: keeps the compile time of a fused function (FuseTIR, the default schedule's inlining)
#: bounded, and the whole compile linear in the chain's length.
DEFAULT_MAX_DEPTH = 256
register_pass_config("relax.FuseOps.max_depth", int)


def _pattern(mod, call):
    """The op pattern of a call_tir binding value, or None when it cannot be fused."""
    if not is_op(call, "relax.call_tir") or isinstance(call.ty, TupleType) or len(call.args) > 2:
        return None
    func = mod[call.args[0]]
    attrs = getattr(func, "attrs", None)
    if attrs is None or "op_pattern" not in attrs:
        return None
    kind = int(attrs["op_pattern"])
    if kind >= K.kTuple or not _fusible_args(call):
        return None
    return kind


def _fusible_args(call):
    """Tensor arguments only, and an output shape that the inputs' shapes determine.

    A scalar argument (``R.prim_value(n)``) is not merged by FuseTIR yet; an output dim
    defined elsewhere (``dynamic_strided_slice``'s ``s0`` from a ``match_cast``) would be
    undefined inside the fused function. Such calls stay on their own.
    """
    args = call.args[1]
    fields = list(args.fields) if isinstance(args, Tuple) else []
    if not all(isinstance(getattr(a, "ty", None), TensorType) for a in fields):
        return False
    known = {id(v) for a in fields for v in tir_vars_in_type(a.ty)}
    return all(id(v) in known for v in tir_vars_in_type(call.ty))


def _can_join(group_kind, consumer_kind):
    if consumer_kind <= K.kInjective:
        if group_kind <= K.kInjective:
            return True
        return consumer_kind <= K.kBroadcast and group_kind in (K.kCommReduce, K.kOutEWiseFusable)
    if consumer_kind == K.kCommReduce:
        return group_kind <= K.kInjective
    return False


def _is_permutation(mod, call):
    """Whether a call_tir's PrimFunc only transposes its input (``permute_dims``).

    Such a producer joins the matmul (conv) that reads it: the default schedule reads the
    input in place instead of materializing the transpose (``s_tir/default_schedule_inline``).
    """
    func = mod[call.args[0]]
    blocks = []
    post_order_visit(func.body, lambda n: blocks.append(n)
                     if isinstance(n, SBlock) and n.iter_vars else None)
    if len(blocks) != 1:
        return False
    block = blocks[0]
    store = block.body
    if block.init is not None or not isinstance(store, BufferStore):
        return False
    load = store.value
    if not isinstance(load, BufferLoad) or load.buffer.dtype != store.buffer.dtype:
        return False
    ivs = [iv.var for iv in block.iter_vars]
    if len(store.indices) != len(ivs) or any(a is not b for a, b in zip(store.indices, ivs)):
        return False
    return len(load.indices) == len(ivs) and {id(x) for x in load.indices} == {id(v) for v in ivs}


class _Group:
    def __init__(self, index, kind):
        self.members = [index]
        self.kind = kind

    def add(self, index, kind):
        self.members.append(index)
        if kind >= K.kCommReduce or self.kind < K.kCommReduce:
            self.kind = max(self.kind, kind)


def _use_counts(block, body_vars):
    counts = {}
    for binding in block.bindings:
        for var in free_relax_vars(binding.value):
            counts[var] = counts.get(var, 0) + 1
    for var in body_vars:
        counts[var] = counts.get(var, 0) + 1
    return counts


def _merge_diamond(group, feeding, kind, group_of, max_depth):
    """Merge into ``group`` the other injective groups that feed its new call (a diamond).

    ``gelu``'s gradient computes ``erf(x)`` and ``exp(-x * x / 2)`` in two chains that meet
    in one add: each chain's last value is used only by that add, and no other member's
    value leaves its chain, so the chains and the add are one kernel (TVM's dominator-based
    FuseOps fuses them too). Only chains of injective calls are merged (never a second
    reduction or matmul into one group); members stay in binding order, which is a
    topological order. ``group`` itself is injective too: a matmul's group keeps its
    elementwise epilogue right after the matmul (the default schedule runs it on the tiles).
    """
    for other in feeding:
        if other is group or other.kind > K.kInjective or not _can_join(other.kind, kind):
            continue
        if len(group.members) + len(other.members) > max_depth:
            continue
        last = group.members.pop()
        group.members = sorted(group.members + other.members) + [last]
        for index in other.members:
            group_of[index] = group


def _partition(mod, block, uses, max_depth=DEFAULT_MAX_DEPTH):
    bindings = list(block.bindings)
    group_of = {}  # binding index -> _Group
    producer = {b.var: i for i, b in enumerate(bindings) if isinstance(b, VarBinding)}
    for i, binding in enumerate(bindings):
        if not isinstance(binding, VarBinding):
            continue
        kind = _pattern(mod, binding.value)
        if kind is None:
            continue
        chosen = None
        args = binding.value.args[1]
        inputs = list(args.fields) if isinstance(args, Tuple) else []
        feeding = []  # the groups whose current output only this call uses, in arg order
        for arg in inputs:
            j = producer.get(arg)
            if j is None or j not in group_of or uses.get(arg, 0) != 1:
                continue
            if isinstance(arg, Var) and not isinstance(arg, DataflowVar):
                continue  # a block output stays visible outside the block
            group = group_of[j]
            if group.members[-1] != j:
                continue  # only the group's current output may feed the next call
            if all(g is not group for g in feeding):
                feeding.append(group)
        for group in feeding:
            if len(group.members) >= max_depth:
                continue  # full: this call starts a new group
            if _can_join(group.kind, kind) or (
                kind == K.kOutEWiseFusable and len(group.members) == 1
                and _is_permutation(mod, bindings[group.members[0]].value)
            ):
                chosen = group
                break
        if chosen is None:
            group_of[i] = _Group(i, kind)
        else:
            chosen.add(i, kind)
            group_of[i] = chosen
            if kind <= K.kInjective and chosen.kind <= K.kInjective:
                _merge_diamond(chosen, feeding, kind, group_of, max_depth)
    seen, groups = set(), []
    for group in group_of.values():
        if id(group) not in seen and len(group.members) > 1:
            seen.add(id(group))
            groups.append(group)
    return groups


def _group_function(mod, bindings, group, bb):
    members = [bindings[i] for i in group.members]
    defined = {b.var for b in members}
    inputs, constants = [], []
    for binding in members:
        for var in free_relax_vars(binding.value):
            if var not in defined and var not in inputs:
                inputs.append(var)
        # As TVM: constant arguments become parameters (param_0, ...), passed at the call.
        for arg in binding.value.args[1].fields:
            if isinstance(arg, Constant) and all(arg is not c for c in constants):
                constants.append(arg)
    params = [Var(v.name_hint, v.ty) for v in inputs]
    params += [Var(f"param_{k}", c.ty) for k, c in enumerate(constants)]
    remap = dict(zip(inputs, params))
    const_param = {id(c): p for c, p in zip(constants, params[len(inputs):])}
    inputs = inputs + constants
    new_bindings = []
    for binding in members:
        value = binding.value
        args = [const_param.get(id(a), remap.get(a, a)) for a in value.args[1].fields]
        new_value = Call(
            value.op,
            [value.args[0], Tuple(args)] + list(value.args[2:]),
            value.attrs,
            value.ty_args,
            span=value.span,
        )
        last = binding is members[-1]
        new_var = (Var if last else DataflowVar)(binding.var.name_hint, binding.var.ty)
        remap[binding.var] = new_var
        new_bindings.append(VarBinding(new_var, new_value))
    out = new_bindings[-1].var
    body = SeqExpr([DataflowBlock(new_bindings)], out)
    func = Function(params, body, out.ty, True, {"Primitive": True})
    names = "_".join(
        mod[b.value.args[0]].attrs.get("global_symbol", None) or _gvar_name(b.value.args[0])
        for b in members
    )
    # Fresh variables (symbolic ones included): a function may not share them with main.
    # Its Relax variables were all created above; only symbolic TIR variables can still be
    # main's, in the places copy_with_new_vars renews: the variables' types, the calls' type
    # arguments and their shape or PrimValue arguments (the return type is one of the
    # variables'). Without any, the copy is skipped (it would give a structurally equal
    # function); each type is looked at once, not at every use of its variable.
    func = bb.normalize(func)
    where = [v.ty for v in inputs] + [b.var.ty for b in members]
    where += [(b.value.ty_args, b.value.args[2:]) for b in members]
    if tir_vars_in(where):
        func = copy_with_new_vars(func)
    gvar = bb.add_func(func.without_attr("global_symbol"), f"fused_{names}")
    return gvar, inputs


def _gvar_name(gvar):
    return gvar.name_hint


def _fuse_function(mod, func, bb, max_depth=DEFAULT_MAX_DEPTH):
    body = func.body
    if not isinstance(body, SeqExpr):
        return func
    new_blocks = []
    changed = False
    for block in body.blocks:
        if not isinstance(block, DataflowBlock):
            new_blocks.append(block)
            continue
        later_vars = free_relax_vars(body.body)
        for other in body.blocks:
            if other is not block:
                for binding in other.bindings:
                    later_vars += free_relax_vars(binding.value)
        uses = _use_counts(block, later_vars)
        bindings = list(block.bindings)
        groups = _partition(mod, block, uses, max_depth)
        if not groups:
            new_blocks.append(block)
            continue
        changed = True
        replaced = {}
        dropped = set()
        for group in groups:
            gvar, inputs = _group_function(mod, bindings, group, bb)
            last = group.members[-1]
            replaced[last] = VarBinding(bindings[last].var, Call(gvar, list(inputs)))
            dropped.update(group.members[:-1])
        out = []
        for i, binding in enumerate(bindings):
            if i in dropped:
                continue
            out.append(replaced.get(i, binding))
        new_blocks.append(DataflowBlock(out, span=block.span))
    if not changed:
        return func
    return bb.normalize(func.replace(body=SeqExpr(new_blocks, body.body, span=body.span)))


@module_pass(opt_level=0, name="FuseOps")
class FuseOps:
    """Group fusable ``call_tir`` chains into ``Primitive`` Relax functions (see module doc).

    Parameters
    ----------
    fuse_opt_level : int
        -1 uses the PassContext's opt_level; at level 0 nothing is fused (as in TVM).

    The PassContext option ``relax.FuseOps.max_depth`` (an int >= 1, default
    :data:`DEFAULT_MAX_DEPTH` = 256, as TVM) is the most calls one group may hold.
    """

    def __init__(self, fuse_opt_level: int = -1):
        self.fuse_opt_level = fuse_opt_level

    def transform_module(self, mod, ctx):
        """Group the fusable ``call_tir`` chains of each non-primitive Relax function.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context: its ``opt_level`` stands in for ``fuse_opt_level=-1``; its option
            ``relax.FuseOps.max_depth`` bounds a group's size.

        Returns
        -------
        IRModule
            The module with the fused ``Primitive`` functions added; ``mod`` itself at level 0.

        Raises
        ------
        ValueError
            When ``relax.FuseOps.max_depth`` is below 1.
        """
        level = self.fuse_opt_level if self.fuse_opt_level >= 0 else ctx.opt_level
        if level < 1:
            return mod
        max_depth = ctx.config.get("relax.FuseOps.max_depth", DEFAULT_MAX_DEPTH)
        if max_depth < 1:
            raise ValueError(
                f"PassContext option relax.FuseOps.max_depth must be at least 1, got {max_depth}"
            )
        bb = BlockBuilder(mod)
        for gvar, func in relax_functions(mod):
            if func.attrs is not None and func.attrs.get("Primitive"):
                continue
            new_func = _fuse_function(mod, func, bb, max_depth)
            if new_func is not func:
                bb.update_func(gvar, new_func)
        return bb.get()
