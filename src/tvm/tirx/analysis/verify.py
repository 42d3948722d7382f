"""Well-formedness of PrimFuncs: ``verify_well_formed``, ``verify_tirx_well_formed``,
``verify_ssa`` and ``undefined_vars``.

Rules checked by :func:`verify_well_formed` (each failure names the variable or buffer and the
access path from the function, as in ``<root>.body.body.value``):

1. every variable is defined before it is used (parameters, shape, stride and element-offset
   variables of ``buffer_map`` buffers, loop variables, ``Bind``/``Let`` variables, block
   iteration variables, data and shape variables of allocated and matched buffers);
2. each variable is defined once (SSA), also across the functions of a module; a thread
   variable may be launched again in its own function;
3. inside an SBlock, loop variables of enclosing loops are reached only through the block's
   iteration variables (its ``iter_values``);
4. every buffer that is read or written is declared (``buffer_map``, ``AllocBuffer``,
   ``DeclBuffer``, block ``alloc_buffers``/``match_buffers``).

:func:`verify_tirx_well_formed` checks the same rules and also rejects s_tir statements
(``SBlock``/``SBlockRealize``), which only functions marked ``s_tir`` may contain.
"""

from __future__ import annotations

from ...ir.expr import PrimExpr
from ...support.recursion import deep_recursion
from ..expr import Var
from ..expr_functor import _ensure_recursion_limit
from ..stmt import BufferRegion, IterVar, Stmt
from .verify_tirx import check_kernel

__all__ = ["undefined_vars", "verify_ssa", "verify_tirx_well_formed", "verify_well_formed"]


class _Failed(Exception):
    pass


class _Verifier:
    """One walk over a function; ``errors`` collects messages (or the first one raises)."""

    def __init__(self, *, allow_sblock=True, collect_undefined=False, ssa_only=False,
                 stop_at_first=True, other_functions=None):
        self.allow_sblock = allow_sblock
        self.collect_undefined = collect_undefined
        self.ssa_only = ssa_only
        self.stop_at_first = stop_at_first
        self.defined: dict[int, str] = {}  # var id -> path of its definition (in scope now)
        self.first_def: dict[int, str] = {}  # var id -> path of its first definition (ever)
        self.buffers: set = set()  # ids of declared buffers in scope
        self.frames: list = []  # scope frames: lists of ("var"|"buf", id)
        self.loop_vars: set = set()  # ids of loop vars in scope
        self.block_stack: list = []  # (block name, loop var ids hidden by the block)
        self.undefined: list = []
        self.errors: list = []
        self.keep: list = []
        # Variables the bodies of the module's other functions define: id -> where (rule 2
        # holds across the functions of a module).
        self.other_functions: dict = other_functions if other_functions is not None else {}
        self.body_defs: dict = {}  # id -> path of the variables this function's body defines
        self.in_body = False
        self.env_threads: set = set()  # ids of thread variables this function launches

    # --- errors and scopes --------------------------------------------------------------------
    def fail(self, message):
        if self.ssa_only and "definitions of variable" not in message:
            return
        self.errors.append(message)
        if self.stop_at_first:
            raise _Failed(message)

    def push(self):
        self.frames.append([])

    def pop(self):
        for kind, key in self.frames.pop():
            if kind == "var":
                self.defined.pop(key, None)
                self.loop_vars.discard(key)
            else:
                self.buffers.discard(key)

    def define(self, var, path, loop=False):
        key = id(var)
        self.keep.append(var)
        if key in self.defined:
            # The first definition is still in scope (as TVM words it: "nested").
            self.fail(
                f"TIR is ill-formed, due to multiple nested definitions of variable "
                f"{var.name}. It was first defined at {self.first_def[key]}, and was re-defined "
                f"at {path}"
            )
        elif key in self.first_def or key in self.other_functions:
            first = self.first_def.get(key) or self.other_functions[key]
            self.fail(
                f"TIR is ill-formed, due to multiple definitions of variable {var.name}. "
                f"It was first defined at {first}, and was later re-defined at {path}"
            )
        self.first_def.setdefault(key, path)
        if self.in_body:
            self.body_defs.setdefault(key, path)
        self.defined[key] = path
        if loop:
            self.loop_vars.add(key)
        if self.frames:
            self.frames[-1].append(("var", key))

    def use(self, var, path):
        key = id(var)
        if key not in self.defined:
            if self.collect_undefined:
                if all(v is not var for v in self.undefined):
                    self.undefined.append(var)
                return
            message = f"Invalid use of undefined variable {var.name} at {path}."
            if key in self.first_def:
                message += (f"  While this variable was previously defined at "
                            f"{self.first_def[key]}, this definition is no longer in-scope.")
            self.fail(message)
            return
        if self.block_stack and key in self.block_stack[-1][1]:
            self.fail(
                f"Invalid use of loop variable {var.name} inside block "
                f'"{self.block_stack[-1][0]}" at {path}: a block reaches its enclosing loops '
                "only through its iteration variables (iter_values)"
            )

    def declare_buffer(self, buf, path, define_data=True):
        self.keep.append(buf)
        if define_data and id(buf.data) not in self.defined:
            self.define(buf.data, path + ".data")
        for d, dim in enumerate(buf.shape):
            self._define_new_vars(dim, f"{path}.shape[{d}]")
        # Strides and the element offset define their new variables too (``T.match_buffer(A,
        # [n], strides=[stride])`` binds ``stride``, as TVM's buffer_map does).
        for d, stride in enumerate(buf.strides or ()):
            self._define_new_vars(stride, f"{path}.strides[{d}]")
        if buf.elem_offset is not None:
            self._define_new_vars(buf.elem_offset, f"{path}.elem_offset")
        self.buffers.add(id(buf))
        if self.frames:
            self.frames[-1].append(("buf", id(buf)))

    def _define_new_vars(self, expr, path):
        """Shape variables of a declared buffer: new ones are defined, known ones are used."""
        if isinstance(expr, Var):
            if id(expr) not in self.defined:
                self.define(expr, path)
            return
        self.expr(expr, path)

    def use_buffer(self, buf, path):
        if id(buf) in self.buffers:
            return
        if self.collect_undefined:
            self.use(buf.data, path + ".data")
            return
        self.fail(
            f"Invalid use of undeclared buffer {buf.name} at {path}: buffer {buf.name} is used "
            "without a prior DeclBuffer, AllocBuffer or buffer_map entry."
        )

    # --- expressions --------------------------------------------------------------------------
    def expr(self, e, path):
        if isinstance(e, IterVar):
            e = e.var
        if isinstance(e, Var):
            self.use(e, path)
            return
        name = type(e).__name__
        if name == "Let":
            self.expr(e.value, path + ".value")
            self.push()
            self.define(e.var, path + ".var")
            self.expr(e.body, path + ".body")
            self.pop()
            return
        if name == "BufferLoad":
            self.use_buffer(e.buffer, path + ".buffer")
            for i, idx in enumerate(e.indices):
                self.expr(idx, f"{path}.indices[{i}]")
            if e.predicate is not None:
                self.expr(e.predicate, path + ".predicate")
            return
        for fobj in e._fields:
            if fobj.role == "ignore":
                continue
            self._value(getattr(e, fobj.name), f"{path}.{fobj.name}")

    def _value(self, value, path):
        if isinstance(value, (PrimExpr, IterVar)):
            self.expr(value, path)
        elif isinstance(value, (tuple, list)):
            for i, item in enumerate(value):
                self._value(item, f"{path}[{i}]")
        elif type(value).__name__ == "BufferRegion":
            self.region(value, path)

    def region(self, region, path):
        self.use_buffer(region.buffer, path + ".buffer")
        for i, r in enumerate(region.region):
            self.expr(r.min, f"{path}.region[{i}].min")
            self.expr(r.extent, f"{path}.region[{i}].extent")

    # --- statements ---------------------------------------------------------------------------
    def body(self, s, path):
        """A nested body: definitions made by its Bind/AllocBuffer end with it."""
        self.push()
        self.stmt(s, path)
        self.pop()

    def stmt(self, s, path):
        method = getattr(self, "s_" + type(s).__name__, None)
        if method is None:
            self.fail(f"TIR verifier does not support statement {s.type_key} at {path}")
            return
        method(s, path)

    def s_SeqStmt(self, s, path):
        for i, item in enumerate(s.seq):
            self.stmt(item, f"{path}.seq[{i}]")

    def s_BufferStore(self, s, path):
        self.use_buffer(s.buffer, path + ".buffer")
        self.expr(s.value, path + ".value")
        for i, idx in enumerate(s.indices):
            self.expr(idx, f"{path}.indices[{i}]")
        if s.predicate is not None:
            self.expr(s.predicate, path + ".predicate")

    def s_For(self, s, path):
        self.expr(s.min, path + ".min")
        self.expr(s.extent, path + ".extent")
        if s.step is not None:
            self.expr(s.step, path + ".step")
        self.push()
        self.define(s.loop_var, path + ".loop_var", loop=True)
        self.stmt(s.body, path + ".body")
        self.pop()

    def s_While(self, s, path):
        self.expr(s.condition, path + ".condition")
        self.body(s.body, path + ".body")

    def s_IfThenElse(self, s, path):
        self.expr(s.condition, path + ".condition")
        self.body(s.then_case, path + ".then_case")
        if s.else_case is not None:
            self.body(s.else_case, path + ".else_case")

    def s_Bind(self, s, path):
        self.expr(s.value, path + ".value")
        self.define(s.var, path + ".var")

    def s_ScopeIdDefStmt(self, s, path):
        scope_def = s.def_
        for i, e in enumerate(scope_def.extents or ()):
            self.expr(e, f"{path}.def.extents[{i}]")
        for i, v in enumerate(scope_def.def_ids):
            self.define(v, f"{path}.def.def_ids[{i}]")

    def s_AttrStmt(self, s, path):
        node = s.node
        self.push()
        if isinstance(node, IterVar) and id(node.var) not in self.defined:
            # ``thread_extent``-style attributes define their IterVar's variable; one thread
            # variable may be launched again later in the same function (TVM requires it).
            key = id(node.var)
            if key in self.env_threads:
                self.defined[key] = path + ".node.var"
                self.frames[-1].append(("var", key))
            else:
                self.define(node.var, path + ".node.var")
                self.env_threads.add(key)
        self.expr(s.value, path + ".value")
        self.stmt(s.body, path + ".body")
        self.pop()

    def s_AllocBuffer(self, s, path):
        buf = s.buffer
        for d, dim in enumerate(buf.shape):
            self.expr(dim, f"{path}.buffer.shape[{d}]")
        self.declare_buffer(buf, path + ".buffer")

    def s_DeclBuffer(self, s, path):
        buf = s.buffer
        tmem_addr = buf.scope() == "tmem" and buf.allocated_addr is not None
        if s.data is not None and isinstance(s.data, PrimExpr) and not tmem_addr:
            # (A TMEM buffer's data is ``reinterpret(allocated_addr)``, checked as its address.)
            self.expr(s.data, path + ".data")
        elif id(buf.data) in self.defined:
            self.use(buf.data, path + ".buffer.data")
        for d, dim in enumerate(buf.shape):
            self.expr(dim, f"{path}.buffer.shape[{d}]")
        if self.collect_undefined:
            # undefined_vars: a declaration's element offset and strides come from the
            # enclosing scope (a flattened match_buffer's ``elem_offset``), so a caller that
            # outlines the statement must capture them (TVM's VarUseDefAnalyzer). The
            # well-formed check stays lenient: TVMScript's decl_buffer makes fresh ones.
            for d, stride in enumerate(buf.strides or ()):
                self.expr(stride, f"{path}.buffer.strides[{d}]")
            if buf.elem_offset is not None:
                self.expr(buf.elem_offset, f"{path}.buffer.elem_offset")
        self.declare_buffer(buf, path + ".buffer")

    def s_TilePrimitiveCall(self, s, path):
        # Tile primitive operands: regions, scalars, nested calls (compose_op), lambdas.
        from ..tile_primitive import LambdaExpr

        def operand(a, p):
            if isinstance(a, BufferRegion):
                self.use_buffer(a.buffer, p + ".buffer")
                for j, r in enumerate(a.region):
                    self.expr(r.min, f"{p}.region[{j}].min")
                    self.expr(r.extent, f"{p}.region[{j}].extent")
            elif isinstance(a, Stmt):
                self.stmt(a, p)
            elif isinstance(a, LambdaExpr):
                self.push()
                for j, v in enumerate(a.vars):
                    self.define(v, f"{p}.vars[{j}]")
                self.expr(a.pred, p + ".pred")
                self.pop()
            elif isinstance(a, tuple):
                for j, item in enumerate(a):
                    operand(item, f"{p}[{j}]")
            elif isinstance(a, PrimExpr):
                self.expr(a, p)

        for i, a in enumerate(s.args):
            operand(a, f"{path}.args[{i}]")
        for key, value in s.config.items():
            operand(value, f"{path}.config[{key!r}]")

    def s_Evaluate(self, s, path):
        self.expr(s.value, path + ".value")

    def s_AssertStmt(self, s, path):
        self.expr(s.condition, path + ".condition")

    def s_Break(self, s, path):
        pass

    def s_Return(self, s, path):
        self.expr(s.value, path + ".value")

    def s_Continue(self, s, path):
        pass

    def s_SBlockRealize(self, s, path):
        if not self.allow_sblock:
            self.fail(f"TIR verifier does not support statement {s.type_key} at {path}")
            return
        for i, v in enumerate(s.iter_values):
            self.expr(v, f"{path}.iter_values[{i}]")
        self.expr(s.predicate, path + ".predicate")
        self.sblock(s.block, path + ".block")

    def s_SBlock(self, s, path):
        if not self.allow_sblock:
            self.fail(f"TIR verifier does not support statement {s.type_key} at {path}")
            return
        self.sblock(s, path)

    def sblock(self, block, path):
        self.push()
        # Loop variables in scope now are hidden inside a block with iterators; an opaque
        # block (no iterators, as ConvertBlocksToOpaque leaves them) may use them, as in TVM.
        if block.iter_vars:
            hidden = set(self.loop_vars)
        else:
            hidden = self.block_stack[-1][1] if self.block_stack else set()
        # Iterator domains are evaluated where the block is realized, so they may use the
        # enclosing loops (``T.axis.remap`` over ``for k in range(i)`` gives vk the domain i).
        for i, iv in enumerate(block.iter_vars):
            ipath = f"{path}.iter_vars[{i}]"
            if iv.dom is not None:
                self.expr(iv.dom.min, ipath + ".dom.min")
                self.expr(iv.dom.extent, ipath + ".dom.extent")
        self.block_stack.append((block.name_hint, hidden))
        for i, iv in enumerate(block.iter_vars):
            self.define(iv.var, f"{path}.iter_vars[{i}].var")
        for i, buf in enumerate(block.alloc_buffers):
            bpath = f"{path}.alloc_buffers[{i}]"
            for d, dim in enumerate(buf.shape):
                self.expr(dim, f"{bpath}.shape[{d}]")
            self.declare_buffer(buf, bpath)
        for i, mb in enumerate(block.match_buffers):
            mpath = f"{path}.match_buffers[{i}]"
            self.region(mb.source, mpath + ".source")
            self.declare_buffer(mb.buffer, mpath + ".buffer")
        for i, region in enumerate(block.reads):
            self.region(region, f"{path}.reads[{i}]")
        for i, region in enumerate(block.writes):
            self.region(region, f"{path}.writes[{i}]")
        if block.init is not None:
            self.body(block.init, path + ".init")
        self.stmt(block.body, path + ".body")
        self.block_stack.pop()
        self.pop()

    # --- functions ----------------------------------------------------------------------------
    def func(self, func, root="<root>"):
        self.push()
        for i, p in enumerate(func.param_vars):
            self.define(p, f"{root}.params[{i}]")
        # A shape variable is defined by any parameter buffer that has it as a plain dim, in
        # whichever order (``A: (n + 1,)`` before ``B: (n,)``), as the packed API binds them.
        for p, buf in func.buffer_map.items():
            for d, dim in enumerate(buf.shape):
                if isinstance(dim, Var) and id(dim) not in self.defined:
                    self.define(dim, f"{root}.buffer_map[{p.name}].shape[{d}]")
        for p, buf in func.buffer_map.items():
            self.declare_buffer(buf, f"{root}.buffer_map[{p.name}]")
        self.in_body = True
        try:
            self.stmt(func.body, root + ".body")
        finally:
            self.in_body = False
        self.pop()


def _functions(func_or_mod):
    if hasattr(func_or_mod, "functions") and not hasattr(func_or_mod, "body"):
        for gvar, func in func_or_mod.functions.items():
            if hasattr(func, "buffer_map"):
                yield gvar.name_hint, func
        return
    if not hasattr(func_or_mod, "buffer_map"):
        raise TypeError(
            f"expected a PrimFunc or an IRModule, got {type(func_or_mod).__name__}"
        )
    yield None, func_or_mod


def _check(func_or_mod, assert_mode, allow_sblock, ssa_only=False):
    _ensure_recursion_limit()  # the walk recurses along expression depth
    ok = True
    other_functions: dict = {}  # variables defined in the bodies of functions checked so far
    for name, func in _functions(func_or_mod):
        verifier = _Verifier(allow_sblock=allow_sblock, ssa_only=ssa_only,
                             stop_at_first=assert_mode, other_functions=other_functions)
        try:
            verifier.func(func)
        except _Failed as e:
            raise ValueError(str(e)) from None
        ok = ok and not verifier.errors
        for key, path in verifier.body_defs.items():
            other_functions.setdefault(key, f"{path} in function {name}")
    return ok


def verify_well_formed(obj, assert_mode: bool = True) -> bool:
    """Check the well-formedness rules above on a PrimFunc or every PrimFunc of an IRModule.

    With ``assert_mode`` the first violation raises ``ValueError``; otherwise ``False`` is
    returned.
    """
    with deep_recursion("verify_well_formed"):
        return _check(obj, assert_mode, allow_sblock=True)


def verify_tirx_well_formed(obj, assert_mode: bool = True, device_func: bool = False) -> bool:
    """Like :func:`verify_well_formed`, and also reject s_tir statements (SBlocks) and check
    the TIRx kernel rules (device entry, scope ids and their extents; see
    :mod:`.verify_tirx`).

    ``device_func`` marks a function called from device code (no device entry of its own);
    the rules are the same.
    """
    del device_func  # the same rules apply to kernels and device functions
    ok = _check(obj, assert_mode, allow_sblock=False)
    for _, func in _functions(obj):
        try:
            check_kernel(func)
        except ValueError:
            if assert_mode:
                raise
            ok = False
    return ok


def verify_ssa(func) -> bool:
    """Whether every variable of ``func`` is defined exactly once."""
    return _check(func, False, allow_sblock=True, ssa_only=True)


def undefined_vars(node, defs=None) -> list:
    """Variables used in ``node`` (a statement or expression) without a definition there.

    ``defs`` lists variables to treat as already defined. A buffer used without a declaration
    contributes its data variable. Variables come in order of first use.
    """
    _ensure_recursion_limit()
    verifier = _Verifier(collect_undefined=True, stop_at_first=False)
    verifier.push()
    for v in defs or ():
        verifier.define(v, "<defs>")
    if isinstance(node, Stmt):
        verifier.stmt(node, "<root>")
    elif isinstance(node, (PrimExpr, IterVar)):
        verifier.expr(node, "<root>")
    else:
        raise TypeError(f"undefined_vars expects a Stmt or PrimExpr, got {type(node).__name__}")
    return list(verifier.undefined)
