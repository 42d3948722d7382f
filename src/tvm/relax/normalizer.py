"""The Relax normalizer: ANF conversion and type inference (the engine of ``BlockBuilder``).

Normal form (see ``docs/arch/relax_ir.md``):

* every expression has ``ty``;
* call callees and arguments, tuple fields, ``TupleGetItem`` tuples and ``If`` conditions are
  *leaves* (variables, constants, shapes, prim values, strings, dtypes, ops, global vars,
  extern funcs) or tuples of leaves; anything else is bound to a fresh variable;
* function bodies and ``If`` branches are ``SeqExpr`` whose body is a leaf;
* a ``SeqExpr``'s type mentions no variable bound inside it (it is erased to its rank).

Already-normal expressions come back as the very same object, so normalizing twice is cheap.
Bindings are processed in a loop (no recursion per binding), so long functions are fine.
"""

from __future__ import annotations

from ..ffi.node import set_field
from ..ir.error_context import add_enclosing_node, attach_node
from ..ir.expr import GlobalVar
from ..ir.op import Op
from ..ir.type import FuncType as IRFuncType
from ..ir.type import PrimType, TupleType
from .analysis.type_analysis import (
    _erase,
    derive_call_ret_type,
    struct_info_lca,
    tir_vars_in,
)
from .expr import (
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
    _refined_ret_ty,
)
from .op.infer_utils import text
from .ty import FuncType, ObjectType, ShapeType

__all__ = ["LEAF_TYPES", "Normalizer"]

#: Expressions that may appear directly as call arguments (plus Tuples of them).
LEAF_TYPES = (
    Var,
    DataflowVar,
    GlobalVar,
    Constant,
    ShapeExpr,
    PrimValue,
    StringImm,
    DataTypeImm,
    Op,
    ExternFunc,
)
_LEAF_SET = frozenset(LEAF_TYPES)


class _Frame:
    """An open binding block."""

    __slots__ = ("bindings", "is_dataflow", "outputs")

    def __init__(self, is_dataflow):
        self.bindings = []
        self.is_dataflow = is_dataflow
        self.outputs = []


class Normalizer:
    """Mixin of ``BlockBuilder``: ``normalize`` and the binding frames it emits into."""

    # Set by BlockBuilder.__init__: _frames (list of _Frame), _tir_scopes (list of sets of
    # ids of TIR vars defined), _bindings (var -> value), _mod.

    # --- entry points --------------------------------------------------------------------------
    def normalize(self, expr):
        """Normalize ``expr`` (ANF, types filled); non-leaf sub-expressions are emitted into
        the current binding block."""
        cls = type(expr)
        if cls in _LEAF_SET:
            return self._norm_leaf(expr)
        handler = _DISPATCH.get(cls)
        if handler is None:
            for base, fn in _DISPATCH.items():
                if isinstance(expr, base):
                    handler = fn
                    break
            else:
                if isinstance(expr, LEAF_TYPES):
                    return self._norm_leaf(expr)
                if isinstance(expr, (tuple, list)):
                    # A Python tuple of expressions is a Relax Tuple (TVM converts it).
                    return self.normalize(Tuple(expr))
                if hasattr(expr, "body") and hasattr(expr, "params"):
                    return expr  # a TIR PrimFunc or other function kind: kept as is
                raise TypeError(
                    f"BlockBuilder cannot normalize {type(expr).__name__}: "
                    f"{expr!r} is not a Relax expression"
                )
        return handler(self, expr)

    def normalize_argument(self, expr):
        """Normalize ``expr`` into a leaf (or tuple of leaves), emitting it if needed."""
        cls = type(expr)
        if cls in _LEAF_SET:
            if expr.ty is None:
                return self._norm_leaf(expr)
            return expr
        if cls is Tuple:
            return self._norm_tuple(expr)
        if cls is SeqExpr:
            return self.normalize_argument(self._flatten_seq(expr))
        value = self.normalize(expr)
        if type(value) in _LEAF_SET or type(value) is Tuple:
            return value
        if isinstance(value, LEAF_TYPES):
            return value  # a leaf subclass, e.g. relax.testing.nn.Parameter (a Var)
        return self._emit_value(value, "")

    # --- frames --------------------------------------------------------------------------------
    def _current_frame(self, what="emit"):
        if not self._frames:
            raise ValueError(
                f"BlockBuilder: {what} needs an open binding block; use bb.function(...), "
                "bb.dataflow() or bb.begin_binding_block()"
            )
        return self._frames[-1]

    def _fresh_name(self, hint):
        names = self._names
        count = names.get(hint)
        if count is None:
            names[hint] = 0
            return hint
        while True:
            count += 1
            candidate = f"{hint}{count}"
            if candidate not in names:
                break
        names[hint] = count
        names[candidate] = 0
        return candidate

    def _emit_value(self, value, name_hint, is_output=False):
        frame = self._current_frame()
        dataflow = frame.is_dataflow and not is_output
        name = self._fresh_name(name_hint or ("lv" if dataflow else "gv"))
        var = (DataflowVar if dataflow else Var)(name, value.ty)
        frame.bindings.append(VarBinding(var, value))
        self._bindings[var] = value
        return var

    def _define_tir_vars(self, ty):
        if not self._tir_scopes:
            return
        top = self._tir_scopes[-1]
        for var in tir_vars_in(ty):
            if not any(id(var) in scope for scope in self._tir_scopes):
                top.add(id(var))

    # --- leaves --------------------------------------------------------------------------------
    def _norm_leaf(self, expr):
        if expr.ty is not None:
            return expr
        if isinstance(expr, GlobalVar):
            func = None
            if self._mod is not None and expr.name_hint in self._mod:
                func = self._mod[expr.name_hint]
            if func is not None and func.ty is not None:
                set_field(expr, "ty", func.ty)
            return expr
        if isinstance(expr, Op):
            return expr
        if isinstance(expr, ShapeExpr):
            return self._norm_shape(expr)
        if isinstance(expr, PrimValue):
            return self._norm_prim_value(expr)
        if isinstance(expr, Var):
            raise TypeError(
                f"Var {expr.name_hint} has no type: annotate it (relax.Var(name, ty)) "
                "before using it"
            )
        return expr

    # --- composite expressions ---------------------------------------------------------------
    def _norm_nested(self, root):
        """Normalize nested calls/tuples without recursing once per nesting level.

        A post-order walk over the Call / Tuple / TupleGetItem nodes below ``root`` (an
        explicit stack): each node is rebuilt over its already-normalized children, normalized
        shallowly, and (except ``root``) turned into an argument, emitted when not a leaf.
        Built-up expressions such as ``x + x + ... + x`` can be thousands of levels deep.
        """
        memo = {}
        stack = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if ready:
                node_id = id(node)
                rebuilt = _with_children(node, memo)
                shallow = _SHALLOW[type(rebuilt)](self, rebuilt)
                is_leaf = type(shallow) in _LEAF_SET or type(shallow) is Tuple
                if node is not root and not is_leaf:
                    shallow = self._emit_value(shallow, "")
                memo[node_id] = shallow
                continue
            if id(node) in memo:
                continue
            stack.append((node, True))
            for child in reversed(_nested_children(node)):
                if id(child) not in memo:
                    stack.append((child, False))
        return memo[id(root)]

    def _norm_tuple(self, tup):
        fields = tup.fields
        new_fields = [self.normalize_argument(f) for f in fields]
        if any(a is not b for a, b in zip(new_fields, fields)):
            tup = Tuple(new_fields, span=tup.span)
        if tup.ty is None:
            set_field(tup, "ty", TupleType([f.ty for f in tup.fields]))
        return tup

    def _norm_tuple_get_item(self, item):
        value = self.normalize_argument(item.tuple_value)
        if value is not item.tuple_value:
            item = TupleGetItem(value, item.index, span=item.span)
        if item.ty is None:
            ty = value.ty
            if isinstance(ty, TupleType):
                if not 0 <= item.index < len(ty.fields):
                    raise IndexError(
                        f"Index out of bounds: Tuple {text(value)} is of size "
                        f"{len(ty.fields)}, and cannot be accessed with index {item.index}"
                    )
                ty = ty.fields[item.index]
            elif not isinstance(ty, ObjectType):
                raise TypeError(
                    f"The type of Tuple must be TupleType, but expression {text(value)} has "
                    f"type {text(ty)}"
                )
            set_field(item, "ty", ty)
        return item

    def _norm_call(self, call):
        if any(type(a) in _NESTED and a.ty is None for a in call.args):
            return self._norm_nested(call)
        return self._norm_call_shallow(call)

    def _norm_call_shallow(self, call):
        original = call
        op = call.op
        new_op = op if type(op) is Op else self.normalize_argument(op)
        args = call.args
        new_args = [
            a if type(a) in _LEAF_SET and a.ty is not None else self.normalize_argument(a)
            for a in args
        ]
        if new_op is not op or any(a is not b for a, b in zip(new_args, args)):
            call = Call(new_op, new_args, call.attrs, call.ty_args, span=call.span)
        if call.ty is None:
            if type(op) is Op:
                # An op-specific normal form (``FNormalize``, e.g. reshape's -1 resolved)
                # is applied before inference, as in TVM.
                fnormalize = op.get_attr("FNormalize")
                if fnormalize is not None:
                    try:
                        call = fnormalize(self, call)
                    except Exception as err:
                        attach_node(err, original)
                        raise
            try:
                ty = self._infer_call(call)
            except Exception as err:
                # Spec C.2: seed the inference rule's error with the call as it was written,
                # so that pass executors can underline it.
                attach_node(err, original)
                raise
            set_field(call, "ty", ty)
        return call

    def _infer_call(self, call):
        op = call.op
        if type(op) is Op:
            rule = op.require_attr("FInferType", "type inference of a call")
            return rule(call, self)
        callee_ty = op.ty
        if type(op) is GlobalVar and self._mod is not None:
            # The module's current function wins over a type recorded on the GlobalVar
            # earlier (a pass may have changed the callee's signature since).
            callee = self._mod.functions.get(op)
            if isinstance(callee, Function) and isinstance(callee.ty, FuncType):
                callee_ty = callee.ty
        if isinstance(callee_ty, FuncType):
            if callee_ty.params is None:
                if call.ty_args:
                    return _one_or_tuple(call.ty_args)
                return callee_ty.ret
            return self._derive_call_ret(call, callee_ty)
        if call.ty_args:
            return _one_or_tuple(call.ty_args)
        if isinstance(op, GlobalVar) and isinstance(callee_ty, IRFuncType):
            # A PrimFunc called directly (destination-passing: ``cls.full(alloc)``, impure
            # as in TVM): its result is its TIR return value, ``R.Tuple()`` for none.
            ret = callee_ty.ret_type
            return ret if isinstance(ret, (TupleType, PrimType)) else TupleType([])
        if isinstance(op, GlobalVar) and callee_ty is None:
            raise TypeError(
                f"Cannot infer the type of a call to {op.name_hint}: the global function "
                "is not defined in the module being built (add it first, or give ty_args)"
            )
        raise TypeError(
            f"Cannot call {text(op)}: its type {text(callee_ty)} is not a function type"
        )

    def _derive_call_ret(self, call, fty):
        return derive_call_ret_type(fty, call, self)

    def _norm_if(self, node):
        if node.ty is not None:
            return node  # only the normalizer sets an If's type: already normal
        cond = self.normalize_argument(node.cond)
        true_branch = self._norm_branch(node.true_branch)
        false_branch = self._norm_branch(node.false_branch)
        if (
            cond is not node.cond
            or true_branch is not node.true_branch
            or false_branch is not node.false_branch
        ):
            node = If(cond, true_branch, false_branch, span=node.span)
        if node.ty is None:
            # As in TVM, the result may only mention symbolic vars defined in the enclosing
            # scopes (function parameters, earlier match_casts); others are erased.
            ty = struct_info_lca(true_branch.ty, false_branch.ty)
            scopes = self._tir_scopes
            ty = _erase(ty, lambda v: any(id(v) in s for s in scopes), _always)
            set_field(node, "ty", ty)
        return node

    def _norm_branch(self, expr):
        if type(expr) is SeqExpr:
            return self._norm_seq(expr)
        return self._norm_seq(SeqExpr([], expr, span=expr.span), force_new=True)

    def _flatten_seq(self, seq):
        """Emit a SeqExpr's bindings into the current block and return its body."""
        frame = self._current_frame("flattening a SeqExpr")
        for block in seq.blocks:
            for binding in block.bindings:
                self._norm_binding(binding, frame)
        return seq.body

    def _norm_seq(self, seq, force_new=False):
        if seq.ty is not None and not force_new:
            return seq  # only the normalizer sets a SeqExpr's type: already normal
        self._tir_scopes.append(set())
        try:
            new_blocks = []
            changed = force_new
            bound = set()
            blocks = _split_nested_seqs(seq.blocks)
            if blocks is not seq.blocks:
                changed = True
            for block in blocks:
                new_block = self._norm_block(block)
                changed |= new_block is not block
                if new_block.bindings:
                    new_blocks.append(new_block)
                else:
                    changed = True
                for binding in new_block.bindings:
                    bound.add(id(binding.var))
            if blocks is not seq.blocks:
                new_blocks = _merge_adjacent(new_blocks)
            self._frames.append(_Frame(False))
            try:
                body = self.normalize_argument(seq.body)
            finally:
                extra = self._frames.pop()
            if extra.bindings:
                from .expr import BindingBlock

                new_blocks.append(BindingBlock(extra.bindings))
                bound.update(id(b.var) for b in extra.bindings)
                changed = True
            if changed or body is not seq.body:
                seq = SeqExpr(new_blocks, body, span=seq.span)
            if seq.ty is None:
                local_tir = self._tir_scopes[-1]
                ty = body.ty
                if local_tir or bound:
                    ty = _erase(ty, lambda v: id(v) not in local_tir, lambda v: id(v) not in bound)
                set_field(seq, "ty", ty)
            return seq
        finally:
            self._tir_scopes.pop()

    def _norm_block(self, block):
        frame = _Frame(isinstance(block, DataflowBlock))
        self._frames.append(frame)
        try:
            for binding in block.bindings:
                self._norm_binding(binding, frame)
        finally:
            self._frames.pop()
        old = block.bindings
        if len(frame.bindings) == len(old) and all(a is b for a, b in zip(frame.bindings, old)):
            return block
        return type(block)(frame.bindings, span=block.span)

    def _norm_binding(self, binding, frame):
        """Normalize one binding; nested values are emitted into ``frame`` before it."""
        value = binding.value
        try:
            if type(value) is SeqExpr:
                value = self._flatten_seq(value)
            new_value = self.normalize(value)
        except Exception as err:
            # Spec C.2: the bound value encloses whatever failed inside it (used when the
            # failing node was rebuilt and is not in the input IR).
            add_enclosing_node(err, binding.value)
            raise
        var = binding.var
        if isinstance(binding, MatchCast):
            if var.ty is None:
                set_field(var, "ty", binding.ty)
            self._define_tir_vars(binding.ty)
            if new_value is not binding.value:
                binding = MatchCast(var, new_value, binding.ty, span=binding.span)
        else:
            if var.ty is None:
                set_field(var, "ty", new_value.ty)
            if new_value is not binding.value:
                binding = VarBinding(var, new_value, span=binding.span)
        frame.bindings.append(binding)
        self._bindings[var] = new_value
        return binding

    def _norm_function(self, func):
        for param in func.params:
            if param.ty is None:
                raise TypeError(f"Function parameter {param.name_hint} has no type annotation")
        if func.body is None:
            return func
        body = func.body
        if type(body) is SeqExpr and body.ty is not None and func.ty is not None:
            return func  # the body was normalized before
        saved_frames = self._frames
        self._frames = []
        scope = {id(v) for p in func.params for v in tir_vars_in(p.ty)}
        self._tir_scopes.append(scope)
        try:
            body = func.body
            if type(body) is SeqExpr:
                new_body = self._norm_seq(body)
            else:
                new_body = self._norm_seq(SeqExpr([], body, span=body.span), force_new=True)
        finally:
            self._tir_scopes.pop()
            self._frames = saved_frames
        if new_body is func.body and func.ty is not None:
            # Unchanged, unless the body's type (filled in place) refines the declared one.
            declared = func.ret_ty
            if declared is None or new_body.ty is None or \
                    _refined_ret_ty(func.params, declared, new_body.ty) is declared:
                return func
        ret_ty = func.ret_ty
        if ret_ty is None and new_body.ty is not None:
            # An unannotated return type may only mention the signature's symbolic vars.
            ret_ty = _erase(new_body.ty, lambda v: id(v) in scope, _always)
        return Function(func.params, new_body, ret_ty, func.is_pure, func.attrs, span=func.span)

    def _norm_shape(self, shape):
        if shape.ty is None:
            set_field(shape, "ty", ShapeType(shape.values))
        return shape

    def _norm_prim_value(self, value):
        if value.ty is None:
            set_field(value, "ty", PrimType(value.value.dtype, value.value))
        return value


def _nested_children(node):
    """The children of ``node`` that the iterative walk of ``_norm_nested`` must visit."""
    if type(node) is Call:
        return [a for a in node.args if type(a) in _NESTED]
    if type(node) is Tuple:
        return [f for f in node.fields if type(f) in _NESTED]
    value = node.tuple_value
    return [value] if type(value) in _NESTED else []


def _with_children(node, memo):
    """``node`` with its nested children replaced by their normalized forms."""
    if type(node) is Call:
        args = [memo.get(id(a), a) for a in node.args]
        if all(a is b for a, b in zip(args, node.args)):
            return node
        return Call(node.op, args, node.attrs, node.ty_args, span=node.span)
    if type(node) is Tuple:
        fields = [memo.get(id(f), f) for f in node.fields]
        if all(a is b for a, b in zip(fields, node.fields)):
            return node
        return Tuple(fields, span=node.span)
    value = memo.get(id(node.tuple_value), node.tuple_value)
    if value is node.tuple_value:
        return node
    return TupleGetItem(value, node.index, span=node.span)


def _always(_var):
    return True


def _one_or_tuple(types):
    return types[0] if len(types) == 1 else TupleType(list(types))


# Nodes whose nesting ``_norm_nested`` unrolls, and their shallow normalizers.
_NESTED = frozenset((Call, Tuple, TupleGetItem))

_DISPATCH = {
    Call: Normalizer._norm_call,
    Tuple: Normalizer._norm_tuple,
    TupleGetItem: Normalizer._norm_tuple_get_item,
    If: Normalizer._norm_if,
    SeqExpr: Normalizer._norm_seq,
    Function: Normalizer._norm_function,
    ShapeExpr: Normalizer._norm_shape,
    PrimValue: Normalizer._norm_prim_value,
}

_SHALLOW = {
    Call: Normalizer._norm_call_shallow,
    Tuple: Normalizer._norm_tuple,
    TupleGetItem: Normalizer._norm_tuple_get_item,
}


class MalformedBlockError(ValueError, RuntimeError):
    """A nested SeqExpr whose plain binding block uses the DataflowVars of the dataflow block
    it is emitted into. A ``ValueError`` that is also a ``RuntimeError``, the kind Apache TVM's
    error for this check derives from, so code written for either catches it."""


def _split_nested_seqs(blocks):
    """Blocks with each binding of a ``SeqExpr`` value spliced in, as TVM's normalizer does.

    The enclosing block is split at the binding; the nested SeqExpr's blocks follow as they
    are (a plain binding block stays one, even inside a dataflow block), and the variable is
    bound to the nested body in the block that resumes. Returns ``blocks`` itself when no
    binding holds a SeqExpr. A plain block spliced into a dataflow block must not use the
    DataflowVars around it: that raises :class:`MalformedBlockError` ("Malformed AST").
    """
    if not any(type(b.value) is SeqExpr for block in blocks for b in block.bindings):
        return blocks
    from .analysis.var_analysis import free_vars  # lazy: the analyses import this module
    from .expr import BindingBlock, Tuple

    result = []
    for block in blocks:
        block_cls = type(block)
        is_dataflow = isinstance(block, DataflowBlock)
        current = []
        for binding in block.bindings:
            nested = binding.value
            if type(nested) is not SeqExpr:
                current.append(binding)
                continue
            result.append(block_cls(current))
            current = []
            for inner in nested.blocks:
                if is_dataflow and not isinstance(inner, DataflowBlock):
                    used = [v for v in free_vars(SeqExpr([inner], Tuple([])))
                            if isinstance(v, DataflowVar)]
                    if used:
                        raise MalformedBlockError(
                            "Malformed AST: A DataflowVar may only be used within a "
                            f"DataflowBlock.  The variable {binding.var.name_hint} is defined "
                            "within a DataflowBlock, but is bound to a SeqExpr that contains "
                            "non-dataflow BindingBlocks.  These non-dataflow BindingBlocks use "
                            f"the DataflowVars ({', '.join(v.name_hint for v in used)},), "
                            "which is invalid."
                        )
                result.append(inner if type(inner) in (BindingBlock, DataflowBlock)
                              else BindingBlock(inner.bindings))
            if isinstance(binding, MatchCast):
                current.append(MatchCast(binding.var, nested.body, binding.ty,
                                         span=binding.span))
            else:
                current.append(VarBinding(binding.var, nested.body, span=binding.span))
        result.append(block_cls(current))
    return result


def _merge_adjacent(blocks):
    """Drop empty blocks and merge neighbours of the same kind (after splicing)."""
    merged = []
    for block in blocks:
        if not block.bindings:
            continue
        if merged and type(merged[-1]) is type(block):
            merged[-1] = type(block)(list(merged[-1].bindings) + list(block.bindings),
                                     span=merged[-1].span)
        else:
            merged.append(block)
    return merged
