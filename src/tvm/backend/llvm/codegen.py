"""The tirx -> LLVM IR code generator (llvmlite).

Input: lowered PrimFuncs (no SBlocks, flat 1-D buffer accesses; see
``tvm.tirx.compilation_pipeline``). Output: one ``llvmlite.ir.Module`` in which each PrimFunc
``f`` becomes

* ``internal i32 f_compute(ptr noalias A, ..., <shape vars>, <scalars>)``: the body, with
  ``noalias`` data pointers when the function has ``tirx.noalias`` (TVM's default), so LLVM's
  loop vectorizer can vectorize without runtime alias checks;
* ``__tvm_ffi_f``: the packed-API wrapper (``packed_api.emit_packed_function``) that checks
  the arguments (count, ndim, dtype, device, static and symbolic shapes, layout) and calls
  ``f_compute``.

Statements: serial loops are counted loops; ``T.parallel`` loops are outlined into a task of
the thread pool (``parallel.emit_parallel_for``); ``T.vectorized`` loops are counted loops
that LLVM's loop vectorizer handles (O3); unrolled loops are unrolled by ``UnrollLoop`` before.
``AllocBuffer`` uses the stack (``alloca`` in the entry block) up to 64 KiB of constant size,
else the heap (``TVMBackendAllocWorkspace``, freed at the end of the enclosing scope).
``AssertStmt`` raises its error kind through ``TVMFFIErrorSetRaisedFromCStr``. Limitations:
predicated (masked) vector loads/stores, ``Shuffle``, thread-bound loops (GPU) and buffers
without a ``buffer_map`` entry for a handle parameter are rejected with a ``ValueError``.
"""

from __future__ import annotations

import hashlib

from ...ir.op import Op
from ...runtime.data_type import dtype_info
from ...runtime.data_type import dtype_kind as _kind
from ...tirx import expr as E
from ...tirx.analysis.symbols import exported_symbols
from ...tirx.function import PrimFunc
from ...tirx.stmt import (
    AllocBuffer,
    AssertStmt,
    AttrStmt,
    Bind,
    Break,
    BufferLoad,
    BufferStore,
    Continue,
    DeclBuffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    Return,
    SeqStmt,
    While,
)
from ...tirx.stmt_functor import StmtVisitor, post_order_visit
from ...tirx.type import is_tensormap_pointer
from . import intrin
from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)
from .call_packed import emit_call_packed, emit_stack_alloca
from .codegen_expr import (
    I8,
    I32,
    I64,
    PTR,
    ExprEmitter,
    declare_intrinsic,
    elem_bytes,
    register_expr_method,
    storage_type,
    value_type,
)
from .codegen_vector import emit_access_ptr, emit_active_lane_mask, emit_vscale
from .packed_api import ScalarParam, TensorParam, emit_packed_function, signature_text
from .parallel import emit_parallel_chunks

__all__ = ["CodeGenLLVM", "codegen_module"]

STACK_LIMIT_BYTES = 64 * 1024
#: float32 ``exp`` as inline polynomial arithmetic (vectorizes) instead of ``expf`` calls.
FAST_EXP = True
#: Serial loops with more iterations than this (or a symbolic extent) carry
#: ``llvm.loop.unroll.disable``: LLVM's loop vectorizer still vectorizes and interleaves them,
#: but its unroller leaves them rolled. So do the loops of a vector map (vector stores that
#: read none of the buffers the loop stores to, :func:`_vector_map`): unrolled, a relu over
#: 28-float rows was 60 ms of O3 for no speed (memory-bound, each iteration independent).
#: None: every loop is left to LLVM's unroller.
UNROLL_MAX_EXTENT: int | None = 32
#: Kernel functions doing at most this many element stores outside parallel loops (all loop
#: extents constant) are ``optnone``: LLVM neither optimizes them nor selects their
#: instructions carefully. Small kernels run for a microsecond or a few either way (the loss
#: kernels of the 64-row MLP step: step time 0.501 -> 0.506 ms), while LLVM spent 23 ms of
#: that step's 210 ms on seven of them, even with their loops marked not to be vectorized or
#: unrolled. A parallel kernel's function only launches its loop body (a function of its
#: own, optimized as usual) on the thread pool. Not ``optsize``: LLVM 20's vectorizer
#: miscompiles a ``maxnum`` reduction under it (argmax of 6x5 skipped the 5th column).
#: None: no kernel is treated so.
SMALL_KERNEL_STORES: int | None = 4096
_ERROR_SET = "TVMFFIErrorSetRaisedFromCStr"
_ALLOC_WS = "TVMBackendAllocWorkspace"
_FREE_WS = "TVMBackendFreeWorkspace"


class CodeGenLLVM(ExprEmitter):
    """Emit PrimFuncs into one llvmlite module; see the module docstring."""

    def __init__(self, module_name: str = "pytvm", split_wrappers: bool = False):
        self.module = ir.Module(module_name)
        # With split_wrappers, the packed wrappers go to a module of their own (see
        # codegen_module) and the kernels they call are hidden external functions.
        self.wrappers = ir.Module(f"{module_name}.wrappers") if split_wrappers else None
        self.builder = None
        self.vars = {}
        self.func_name = ""
        self.callee_token = ""
        self._strings = {}
        self._wrapper_strings = {}
        self._loops = []  # (continue block, break block) of enclosing loops
        self._scopes = []  # heap allocations to free per statement scope
        self._noalias_ids = set()  # ids of buffer data vars that may be marked noalias
        self._par_count = 0
        self._small = False  # the function being emitted is a small kernel
        # The TVMFFIAny* a ``return v`` statement writes to (the wrapper's ``result``): an
        # extra last argument of the kernel function when its body returns a value.
        self._ret_slot = None
        self._ret_dtype = None

    # --- functions ----------------------------------------------------------------------------
    def add_function(self, func: PrimFunc, name: str) -> None:
        """Emit ``func`` as ``<name>_compute`` plus its packed wrapper ``__tvm_ffi_<name>``."""
        self.func_name = name
        # Callee slots of T.call_packed are named after the build's device code.
        self.callee_token = str(func.get_attr("tirx.device_module_hash") or "")
        self._dim_checks = []  # (compound extent, tensor name, dim) of parameter shapes
        params, all_args = self._signature(func, name)
        inner_args, checks, first_of = [], [], {}
        for entry in all_args:
            if id(entry[1]) in first_of:
                checks.append((first_of[id(entry[1])], entry))
                continue
            first_of[id(entry[1])] = entry
            inner_args.append(entry)
        noalias = bool(func.get_attr("tirx.noalias", False))
        arg_types = [value_type(v.dtype) if kind != "data" else PTR
                     for kind, v, _ in inner_args]
        returns = _has_return(func.body)
        if returns:
            arg_types.append(PTR)
        inner = ir.Function(self.module, ir.FunctionType(I32, arg_types), f"{name}_compute")
        # llvmlite prints the linkage string verbatim: "hidden" is the visibility (external
        # linkage, not exported from a shared library).
        inner.linkage = "internal" if self.wrappers is None else "hidden"
        self._small = (SMALL_KERNEL_STORES is not None
                       and _serial_stores(func.body) <= SMALL_KERNEL_STORES)
        for (kind, var, _), arg in zip(inner_args, inner.args):
            arg.name = var.name
            if kind == "data" and noalias:
                arg.add_attribute("noalias")
        self._noalias_ids = {id(v) for kind, v, _ in inner_args if kind == "data" and noalias}
        if self._small:
            inner.attributes.add("noinline")  # required with optnone
            inner.attributes.add("optnone")
        self._ret_slot = inner.args[-1] if returns else None
        self._ret_dtype = _return_dtype(func, name) if returns else None
        if returns:
            inner.args[-1].name = "ret_value"
        self._emit_body(func, inner, inner_args)
        self._ret_slot = None

        def value_of(builder, args, entry):
            kind, var, source = entry
            if kind == "data":
                return args.tensors[source].data
            if kind == "shape":
                tensor, dim = source
                return _fit(builder, args.tensors[tensor].shape[dim], value_type(var.dtype))
            if kind == "stride":
                tensor, dim = source
                return _fit(builder, args.tensors[tensor].strides[dim], value_type(var.dtype))
            return args.scalars[source]

        def body(builder, args):
            for first, other in checks:
                # A variable bound twice (a scalar parameter that is also a buffer extent):
                # both sources must agree, or the kernel would index out of bounds.
                a, b = value_of(builder, args, first), value_of(builder, args, other)
                with builder.if_then(builder.icmp_signed("!=", a, b), likely=False):
                    message = (f"Mismatched {_describe(other)} when calling {name}: expected "
                               f"it to equal {_describe(first)} (both bind {first[1].name})")
                    fn = self._declare(_ERROR_SET, ir.FunctionType(ir.VoidType(), [PTR, PTR]))
                    builder.call(fn, [self.string_constant("ValueError"),
                                      self.string_constant(message)])
                    builder.ret(ir.Constant(I32, -1))
            if dim_checks:
                sources = {id(e[1]): (f"{e[2][0]}.shape[{e[2][1]}]" if e[0] == "shape"
                                      else f"{e[2][0]}.strides[{e[2][1]}]" if e[0] == "stride"
                                      else e[2]) for e in inner_args if e[0] != "data"}
                where = (signature_text(name, params),
                         {p.name: i for i, p in enumerate(params)}, sources)
                self._emit_dim_checks(builder, args, name, dim_checks,
                                      {id(e[1]): value_of(builder, args, e) for e in inner_args
                                       if e[0] != "data"}, where)
            call_args = [value_of(builder, args, e) for e in inner_args]
            if returns:
                call_args.append(builder.function.args[3])  # the wrapper's TVMFFIAny* result
            return builder.call(callee, call_args)

        dim_checks = list(self._dim_checks)
        if self.wrappers is None:
            callee = inner
            wrapper = emit_packed_function(self.module, name, params, body)
        else:
            callee = ir.Function(self.wrappers, inner.function_type, inner.name)
            callee.linkage = "hidden"
            kernels, self.module = self.module, self.wrappers
            strings, self._strings = self._strings, self._wrapper_strings
            try:  # string constants and declarations the checks need go to the wrappers
                wrapper = emit_packed_function(self.wrappers, name, params, body)
            finally:
                self.module, self._strings = kernels, strings
        # The wrapper only unpacks and checks arguments (calls of the shared helpers) and
        # calls the kernel: optimizing it buys nothing measurable per call, but cost LLVM
        # ~5 ms of O3 and instruction selection per kernel (10-20% of a training-step
        # build's LLVM time). `noinline` is required with `optnone`; the kernel stays a
        # separate function, called once.
        wrapper.attributes.add("noinline")
        wrapper.attributes.add("optnone")

    def _emit_dim_checks(self, builder, args, name, checks, values, where):
        """``shape[d] == expr`` for parameter dims given by expressions (``n * 2``)."""
        saved = (self.builder, self.vars)
        self.builder, self.vars = builder, dict(values)
        try:
            for extent, tname, dim in checks:
                expected = self.cast_value(self.emit_expr(extent), extent.dtype, "int64")
                actual = args.tensors[tname].shape[dim]
                with builder.if_then(builder.icmp_signed("!=", expected, actual), likely=False):
                    snprintf = self._declare(
                        "snprintf", ir.FunctionType(I32, [PTR, I64, PTR], var_arg=True))
                    buf = builder.alloca(ir.ArrayType(I8, 512))
                    signature, index, sources = where
                    # As TVM: the expected extent in terms of the arguments it comes from
                    # ("B.shape[0] + 1"), then its value and the actual one.
                    text = _render(extent, sources).replace("%", "%%")
                    fmt = (f"Invalid {tname}.shape[{dim}] on argument #{index[tname]} when "
                           f"calling:\n  `{signature.replace('%', '%%')}`,\n  expected {text}"
                           " = %lld, got %lld")
                    builder.call(snprintf, [buf, ir.Constant(I64, 512),
                                            self.string_constant(fmt), expected, actual])
                    fn = self._declare(_ERROR_SET, ir.FunctionType(ir.VoidType(), [PTR, PTR]))
                    builder.call(fn, [self.string_constant("ValueError"), buf])
                    builder.ret(ir.Constant(I32, -1))
        finally:
            self.builder, self.vars = saved

    def _signature(self, func: PrimFunc, name: str):
        """Packed-API parameter specs and the inner function's arguments.

        ``inner_args`` holds ``(kind, var, source)``: ``("data", data var, tensor name)``,
        ``("shape", var, (tensor name, dim))``, ``("stride", var, (tensor, dim))`` or
        ``("scalar", var, param name)``.
        """
        params, inner_args, seen, used_names = [], [], set(), set()
        # Tensors of a device build's host function live on the device (the driver marks it).
        device_type = int(func.get_attr("tirx.arg_device_type") or 1)

        def unique(base):
            # Parameter names appear in error messages and must differ (te may repeat them).
            name_, k = base, 0
            while name_ in used_names:
                k += 1
                name_ = f"{base}_{k}"
            used_names.add(name_)
            return name_

        for p in func.param_vars:
            buf = func.buffer_map.get(p)
            if buf is None:
                if p.dtype == "handle" and not is_tensormap_pointer(p.type_annotation):
                    raise ValueError(
                        f"function {name}: handle parameter {p.name} has no buffer_map "
                        "entry; raw pointer parameters are not supported yet"
                    )
                sname = unique(p.name)
                params.append(ScalarParam(sname, p.dtype))
                inner_args.append(("scalar", p, sname))
                continue
            tname = unique(p.name)
            shape, texts = [], []
            for dim, extent in enumerate(buf.shape):
                texts.append(None if isinstance(extent, (E.IntImm, E.Var)) else str(extent))
                if isinstance(extent, E.IntImm):
                    shape.append(int(extent.value))
                elif isinstance(extent, E.Var):
                    shape.append(extent.name)
                    if id(extent) not in seen:
                        # Later uses of the name are checked by the packed API itself.
                        seen.add(id(extent))
                        inner_args.append(("shape", extent, (tname, dim)))
                else:
                    # Checked after unpacking, against the variables other dims bind.
                    shape.append(None)
                    self._dim_checks.append((extent, tname, dim))
            compact = not buf.strides
            if not compact:
                for dim, stride in enumerate(buf.strides):
                    if isinstance(stride, E.Var) and id(stride) not in seen:
                        seen.add(id(stride))
                        inner_args.append(("stride", stride, (tname, dim)))
                    elif not isinstance(stride, (E.Var, E.IntImm)):
                        raise ValueError(
                            f"function {name}: parameter {tname} has a compound stride "
                            f"{stride}; only constants and variables are supported"
                        )
            if buf.elem_offset is not None and not (
                isinstance(buf.elem_offset, E.IntImm) and buf.elem_offset.value == 0
            ):
                raise ValueError(
                    f"function {name}: parameter {tname} has elem_offset {buf.elem_offset}; "
                    "offset buffer parameters are not supported yet"
                )
            params.append(TensorParam(tname, buf.dtype, tuple(shape), compact=compact,
                                      device_type=device_type,
                                      dim_texts=tuple(texts) if any(texts) else None))
            inner_args.append(("data", buf.data, tname))
            seen.add(id(buf.data))
        bound = {id(v) for kind, v, _ in inner_args if kind != "data"}
        for extent, tname, dim in self._dim_checks:
            free = []
            post_order_visit(extent, lambda n, free=free: free.append(n)
                             if isinstance(n, E.Var) else None)
            for var in free:
                if id(var) not in bound:
                    raise ValueError(
                        f"function {name}: parameter {tname} has shape[{dim}] = {extent}, but "
                        f"{var.name} is not bound by a plain dimension or scalar parameter"
                    )
        # Symbolic names must be unique across different variables for the packed checks.
        names = {}
        for kind, var, _ in inner_args:
            if kind in ("shape", "stride"):
                if var.name in names and names[var.name] is not var:
                    raise ValueError(
                        f"function {name}: two different shape variables are named {var.name}"
                    )
                names[var.name] = var
        return params, inner_args

    def _emit_body(self, func, inner, inner_args):
        entry = inner.append_basic_block("entry")
        self._entry = entry
        self.builder = ir.IRBuilder(entry)
        self.vars = {id(var): arg for (_, var, _), arg in zip(inner_args, inner.args)}
        # Static shapes and stride constants of parameters are known values too.
        for p in func.param_vars:
            buf = func.buffer_map.get(p)
            if buf is None:
                continue
            for dims in (buf.shape, buf.strides):
                for extent in dims:
                    if isinstance(extent, E.Var) and id(extent) not in self.vars:
                        raise ValueError(f"function {self.func_name}: cannot bind {extent.name}")
        self._scopes = [[]]
        self.emit_stmt(func.body)
        self._free_scope()
        if not self.builder.block.is_terminated:
            self.builder.ret(ir.Constant(I32, 0))

    # --- statements ---------------------------------------------------------------------------
    def emit_stmt(self, stmt):
        """Emit the LLVM instructions of the statement ``stmt`` at the builder's position (in a
        fresh block when the current one already ended with a branch or return).

        Raises
        ------
        ValueError
            For a statement kind the LLVM code generator does not support (lower it first).
        """
        if self.builder.block.is_terminated:
            # Code after a break/continue/return in the same block is unreachable.
            self.builder.position_at_end(self.builder.function.append_basic_block("dead"))
        method = _STMT_METHODS.get(type(stmt))
        if method is None:
            raise ValueError(
                f"the llvm code generator does not support {type(stmt).__name__} statements "
                f"(in function {self.func_name}); lower them first"
            )
        method(self, stmt)

    def _scoped(self, stmt):
        self._scopes.append([])
        self.emit_stmt(stmt)
        self._free_scope()

    def _free_scope(self):
        allocations = self._scopes.pop() if len(self._scopes) > 1 else self._scopes[0]
        if allocations and not self.builder.block.is_terminated:
            free = self._declare(_FREE_WS, ir.FunctionType(I32, [I32, I32, PTR]))
            for ptr in reversed(allocations):
                self.builder.call(free, [ir.Constant(I32, 1), ir.Constant(I32, 0), ptr])
        if len(self._scopes) == 0:
            self._scopes.append([])

    def _seq(self, stmt):
        for s in stmt.seq:
            self.emit_stmt(s)

    def _for(self, op: For):
        if op.thread_binding is not None or op.kind == ForKind.THREAD_BINDING:
            raise ValueError(
                f"loop {op.loop_var.name} in function {self.func_name} is bound to a GPU "
                "thread; the llvm target runs only CPU loops"
            )
        if op.step is not None and not (isinstance(op.step, E.IntImm) and op.step.value == 1):
            raise ValueError(f"loop {op.loop_var.name}: steps other than 1 are not supported")
        lo = self.emit_expr(op.min)
        extent = self.emit_expr(op.extent)
        if op.kind == ForKind.PARALLEL:
            self._parallel_for(op, extent)
            return
        b = self.builder
        ty = lo.type
        fn = b.function
        pre = b.block
        head = fn.append_basic_block(f"for.{op.loop_var.name}")
        latch = fn.append_basic_block(f"for.{op.loop_var.name}.latch")
        done = fn.append_basic_block(f"for.{op.loop_var.name}.end")
        if isinstance(lo, ir.Constant) and isinstance(extent, ir.Constant) and extent.constant > 0:
            # Constant bounds (the common case): no instructions for the bound and the entry
            # test (a few percent of a training step's IR, printed by llvmlite and parsed).
            stop = ir.Constant(ty, lo.constant + extent.constant)
            b.branch(head)
        else:
            stop = b.add(lo, extent)
            b.cbranch(b.icmp_signed("<", lo, stop), head, done)
        b.position_at_end(head)
        index = b.phi(ty, name=op.loop_var.name)
        index.add_incoming(lo, pre)
        self.vars[id(op.loop_var)] = index
        self._loops.append((latch, done))
        self._scoped(op.body)
        self._loops.pop()
        if not self.builder.block.is_terminated:
            self.builder.branch(latch)
        b = self.builder
        b.position_at_end(latch)
        nxt = b.add(index, ir.Constant(ty, 1), name=f"{op.loop_var.name}.next")
        index.add_incoming(nxt, latch)
        back = b.cbranch(b.icmp_signed("<", nxt, stop), head, done)
        if not self._small and UNROLL_MAX_EXTENT is not None and (not (
                isinstance(op.extent, E.IntImm) and op.extent.value <= UNROLL_MAX_EXTENT)
                or _vector_map(op.body)):
            back.set_metadata("llvm.loop", self._unroll_disabled())
        b.position_at_end(done)

    def _unroll_disabled(self):
        """A new loop ID node: ``!N = !{!N, !{"llvm.loop.unroll.disable"}}``."""
        module = self.module
        hints = [module.add_metadata([ir.MetaDataString(module, "llvm.loop.unroll.disable")])]
        # A loop ID refers to itself (LLVM's convention); llvmlite uniques metadata by
        # operands, so the node is made directly and its first operand patched.
        loop_id = ir.MDValue(module, hints, name=str(len(module.metadata)))
        loop_id.operands = (loop_id, *hints)
        return loop_id

    def _parallel_for(self, op: For, extent):
        # The body becomes an internal function over [begin, end) whose buffer pointers are
        # `noalias` again (values reloaded from a closure lose that), called by pool tasks.
        used = _used_var_ids(op)
        keys = [k for k in self.vars if k in used]
        captured = [self.vars[k] for k in keys]
        outer = (self.builder, self.vars, self._loops, self._scopes, self._entry, self._small,
                 self._ret_slot)
        self._ret_slot = None  # a task cannot return from the function that launched it
        self._par_count += 1
        name = f"{self.func_name}_parallel_{self._par_count}"
        fn = ir.Function(self.module, ir.FunctionType(I32, [v.type for v in captured] + [I64, I64]),
                         name)
        fn.linkage = "internal"
        # Not inlined into its task: LLVM would optimize the loop nest a second time there
        # (6-9% of a training step's LLVM time); the call costs once per task, not per row.
        fn.attributes.add("noinline")
        for key, arg in zip(keys, fn.args):
            if key in self._noalias_ids:
                arg.add_attribute("noalias")
        entry = fn.append_basic_block("entry")
        self.builder = ir.IRBuilder(entry)
        self.vars = dict(zip(keys, fn.args))
        self._loops, self._scopes, self._entry = [], [[]], entry
        self._small = False  # the loop body is optimized even when its launcher is not
        begin, end = fn.args[-2], fn.args[-1]
        start = self.emit_expr(op.min)
        ty = start.type
        b = self.builder
        body_bb = fn.append_basic_block("par.body")
        latch = fn.append_basic_block("par.latch")
        done = fn.append_basic_block("par.end")
        b.cbranch(b.icmp_signed("<", begin, end), body_bb, done)
        b.position_at_end(body_bb)
        index = b.phi(I64, name="i")
        index.add_incoming(begin, entry)
        offset = _fit(b, index, ty)
        self.vars[id(op.loop_var)] = offset if _is_zero(start) else b.add(start, offset,
                                                                          name=op.loop_var.name)
        self._loops.append((latch, done))
        self._scoped(op.body)
        if not self.builder.block.is_terminated:
            self.builder.branch(latch)
        b = self.builder
        b.position_at_end(latch)
        nxt = b.add(index, ir.Constant(I64, 1))
        index.add_incoming(nxt, latch)
        b.cbranch(b.icmp_signed("<", nxt, end), body_bb, done)
        b.position_at_end(done)
        b.ret(ir.Constant(I32, 0))
        (self.builder, self.vars, self._loops, self._scopes, self._entry, self._small,
         self._ret_slot) = outer

        def chunk(tb, chunk_begin, chunk_end, values):
            status = tb.call(fn, [*values, chunk_begin, chunk_end])
            with tb.if_then(tb.icmp_signed("!=", status, ir.Constant(I32, 0)), likely=False):
                tb.ret(status)

        status = emit_parallel_chunks(self.builder, _fit(self.builder, extent, I64), captured,
                                      chunk, name=f"{name}_task")
        # The task only splits the range and calls the body: once per thread and launch.
        task = status.args[0]
        task.attributes.add("noinline")
        task.attributes.add("optnone")
        self._return_on_error(status)

    def _return_on_error(self, status):
        b = self.builder
        with b.if_then(b.icmp_signed("!=", status, ir.Constant(I32, 0)), likely=False):
            b.ret(status)

    def _while(self, op: While):
        b = self.builder
        fn = b.function
        head = fn.append_basic_block("while.cond")
        body = fn.append_basic_block("while.body")
        done = fn.append_basic_block("while.end")
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(self.emit_expr(op.condition), body, done)
        self.builder.position_at_end(body)
        self._loops.append((head, done))
        self._scoped(op.body)
        self._loops.pop()
        if not self.builder.block.is_terminated:
            self.builder.branch(head)
        self.builder.position_at_end(done)

    def _break(self, op):
        if not self._loops:
            raise ValueError(f"break outside of a loop in function {self.func_name}")
        self.builder.branch(self._loops[-1][1])

    def _continue(self, op):
        if not self._loops:
            raise ValueError(f"continue outside of a loop in function {self.func_name}")
        self.builder.branch(self._loops[-1][0])

    def _if(self, op: IfThenElse):
        cond = self.emit_expr(op.condition)
        b = self.builder
        fn = b.function
        then_bb = fn.append_basic_block("if.then")
        else_bb = fn.append_basic_block("if.else") if op.else_case is not None else None
        done = fn.append_basic_block("if.end")
        b.cbranch(cond, then_bb, else_bb or done)
        self.builder.position_at_end(then_bb)
        self._scoped(op.then_case)
        if not self.builder.block.is_terminated:
            self.builder.branch(done)
        if else_bb is not None:
            self.builder.position_at_end(else_bb)
            self._scoped(op.else_case)
            if not self.builder.block.is_terminated:
                self.builder.branch(done)
        self.builder.position_at_end(done)

    def _bind(self, op: Bind):
        self.vars[id(op.var)] = self.emit_expr(op.value)

    def _attr(self, op: AttrStmt):
        self.emit_stmt(op.body)

    def _decl_buffer(self, op: DeclBuffer):
        if op.data is not None and id(op.buffer.data) not in self.vars:
            self.vars[id(op.buffer.data)] = self.emit_expr(op.data)

    def _alloc_buffer(self, op: AllocBuffer):
        buf = op.buffer
        if len(buf.shape) != 1:
            raise ValueError(f"buffer {buf.name} is not flat; run FlattenBuffer first")
        element = buf.dtype
        elem_t = storage_type(element)
        size = buf.shape[0]
        if dtype_info(element).lanes < 0:
            # Scalable vector elements (``float32xvscalex4`` locals): their size is known at
            # run time only; an alloca of the vector type holds them.
            if not isinstance(size, E.IntImm):
                raise ValueError(f"buffer {buf.name} of {element}: a scalable vector buffer "
                                 "needs a constant number of elements")
            here = self.builder.block
            entry_builder = ir.IRBuilder(self._entry)
            first = self._entry.instructions[0] if self._entry.instructions else None
            if first is not None:
                entry_builder.position_before(first)
            ptr = entry_builder.alloca(value_type(element),
                                       size=ir.Constant(I64, max(1, size.value)), name=buf.name)
            self.builder.position_at_end(here)
            self.vars[id(buf.data)] = ptr
            return
        lanes = dtype_info(element).lanes
        # Elements of a vector dtype (``float32x4``) take ``lanes`` scalars each.
        item_bytes = elem_bytes(element) * max(1, lanes)
        if lanes > 1:
            elem_t = ir.VectorType(storage_type(dtype_info(element).element), lanes)
        if isinstance(size, E.IntImm) and size.value * item_bytes <= STACK_LIMIT_BYTES:
            # Allocate in the entry block so a loop does not grow the stack.
            here = self.builder.block
            entry_builder = ir.IRBuilder(self._entry)
            first = self._entry.instructions[0] if self._entry.instructions else None
            if first is not None:
                entry_builder.position_before(first)
            ptr = entry_builder.alloca(elem_t, size=ir.Constant(I64, max(1, size.value)),
                                      name=buf.name)
            ptr.align = 64
            self.builder.position_at_end(here)
            self.vars[id(buf.data)] = ptr
            return
        nbytes = self.builder.mul(_fit(self.builder, self.emit_expr(size), I64),
                                  ir.Constant(I64, item_bytes))
        alloc = self._declare(_ALLOC_WS, ir.FunctionType(PTR, [I32, I32, I64, I32, I32]))
        ptr = self.builder.call(alloc, [ir.Constant(I32, 1), ir.Constant(I32, 0), nbytes,
                                        ir.Constant(I32, 2), ir.Constant(I32, 32)],
                                name=buf.name)
        with self.builder.if_then(self.builder.icmp_unsigned("==", ptr, ir.Constant(PTR, None)),
                                  likely=False):
            self.builder.ret(ir.Constant(I32, -1))  # the workspace already raised MemoryError
        self.vars[id(buf.data)] = ptr
        self._scopes[-1].append(ptr)

    def _store(self, op: BufferStore):
        if len(op.indices) != 1:
            raise ValueError(
                f"buffer {op.buffer.name} is stored with {len(op.indices)} indices in function "
                f"{self.func_name}; run FlattenBuffer before code generation"
            )
        value = self.emit_expr(op.value)
        index = op.indices[0]
        element = op.buffer.dtype
        if op.predicate is not None:
            elem, lanes = dtype_info(op.value.dtype).element, dtype_info(op.value.dtype).lanes
            self.masked_access(op.buffer, index, elem, lanes, op.predicate, value=value)
            return
        value_lanes = dtype_info(op.value.dtype).lanes
        if not isinstance(index, E.Ramp) and value_lanes != 1 \
                and dtype_info(element).lanes == value_lanes:
            # One element of a buffer of vectors (``float32xvscalex4`` locals).
            ptr = self.vector_element_pointer(op.buffer, index)
            self.builder.store(value, ptr, align=elem_bytes(dtype_info(element).element))
            return
        if isinstance(index, E.Ramp):
            if not (isinstance(index.stride, E.IntImm) and index.stride.value == 1):
                raise ValueError(f"strided vector stores to {op.buffer.name} are not supported")
            ptr = self.element_pointer(op.buffer, index.base)
        else:
            ptr = self.element_pointer(op.buffer, index)
        stored = self.to_storage(value, element)
        if isinstance(stored.type, ir.VectorType):
            # llvmlite checks the pointee type of stores; the cast is a no-op in LLVM IR.
            ptr = self.builder.bitcast(ptr, stored.type.as_pointer())
        self.builder.store(stored, ptr, align=elem_bytes(element))

    def _evaluate(self, op: Evaluate):
        if isinstance(op.value, (E.IntImm, E.FloatImm)):
            return
        self.emit_expr(op.value)

    def _assert(self, op: AssertStmt):
        cond = self.emit_expr(op.condition)
        b = self.builder
        with b.if_then(b.not_(cond), likely=False):
            message = "".join(p.value if isinstance(p, E.StringImm) else str(p)
                              for p in op.message_parts)
            self._raise(op.error_kind.value, message)

    def _return(self, op: Return):
        """``return v``: store ``v`` into the caller's ``TVMFFIAny`` result, free the heap
        workspaces of every enclosing scope, and leave with status 0."""
        if self._ret_slot is None:
            raise ValueError(
                f"function {self.func_name}: a return statement inside a parallel loop cannot "
                "leave the enclosing function"
            )
        b = self.builder
        dtype = self._ret_dtype
        if dtype is not None:
            value = self.cast_value(self.emit_expr(op.value), op.value.dtype, dtype)
            kind = _kind(dtype)
            slot = self._ret_slot
            if kind == "float":
                payload = b.fpext(value, ir.DoubleType()) if value.type != ir.DoubleType() \
                    else value
                type_index = _FFI_FLOAT
            elif kind == "handle":
                payload = value
                type_index = _FFI_OPAQUE_PTR
            elif kind == "bool":
                payload = b.zext(value, I64)
                type_index = _FFI_BOOL
            elif kind == "uint":
                payload = _fit_unsigned(b, value)
                type_index = _FFI_INT
            else:
                payload = value if value.type == I64 else b.sext(value, I64)
                type_index = _FFI_INT
            b.store(ir.Constant(I32, type_index), slot)
            b.store(ir.Constant(I32, 0), b.gep(slot, [ir.Constant(I64, 4)], source_etype=I8))
            b.store(payload, b.gep(slot, [ir.Constant(I64, 8)], source_etype=I8))
        if any(self._scopes):
            free = self._declare(_FREE_WS, ir.FunctionType(I32, [I32, I32, PTR]))
            for scope in reversed(self._scopes):
                for ptr in reversed(scope):
                    b.call(free, [ir.Constant(I32, 1), ir.Constant(I32, 0), ptr])
        b.ret(ir.Constant(I32, 0))

    def _raise(self, kind: str, message: str):
        fn = self._declare(_ERROR_SET, ir.FunctionType(ir.VoidType(), [PTR, PTR]))
        self.builder.call(fn, [self.string_constant(kind), self.string_constant(message)])
        self.builder.ret(ir.Constant(I32, -1))

    # --- calls ----------------------------------------------------------------------------------
    def _call(self, op: E.Call):
        if not isinstance(op.op, Op):
            raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong argument type
                f"call of {op.op} in function {self.func_name}: calls of other PrimFuncs are "
                "not supported by the llvm code generator yet"
            )
        name = op.op.name
        handler = _CALL_HANDLERS.get(name)
        if handler is not None:
            return handler(self, op)
        rule = op.op.get_attr(intrin.ATTR_KEY)
        if rule is not None:
            lowered = rule(op)
            return self.emit_expr(lowered)
        raise ValueError(
            f"intrinsic {name} in function {self.func_name} has no llvm lowering rule "
            f"(add one to src/tvm/backend/llvm/intrin.py)"
        )

    def call_intrinsic(self, name: str, args, dtype: str):
        """Call the overloaded LLVM intrinsic ``name`` at the type of ``dtype``."""
        ty = value_type(dtype)
        fn = declare_intrinsic(self.module, name, ty, [a.type for a in args])
        return self.builder.call(fn, list(args))

    def _call_llvm_intrin(self, op):
        name = op.args[0].value
        args = [self.emit_expr(a) for a in op.args[1:]]
        if name == "llvm.exp" and op.dtype.split("x")[0] == "float32" and FAST_EXP:
            return self.fast_exp_f32(args[0])
        if name.startswith(("llvm.x86.", "llvm.aarch64.", "llvm.arm.", "llvm.riscv.")):
            # Target intrinsics are declared by the name given: in full (overloads spelled
            # out), or without the overload suffixes, which LLVM's parser adds from the
            # argument types (``llvm.riscv.vle`` -> ``llvm.riscv.vle.nxv4f32.p0.i64``); the
            # generic path would append only the result type's suffix.
            fn = self.module.globals.get(name) or ir.Function(
                self.module, ir.FunctionType(value_type(op.dtype), [a.type for a in args]), name)
            return self.builder.call(fn, args)
        if name in ("llvm.fma", "llvm.fmuladd") or all(a.type == args[0].type for a in args):
            return self.call_intrinsic(name, args, op.dtype)
        ty = value_type(op.dtype)
        fn = declare_intrinsic(self.module, name, ty, [a.type for a in args])
        return self.builder.call(fn, args)

    def _call_extern(self, op):
        name = op.args[0].value
        args = [self.emit_expr(a) for a in op.args[1:]]
        ret_t = ir.VoidType() if op.dtype == "void" else value_type(op.dtype)
        ftype = ir.FunctionType(ret_t, [a.type for a in args])
        fn = self._declare(name, ftype)
        if "x" in op.dtype.replace("0x", ""):
            raise ValueError(f"vector calls of the C function {name} are not supported")
        result = self.builder.call(fn, args)
        return result if op.dtype != "void" else ir.Constant(I32, 0)

    def _if_then_else(self, op):
        # Lazy evaluation: only the taken side runs (it may load out of bounds otherwise).
        cond = self.emit_expr(op.args[0])
        b = self.builder
        fn = b.function
        then_bb = fn.append_basic_block("ite.then")
        else_bb = fn.append_basic_block("ite.else")
        done = fn.append_basic_block("ite.end")
        b.cbranch(cond, then_bb, else_bb)
        self.builder.position_at_end(then_bb)
        t = self.emit_expr(op.args[1])
        then_end = self.builder.block
        self.builder.branch(done)
        self.builder.position_at_end(else_bb)
        f = self.emit_expr(op.args[2])
        else_end = self.builder.block
        self.builder.branch(done)
        self.builder.position_at_end(done)
        phi = self.builder.phi(t.type)
        phi.add_incoming(t, then_end)
        phi.add_incoming(f, else_end)
        return phi

    def _likely(self, op):
        return self.emit_expr(op.args[0])

    def _reinterpret(self, op):
        value = self.emit_expr(op.args[0])
        src, dst = op.args[0].dtype, op.dtype
        raw = self.to_storage(value, src) if src in ("bfloat16", "bool") else value
        out_t = storage_type(dst) if dst in ("bfloat16", "bool") else value_type(dst)
        cast = self.builder.bitcast(raw, out_t)
        return self.from_storage(cast, dst) if dst in ("bfloat16", "bool") else cast

    def _isnan(self, op):
        value = self.emit_expr(op.args[0])
        return self.builder.fcmp_unordered("uno", value, value)

    def _ret(self, op):
        raise ValueError(f"T.ret in function {self.func_name}: return values are not "
                         "supported by the llvm code generator yet")

    # --- helpers --------------------------------------------------------------------------------
    def _declare(self, name, ftype):
        existing = self.module.globals.get(name)
        return existing if existing is not None else ir.Function(self.module, ftype, name)

    def string_constant(self, text: str):
        """A pointer to a NUL-terminated constant string (named by content hash)."""
        existing = self._strings.get(text)
        if existing is not None:
            return existing
        data = bytearray(text.encode("utf-8") + b"\0")
        digest = hashlib.sha256(data).hexdigest()[:16]
        var = ir.GlobalVariable(self.module, ir.ArrayType(I8, len(data)), f".str.cg.{digest}")
        var.global_constant = True
        var.linkage = "private"
        var.initializer = ir.Constant(ir.ArrayType(I8, len(data)), data)
        self._strings[text] = var
        return var


def _describe(entry) -> str:
    kind, _, source = entry
    if kind == "scalar":
        return f"argument {source}"
    if kind in ("shape", "stride"):
        return f"{source[0]}.{kind}{'s' if kind == 'stride' else ''}[{source[1]}]"
    return f"{source}.data"


def _used_var_ids(stmt) -> set:
    """Ids of the variables (and buffer data pointers) a statement refers to."""
    used = set()

    def visit(node):
        if isinstance(node, E.Var):
            used.add(id(node))
        elif isinstance(node, (BufferLoad, BufferStore)):
            used.add(id(node.buffer.data))

    post_order_visit(stmt, visit)
    return used


def _fit(builder, value, ty):
    """Sign-extend or truncate an integer value to ``ty``."""
    if value.type == ty:
        return value
    if value.type.width < ty.width:
        return builder.sext(value, ty)
    return builder.trunc(value, ty)


_STMT_METHODS = {
    SeqStmt: CodeGenLLVM._seq,
    For: CodeGenLLVM._for,
    While: CodeGenLLVM._while,
    Break: CodeGenLLVM._break,
    Continue: CodeGenLLVM._continue,
    IfThenElse: CodeGenLLVM._if,
    Bind: CodeGenLLVM._bind,
    AttrStmt: CodeGenLLVM._attr,
    DeclBuffer: CodeGenLLVM._decl_buffer,
    AllocBuffer: CodeGenLLVM._alloc_buffer,
    BufferStore: CodeGenLLVM._store,
    Evaluate: CodeGenLLVM._evaluate,
    AssertStmt: CodeGenLLVM._assert,
    Return: CodeGenLLVM._return,
}

_CALL_HANDLERS = {
    "tirx.call_llvm_pure_intrin": CodeGenLLVM._call_llvm_intrin,
    "tirx.call_llvm_intrin": CodeGenLLVM._call_llvm_intrin,
    "tirx.call_pure_extern": CodeGenLLVM._call_extern,
    "tirx.call_extern": CodeGenLLVM._call_extern,
    "tirx.if_then_else": CodeGenLLVM._if_then_else,
    "tirx.likely": CodeGenLLVM._likely,
    "tirx.reinterpret": CodeGenLLVM._reinterpret,
    "tirx.isnan": CodeGenLLVM._isnan,
    "tirx.ret": CodeGenLLVM._ret,
    "tirx.vscale": emit_vscale,
    "tirx.tvm_access_ptr": emit_access_ptr,
    "tirx.get_active_lane_mask": emit_active_lane_mask,
    "tirx.tvm_call_packed": emit_call_packed,
    "tirx.tvm_stack_alloca": emit_stack_alloca,  # TMA descriptors (T.TensorMap) on the host
}

register_expr_method(E.Call, CodeGenLLVM._call)


class _StoreCounter(StmtVisitor):
    """Counts element stores of a statement, loops multiplied out (inf: a symbolic extent);
    parallel loops are not entered (their bodies become functions of their own)."""

    def __init__(self):
        self.scale, self.count = 1, 0

    def visit_for_(self, op: For):
        if op.kind == ForKind.PARALLEL:
            return
        outer = self.scale
        extent = op.extent.value if isinstance(op.extent, E.IntImm) else float("inf")
        self.scale = outer * extent
        self.visit_stmt(op.body)
        self.scale = outer

    def visit_while_(self, op):
        self.count = float("inf")

    def visit_buffer_store_(self, op):
        lanes = _lanes(op.value.dtype)
        # A scalable vector (negative lanes: k * vscale) stores a run-time number of elements.
        # A predicated store is never left unoptimized: LLVM 22's fast instruction selection
        # aborts on the AVX-512 mask registers of llvm.masked.store ("Cannot emit physreg
        # copy instruction").
        unknown = lanes < 0 or op.predicate is not None or _has_predicated_load(op.value)
        self.count += self.scale * (float("inf") if unknown else max(1, lanes))


#: ``TVMFFIAny.type_index`` values of the scalars a function returns (tvm/ffi/c_api.h).
_FFI_INT, _FFI_BOOL, _FFI_FLOAT, _FFI_OPAQUE_PTR = 1, 2, 3, 4


def _has_predicated_load(expr) -> bool:
    found = []
    post_order_visit(expr, lambda n: found.append(n)
                     if isinstance(n, BufferLoad) and n.predicate is not None else None)
    return bool(found)


def _has_return(body) -> bool:
    found = []
    post_order_visit(body, lambda n: found.append(n) if isinstance(n, Return) else None)
    return bool(found)


def _return_dtype(func, name: str):
    """The scalar dtype ``func`` returns, or None for a function without a result."""
    ret = func.ret_type
    dtype = getattr(ret, "dtype", None)
    if ret is None or dtype is None or dtype == "void":
        return None
    if _lanes(dtype) != 1:
        raise ValueError(
            f"function {name} returns the vector type {dtype}; only scalar results can be "
            "returned through the packed API"
        )
    return str(dtype)


def _fit_unsigned(builder, value):
    return value if value.type == I64 else builder.zext(value, I64)


_RENDER_OPS = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%"}


def _render(expr, sources) -> str:
    """``expr`` with each variable written as the argument it comes from (``B.shape[0]``)
    and plain integer constants, for messages: ``B.shape[0] + 1``."""
    if isinstance(expr, E.Var):
        return sources.get(id(expr), expr.name)
    if isinstance(expr, E.IntImm):
        return str(expr.value)
    symbol = _RENDER_OPS.get(type(expr))
    if symbol is not None:
        a, b = _render(expr.a, sources), _render(expr.b, sources)
        if isinstance(expr.b, tuple(_RENDER_OPS)):
            b = f"({b})"
        return f"{a} {symbol} {b}"
    return str(expr)


def _is_zero(value) -> bool:
    return isinstance(value, ir.Constant) and value.constant == 0


def _lanes(dtype: str) -> int:
    """Lanes of ``dtype``: 1 for scalars, ``-k`` for ``k * vscale`` (``float32xvscalex4``)."""
    if "x" not in dtype or dtype == "handle":
        return 1
    return dtype_info(dtype).lanes


def _vector_map(body) -> bool:
    """Whether a loop body stores vectors and reads none of the buffers it stores to."""
    stored, loaded, vector = set(), set(), [False]

    def visit(node):
        if isinstance(node, BufferStore):
            stored.add(id(node.buffer.data))
            vector[0] |= _lanes(str(node.value.dtype)) > 1
        elif isinstance(node, BufferLoad):
            loaded.add(id(node.buffer.data))

    post_order_visit(body, visit)
    return vector[0] and not (stored & loaded)


def _serial_stores(stmt) -> float:
    """How many elements ``stmt`` stores outside parallel loops (see :class:`_StoreCounter`)."""
    counter = _StoreCounter()
    counter.visit_stmt(stmt)
    return counter.count


def codegen_module(mod, module_name: str = "pytvm", split_wrappers: bool = False):
    """Emit every PrimFunc of a lowered ``IRModule`` (named by ``global_symbol`` or its
    GlobalVar) into one llvmlite module.

    ``split_wrappers``: return ``(kernels, wrappers)``, two modules to compile separately and
    load together: the packed wrappers (argument unpacking and checks, then one call) in the
    second, which ``tvm.compile`` has LLVM compile at level 0: instruction selection at level
    0 is 2-3 times cheaper, even for functions that are ``optnone`` already.
    """
    cg = CodeGenLLVM(module_name, split_wrappers)
    exported_symbols(mod)
    for gvar, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            cg.add_function(func, str(func.get_attr("global_symbol") or gvar.name_hint))
    return (cg.module, cg.wrappers) if split_wrappers else cg.module
