"""Expression emission of the tirx -> LLVM code generator (see ``codegen.py``).

Value representation: a tirx value of dtype ``d`` is an LLVM value of ``value_type(d)``:
``iN`` for ints/uints, ``i1`` for bool, ``half``/``float``/``double`` for floats, and
``float`` for ``bfloat16`` (bfloat16 is a storage type: loads widen to float32, stores round
to nearest even). ``xL`` dtypes are LLVM vectors of ``L`` lanes.
"""

from __future__ import annotations

from ...runtime.data_type import dtype_info
from ...tirx import expr as E
from ...tirx.stmt import BufferLoad
from . import codegen_fp8 as fp8
from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)
from .codegen_fp8 import FP8_FORMATS

I1, I8, I16, I32, I64 = (ir.IntType(b) for b in (1, 8, 16, 32, 64))
F32 = ir.FloatType()
PTR = ir.PointerType()
_FLOATS = {16: ir.HalfType(), 32: F32, 64: ir.DoubleType()}


def _split(dtype: str):
    """``(element dtype, lanes)`` of a dtype string such as ``"float32x8"``."""
    info = dtype_info(dtype)
    return info.element, info.lanes


def scalar_type(element: str) -> ir.Type:
    """The LLVM type computing values of a scalar dtype."""
    info = dtype_info(element)
    if element == "bool":
        return I1
    if element == "bfloat16" or element in FP8_FORMATS:
        return F32  # storage-only formats compute in float32
    if info.kind == "float":
        if info.bits not in _FLOATS:
            raise ValueError(f"the llvm backend cannot compute with dtype {element}")
        return _FLOATS[info.bits]
    if info.kind in ("int", "uint"):
        return ir.IntType(info.bits)
    if element == "handle":
        return PTR
    raise ValueError(f"the llvm backend cannot compute with dtype {element}")


def value_type(dtype: str) -> ir.Type:
    """The LLVM type of values of ``dtype`` (vectors for ``xL`` dtypes)."""
    if dtype == "handle":
        return PTR
    element, lanes = _split(dtype)
    elem = scalar_type(element)
    return elem if lanes == 1 else vector_type(elem, lanes)


def vector_type(elem: ir.Type, lanes: int) -> ir.VectorType:
    """``<lanes x elem>``; negative ``lanes`` (``-k``: ``k * vscale``, the lanes of a dtype
    such as ``float32xvscalex4``) give the scalable ``<vscale x k x elem>``."""
    return ir.ScalableVectorType(elem, -lanes) if lanes < 0 else ir.VectorType(elem, lanes)


def storage_type(element: str) -> ir.Type:
    """The LLVM type of one element in memory (bool: i8, bfloat16: i16)."""
    if element == "bool":
        return I8
    if element == "bfloat16":
        return I16
    if element in FP8_FORMATS:
        return I8
    return scalar_type(element)


def _kind(dtype: str) -> str:
    if dtype == "handle":
        return "handle"
    element = _split(dtype)[0]
    return "bool" if element == "bool" else dtype_info(element).kind


def _is_float(dtype):
    return _kind(dtype) == "float"


def _is_signed(dtype):
    return _kind(dtype) == "int"


class ExprEmitter:
    """Mixin of :class:`CodeGenLLVM`: ``emit_expr(expr) -> ir.Value``.

    Needs ``self.builder``, ``self.vars`` (Var -> value), ``self.module`` and the call
    emission of ``codegen_call.CallEmitter``.
    """

    def emit_expr(self, expr):
        """Emit the LLVM instructions computing ``expr`` at the builder's position.

        Parameters
        ----------
        expr : PrimExpr

        Returns
        -------
        llvmlite.ir.Value
            The value of the expression.

        Raises
        ------
        ValueError
            For an expression kind the LLVM code generator does not support.
        """
        method = _EXPR_METHODS.get(type(expr))
        if method is None:
            for cls in type(expr).__mro__:
                method = _EXPR_METHODS.get(cls)
                if method is not None:
                    _EXPR_METHODS[type(expr)] = method
                    break
            else:
                raise ValueError(
                    f"the llvm code generator does not support {type(expr).__name__} "
                    f"expressions yet (in function {self.func_name})"
                )
        return method(self, expr)

    # --- leaves ---------------------------------------------------------------------------------
    def _var(self, op):
        value = self.vars.get(id(op))
        if value is None:
            raise ValueError(
                f"variable {op.name} is used in function {self.func_name} but not defined "
                "(free variable after lowering)"
            )
        return value

    def _int_imm(self, op):
        ty = value_type(op.dtype)
        return ir.Constant(ty, int(op.value) & ((1 << ty.width) - 1) if ty.width > 1 else
                           int(bool(op.value)))

    def _float_imm(self, op):
        return ir.Constant(value_type(op.dtype), float(op.value))

    def _string_imm(self, op):
        return self.string_constant(op.value)

    # --- casts --------------------------------------------------------------------------------
    def _cast(self, op):
        return self.cast_value(self.emit_expr(op.value), op.value.dtype, op.dtype)

    def cast_value(self, value, src: str, dst: str):
        """Convert ``value`` of dtype ``src`` to ``dst`` (C semantics; float->int truncates)."""
        b = self.builder
        src_t, dst_t = value_type(src), value_type(dst)
        sk, dk = _kind(src), _kind(dst)
        if dk == "bool":
            zero = ir.Constant(src_t, None)
            return b.fcmp_unordered("!=", value, zero) if sk == "float" else b.icmp_unsigned(
                "!=", value, zero)
        dst_elem = _split(dst)[0]
        if dk == "float" and (dst_elem == "bfloat16" or dst_elem in FP8_FORMATS) and (
                _split(src)[0] != dst_elem):
            # Storage-only formats: round now, so the value is the one a store would keep.
            wide = self.cast_value(value, src, "float32" if "x" not in dst else
                                   f"float32x{dtype_info(dst).lanes}")
            return self.from_storage(self.to_storage(wide, dst_elem), dst_elem)
        if src_t == dst_t:
            return value
        if sk == "float" and dk == "float":
            return b.fpext(value, dst_t) if _width(src_t) < _width(dst_t) else b.fptrunc(
                value, dst_t)
        if sk == "float":
            return b.fptosi(value, dst_t) if dk == "int" else b.fptoui(value, dst_t)
        if dk == "float":
            return b.sitofp(value, dst_t) if sk == "int" else b.uitofp(value, dst_t)
        if dk == "handle" or sk == "handle":
            raise ValueError(f"cannot cast {src} to {dst} in function {self.func_name}")
        sw, dw = _width(src_t), _width(dst_t)
        if sw > dw:
            return b.trunc(value, dst_t)
        return b.sext(value, dst_t) if sk == "int" else b.zext(value, dst_t)

    # --- arithmetic ---------------------------------------------------------------------------
    def _binary(self, op):
        a, b = self.emit_expr(op.a), self.emit_expr(op.b)
        cls = type(op)
        if cls not in _REUSED_OPS or op.dtype not in _REUSED_DTYPES:
            return self.arith(cls, a, b, op.a.dtype)
        return self.reuse((cls, _operand_key(a), _operand_key(b)), (a, b),
                          lambda: self.arith(cls, a, b, op.a.dtype))

    def reuse(self, key, operands, make):
        """The value ``make()`` computed for ``key`` earlier in this basic block, else a new one.

        For pure values only (index arithmetic, splats, element addresses): the flat indices
        of an unrolled tile repeat the same products (``k * 256``, ``i0 * 3136``), splats and
        addresses for every row; one instruction per block serves them all (about a third of
        a training step's kernel IR was such repeats). ``operands`` are kept with the cached
        value, so the ids in ``key`` stay theirs while it is cached.
        """
        block = self.builder.block
        if getattr(self, "_reuse_block", None) is not block:
            self._reuse_block, self._reused = block, {}
        hit = self._reused.get(key)
        if hit is None:
            hit = self._reused[key] = (make(), operands)
        return hit[0]

    def arith(self, cls, a, b, dtype):
        """Emit the binary operation ``cls`` (``E.Add``, ``E.FloorDiv``, ``E.Min``...) on ``a`` and
        ``b`` for ``dtype``: float operations (fast-math where exact), or signed/unsigned integer
        ones by the dtype's signedness.

        Returns
        -------
        llvmlite.ir.Value

        Raises
        ------
        ValueError
            When the operation is not defined on ``dtype`` (a bitwise operation on floats).
        """
        bld = self.builder
        if _is_float(dtype):
            if cls is E.Add:
                return _fast(bld.fadd(a, b))
            if cls is E.Sub:
                return _fast(bld.fsub(a, b))
            if cls is E.Mul:
                return _fast(bld.fmul(a, b))
            if cls is E.Div:
                return bld.fdiv(a, b)
            if cls is E.Mod:
                return bld.frem(a, b)
            if cls is E.FloorDiv:
                return self.call_intrinsic("llvm.floor", [bld.fdiv(a, b)], dtype)
            if cls is E.FloorMod:
                q = self.call_intrinsic("llvm.floor", [bld.fdiv(a, b)], dtype)
                return bld.fsub(a, bld.fmul(q, b))
            # IEEE 754-2019 minimumNumber/maximumNumber: a NaN operand is ignored (as with
            # minnum/maxnum). Not minnum/maxnum: LLVM 22's loop vectorizer
            # aborts an assertions build of LLVM (llvmlite's) on some minnum/maxnum
            # reductions (softmax row maxima of 30, 31, 44-47, 72-79, ... floats on znver4:
            # "VPlan cost model and legacy cost model disagreed"); these vectorize as well.
            if cls is E.Min:
                return self.call_intrinsic("llvm.minimumnum", [a, b], dtype)
            if cls is E.Max:
                return self.call_intrinsic("llvm.maximumnum", [a, b], dtype)
            raise ValueError(f"operator {cls.__name__} is not defined on float dtype {dtype}")
        signed = _is_signed(dtype)
        if cls is E.Add:
            return bld.add(a, b)
        if cls is E.Sub:
            return bld.sub(a, b)
        if cls is E.Mul:
            return bld.mul(a, b)
        if cls is E.Div:
            return bld.sdiv(a, b) if signed else bld.udiv(a, b)
        if cls is E.Mod:
            return bld.srem(a, b) if signed else bld.urem(a, b)
        if cls is E.FloorDiv:
            return self._floordiv(a, b) if signed else bld.udiv(a, b)
        if cls is E.FloorMod:
            return self._floormod(a, b) if signed else bld.urem(a, b)
        if cls is E.Min:
            cond = bld.icmp_signed("<", a, b) if signed else bld.icmp_unsigned("<", a, b)
            return bld.select(cond, a, b)
        if cls is E.Max:
            cond = bld.icmp_signed(">", a, b) if signed else bld.icmp_unsigned(">", a, b)
            return bld.select(cond, a, b)
        if cls is E.BitwiseAnd:
            return bld.and_(a, b)
        if cls is E.BitwiseOr:
            return bld.or_(a, b)
        if cls is E.BitwiseXor:
            return bld.xor(a, b)
        if cls is E.LShift:
            return bld.shl(a, b)
        if cls is E.RShift:
            return bld.ashr(a, b) if signed else bld.lshr(a, b)
        raise ValueError(f"operator {cls.__name__} is not supported on dtype {dtype}")

    def _floordiv(self, a, b):
        # Python semantics: round toward -inf. q = a / b (trunc); subtract 1 when the
        # remainder is nonzero and its sign differs from b's.
        bld = self.builder
        q = bld.sdiv(a, b)
        r = bld.srem(a, b)
        zero = ir.Constant(a.type, 0)
        adjust = bld.and_(bld.icmp_signed("!=", r, zero),
                          bld.icmp_signed("!=", bld.icmp_signed("<", r, zero),
                                          bld.icmp_signed("<", b, zero)))
        return bld.sub(q, bld.zext(adjust, a.type))

    def _floormod(self, a, b):
        bld = self.builder
        r = bld.srem(a, b)
        zero = ir.Constant(a.type, 0)
        adjust = bld.and_(bld.icmp_signed("!=", r, zero),
                          bld.icmp_signed("!=", bld.icmp_signed("<", r, zero),
                                          bld.icmp_signed("<", b, zero)))
        return bld.select(adjust, bld.add(r, b), r)

    def _compare(self, op):
        a, b = self.emit_expr(op.a), self.emit_expr(op.b)
        sym = _CMP_SYMBOLS[type(op)]
        dtype = op.a.dtype
        if _is_float(dtype):
            # NaN compares false except with !=, as in C.
            if sym == "!=":
                return self.builder.fcmp_unordered(sym, a, b)
            return self.builder.fcmp_ordered(sym, a, b)
        if _is_signed(dtype):
            return self.builder.icmp_signed(sym, a, b)
        return self.builder.icmp_unsigned(sym, a, b)

    def _and(self, op):
        return self.builder.and_(self.emit_expr(op.a), self.emit_expr(op.b))

    def _or(self, op):
        return self.builder.or_(self.emit_expr(op.a), self.emit_expr(op.b))

    def _not(self, op):
        return self.builder.not_(self.emit_expr(op.a))

    def _bitwise_not(self, op):
        return self.builder.not_(self.emit_expr(op.a))

    def _select(self, op):
        cond = self.emit_expr(op.condition)
        t, f = self.emit_expr(op.true_value), self.emit_expr(op.false_value)
        return self.builder.select(cond, t, f)

    def _let(self, op):
        self.vars[id(op.var)] = self.emit_expr(op.value)
        return self.emit_expr(op.body)

    # --- vectors ------------------------------------------------------------------------------
    def _broadcast(self, op):
        value = self.emit_expr(op.value)
        return self.splat(value, dtype_info(op.dtype).lanes)

    def splat(self, value, lanes):
        """A vector of ``lanes`` copies of scalar ``value`` (reused within the current block)."""
        return self.reuse(("splat", _operand_key(value), lanes), value,
                          lambda: self._new_splat(value, lanes))

    def _new_splat(self, value, lanes):
        undef = undef_vector(vector_type(value.type, lanes))
        one = self.builder.insert_element(undef, value, ir.Constant(I32, 0))
        mask = ir.Constant(vector_type(I32, lanes), 0)  # one element object, not `lanes`
        splat = self.builder.shuffle_vector(one, undef, mask)  # checks the mask's elements
        mask.constant = None  # then printed as one `zeroinitializer`
        return splat

    def _ramp(self, op):
        lanes = dtype_info(op.dtype).lanes
        base = self.splat(self.emit_expr(op.base), lanes)
        stride = self.splat(self.emit_expr(op.stride), lanes)
        elem = value_type(op.base.dtype)
        if lanes < 0:
            # Scalable: the lane indices 0, 1, ... come from llvm.stepvector.
            vec_t = vector_type(elem, lanes)
            name = f"llvm.stepvector.nxv{-lanes}i{elem.width}"
            fn = self.module.globals.get(name) or ir.Function(
                self.module, ir.FunctionType(vec_t, []), name)
            iota = self.builder.call(fn, [])
            return self.builder.add(base, self.builder.mul(stride, iota))
        iota = ir.Constant(ir.VectorType(elem, lanes), list(range(lanes)))
        return self.builder.add(base, self.builder.mul(stride, iota))

    # --- memory -------------------------------------------------------------------------------
    def element_pointer(self, buffer, index):
        """``&buffer[index]`` for a flat buffer and a scalar index expression."""
        base = self._var(buffer.data)
        value = self.emit_expr(index)
        elem_t = storage_type(buffer.dtype.split("x")[0] if "x" in buffer.dtype else buffer.dtype)

        def make():
            offset = self.reuse(("i64", _operand_key(value)), value,
                                lambda: self.cast_value(value, index.dtype, "int64"))
            return self.builder.gep(base, [offset], source_etype=elem_t)

        return self.reuse(("gep", id(base), _operand_key(value), str(elem_t)), (base, value),
                          make)

    def _buffer_load(self, op: BufferLoad):
        if len(op.indices) != 1:
            raise ValueError(
                f"buffer {op.buffer.name} is accessed with {len(op.indices)} indices in function "
                f"{self.func_name}; run FlattenBuffer before code generation"
            )
        index = op.indices[0]
        element, lanes = _split(op.dtype)
        if op.predicate is not None:
            return self.masked_access(op.buffer, index, element, lanes, op.predicate)
        if isinstance(index, E.Ramp):
            if not (isinstance(index.stride, E.IntImm) and index.stride.value == 1):
                return self._gather(op, index, element)
            ptr = self.element_pointer(op.buffer, index.base)
            vec_t = vector_type(storage_type(element), lanes)
            raw = self.builder.load(ptr, typ=vec_t, align=elem_bytes(element))
            return self.from_storage(raw, element)
        if lanes != 1 and dtype_info(op.buffer.dtype).lanes == lanes:
            # One element of a buffer of vectors (``float32xvscalex4`` locals).
            ptr = self.vector_element_pointer(op.buffer, index)
            return self.builder.load(ptr, typ=value_type(op.dtype), align=elem_bytes(element))
        ptr = self.element_pointer(op.buffer, index)
        raw = self.builder.load(ptr, typ=storage_type(element), align=elem_bytes(element))
        return self.from_storage(raw, element)

    def vector_element_pointer(self, buffer, index):
        """``&buffer[index]`` for a buffer whose elements are vectors (index in vectors)."""
        if dtype_info(buffer.dtype).element in ("bool", "bfloat16"):
            raise ValueError(f"buffer {buffer.name} of {buffer.dtype}: vector elements of this "
                             "dtype are not supported")
        offset = self.cast_value(self.emit_expr(index), index.dtype, "int64")
        return self.builder.gep(self._var(buffer.data), [offset],
                                source_etype=value_type(buffer.dtype))

    def masked_access(self, buffer, index, element, lanes, predicate, value=None):
        """``llvm.masked.load`` (``value`` None) or ``llvm.masked.store`` of a contiguous
        vector access whose lanes ``predicate`` (an ``i1`` vector) enables."""
        if not (isinstance(index, E.Ramp) and isinstance(index.stride, E.IntImm)
                and index.stride.value == 1):
            raise ValueError(
                f"predicated access of {buffer.name} in function {self.func_name} with index "
                f"{index}: only contiguous (stride-1 Ramp) predicated accesses are supported"
            )
        if element in ("bool", "bfloat16") or element.startswith("float8"):
            raise ValueError(f"predicated access of {buffer.name}: dtype {element} is not "
                             "supported")
        ptr = self.element_pointer(buffer, index.base)
        mask = self.emit_expr(predicate)
        vec_t = vector_type(scalar_type(element), lanes)
        align = ir.Constant(I32, elem_bytes(element))
        suffix = f"{_type_suffix(vec_t)}.p0"
        if value is None:
            name = f"llvm.masked.load.{suffix}"
            fn = self.module.globals.get(name) or ir.Function(
                self.module, ir.FunctionType(vec_t, [PTR, I32, mask.type, vec_t]), name)
            return self.builder.call(fn, [ptr, align, mask, undef_vector(vec_t)])
        name = f"llvm.masked.store.{suffix}"
        fn = self.module.globals.get(name) or ir.Function(
            self.module, ir.FunctionType(ir.VoidType(), [vec_t, PTR, I32, mask.type]), name)
        return self.builder.call(fn, [value, ptr, align, mask])

    def _gather(self, op, index, element):
        # A strided vector load: scalar loads assembled into a vector.
        lanes = dtype_info(index.dtype).lanes
        if lanes < 0:
            raise ValueError(
                f"strided load of {op.buffer.name} with a scalable number of lanes in function "
                f"{self.func_name}: only contiguous scalable vector accesses are supported"
            )
        result = undef_vector(ir.VectorType(scalar_type(element), lanes))
        for lane in range(lanes):
            idx = index.base + index.stride * lane
            ptr = self.element_pointer(op.buffer, idx)
            raw = self.builder.load(ptr, typ=storage_type(element), align=elem_bytes(element))
            result = self.builder.insert_element(result, self.from_storage(raw, element),
                                                 ir.Constant(I32, lane))
        return result

    def fast_exp_f32(self, x):
        """``exp`` of float32 values (scalar or vector) as inline arithmetic that vectorizes.

        ``llvm.exp`` on x86 becomes one scalar ``expf`` call per lane. This is the classic
        range reduction ``x = n ln2 + r`` (``|r| <= ln2 / 2``, ln2 split in two parts) and a
        degree-6 polynomial for ``exp(r)``, scaled by ``2^n`` built from exponent bits (in two
        halves, so results near the float range limits stay exact). Max error about 2 ulp
        over the float range; NaN stays NaN, ``exp(x)`` is ``inf`` above 88.72 and 0 below
        -103.97 (denormal results in between, computed at their cost).
        """
        b = self.builder
        ty = x.type
        i32 = _like(ty, I32)

        def c(v):
            return _const_like(ty, F32, v)

        def fmul(p, q):
            return _fast(b.fmul(p, q))

        def fadd(p, q):
            return _fast(b.fadd(p, q))

        clamped = self.call_intrinsic_typed("llvm.minnum", [x, c(88.72283)], ty)
        # Below -103.97 (a masked score's -inf) the result is 0 (the select at the end): the
        # lanes compute exp(0) meanwhile, not a denormal 2^-150, whose multiplies take a
        # microcode assist each (6x the time of a causal softmax's exp).
        clamped = b.select(b.fcmp_ordered("<", x, c(-103.97208)), c(0.0), clamped)
        n = self.call_intrinsic_typed("llvm.rint", [fmul(clamped, c(1.44269504088896341))], ty)
        r = b.fsub(clamped, b.fmul(n, c(0.693359375)))
        r = b.fsub(r, b.fmul(n, c(-2.12194440e-4)))
        poly = c(1.9875691500e-4)
        for coef in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                     5.0000001201e-1):
            poly = fadd(fmul(poly, r), c(coef))
        y = fadd(fadd(fmul(fmul(poly, r), r), r), c(1.0))
        ni = b.fptosi(n, i32)
        half = b.ashr(ni, _const_like(ty, I32, 1))
        rest = b.sub(ni, half)

        def pow2(e):
            bits = b.shl(b.add(e, _const_like(ty, I32, 127)), _const_like(ty, I32, 23))
            return b.bitcast(bits, ty)

        result = b.fmul(b.fmul(y, pow2(half)), pow2(rest))
        result = b.select(b.fcmp_ordered(">", x, c(88.72283)), c(float("inf")), result)
        result = b.select(b.fcmp_ordered("<", x, c(-103.97208)), c(0.0), result)
        return b.select(b.fcmp_unordered("uno", x, x), x, result)

    def call_intrinsic_typed(self, name, args, ty):
        """Call the LLVM intrinsic ``name`` overloaded on the LLVM type ``ty``."""
        fn = declare_intrinsic(self.module, name, ty, [a.type for a in args])
        return self.builder.call(fn, list(args))

    def from_storage(self, raw, element):
        """A loaded element (or vector of them) as a computed value."""
        b = self.builder
        if element == "bool":
            return b.trunc(raw, _like(raw.type, I1))
        if element == "bfloat16":
            wide = b.shl(b.zext(raw, _like(raw.type, I32)), _const_like(raw.type, I32, 16))
            return b.bitcast(wide, _like(raw.type, F32))
        if element in FP8_FORMATS:
            return fp8.decode(b, self.module, raw, element)
        return raw

    def to_storage(self, value, element):
        """A computed value converted to its in-memory form."""
        b = self.builder
        if element == "bool":
            return b.zext(value, _like(value.type, I8))
        if element in FP8_FORMATS:
            return fp8.encode(b, self.module, value, element,
                              lambda x: self.call_intrinsic_typed("llvm.rint", [x], x.type))
        if element == "bfloat16":
            bits = b.bitcast(value, _like(value.type, I32))
            # Round to nearest even: add 0x7fff plus the lowest kept bit, then drop 16 bits.
            lsb = b.and_(b.lshr(bits, _const_like(value.type, I32, 16)),
                         _const_like(value.type, I32, 1))
            rounded = b.add(bits, b.add(lsb, _const_like(value.type, I32, 0x7FFF)))
            is_nan = b.fcmp_unordered("uno", value, value)
            quiet = b.or_(bits, _const_like(value.type, I32, 0x400000))
            chosen = b.select(is_nan, quiet, rounded)
            return b.trunc(b.lshr(chosen, _const_like(value.type, I32, 16)),
                           _like(value.type, I16))
        return value


#: Fast-math flags on float add/sub/mul: reassociation lets LLVM vectorize float reductions
#: (sums, dot products) and contraction fuses multiply-adds. Results differ from strict
#: left-to-right evaluation only by rounding (no NaN/Inf assumptions are made).
FAST_MATH_FLAGS = ("reassoc", "contract")


def undef_vector(vec_t: ir.VectorType) -> ir.Constant:
    """``<N x T> undef`` as one word (llvmlite would print N ``T undef`` elements).

    Splats of 64 lanes printed element by element (and their all-zero masks) were ~16% of a
    training step's LLVM IR text and much of llvmlite's printing time.
    """
    const = ir.Constant(vec_t, ir.Undefined)
    const.constant = ir.Undefined
    return const


def _fast(instr):
    instr.flags.extend(FAST_MATH_FLAGS)
    return instr


def _type_suffix(ty) -> str:
    """The overload suffix of an LLVM intrinsic for ``ty``: ``f32``, ``v8f32``, ``i64``..."""
    if isinstance(ty, ir.ScalableVectorType):
        return f"nxv{ty.count}{_type_suffix(ty.element)}"
    if isinstance(ty, ir.VectorType):
        return f"v{ty.count}{_type_suffix(ty.element)}"
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    return {ir.HalfType: "f16", ir.FloatType: "f32", ir.DoubleType: "f64"}[type(ty)]


def declare_intrinsic(module, name: str, ret_ty, arg_types):
    """Get or declare the LLVM intrinsic ``name`` overloaded on ``ret_ty`` (any vector width)."""
    mangled = f"{name}.{_type_suffix(ret_ty)}"
    existing = module.globals.get(mangled)
    if existing is not None:
        return existing
    return ir.Function(module, ir.FunctionType(ret_ty, list(arg_types)), mangled)


def _width(ty):
    if isinstance(ty, ir.VectorType):
        ty = ty.element
    if isinstance(ty, ir.IntType):
        return ty.width
    return {ir.HalfType: 16, ir.FloatType: 32, ir.DoubleType: 64}[type(ty)]


def _like(ty, elem):
    return ir.VectorType(elem, ty.count) if isinstance(ty, ir.VectorType) else elem


def _const_like(ty, elem, value):
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ir.VectorType(elem, ty.count), [value] * ty.count)
    return ir.Constant(elem, value)


def elem_bytes(element):
    """The size in bytes of one element of the scalar dtype ``element`` (at least 1; bool is 1)."""
    if element == "bool":
        return 1
    return max(1, dtype_info(element).bits // 8)


_CMP_SYMBOLS = {E.EQ: "==", E.NE: "!=", E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">="}

_EXPR_METHODS = {
    E.Var: ExprEmitter._var,
    E.IntImm: ExprEmitter._int_imm,
    E.FloatImm: ExprEmitter._float_imm,
    E.StringImm: ExprEmitter._string_imm,
    E.Cast: ExprEmitter._cast,
    E.Add: ExprEmitter._binary,
    E.Sub: ExprEmitter._binary,
    E.Mul: ExprEmitter._binary,
    E.Div: ExprEmitter._binary,
    E.Mod: ExprEmitter._binary,
    E.FloorDiv: ExprEmitter._binary,
    E.FloorMod: ExprEmitter._binary,
    E.Min: ExprEmitter._binary,
    E.Max: ExprEmitter._binary,
    E.BitwiseAnd: ExprEmitter._binary,
    E.BitwiseOr: ExprEmitter._binary,
    E.BitwiseXor: ExprEmitter._binary,
    E.LShift: ExprEmitter._binary,
    E.RShift: ExprEmitter._binary,
    E.EQ: ExprEmitter._compare,
    E.NE: ExprEmitter._compare,
    E.LT: ExprEmitter._compare,
    E.LE: ExprEmitter._compare,
    E.GT: ExprEmitter._compare,
    E.GE: ExprEmitter._compare,
    E.And: ExprEmitter._and,
    E.Or: ExprEmitter._or,
    E.Not: ExprEmitter._not,
    E.BitwiseNot: ExprEmitter._bitwise_not,
    E.Select: ExprEmitter._select,
    E.Let: ExprEmitter._let,
    E.Broadcast: ExprEmitter._broadcast,
    E.Ramp: ExprEmitter._ramp,
    BufferLoad: ExprEmitter._buffer_load,
}


_REUSED_OPS = frozenset((E.Add, E.Sub, E.Mul))
_REUSED_DTYPES = frozenset(("int32", "int64"))


def _operand_key(value):
    """Identity of an LLVM value for :meth:`ExprEmitter.reuse`."""
    if isinstance(value, ir.Constant):
        # repr, not the value: 0.0 == -0.0 (and NaN != NaN) as dict keys.
        return (str(value.type), repr(value.constant))
    return id(value)


def register_expr_method(cls, method):
    """Add the emission of another expression class (used by the call emitter)."""
    _EXPR_METHODS[cls] = method
