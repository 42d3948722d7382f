"""LLVM IR for the code generators: ``llvmlite.ir``'s builder interface, at a fraction of its cost.

The LLVM backend builds every kernel, packed wrapper and runtime helper through this module,
imported as ``ir``. Types, constants, global variables, metadata and modules are llvmlite's own
(re-exported here). Functions, basic blocks, instructions and :class:`IRBuilder` are written
here, with the same interface and the same text as llvmlite's, byte for byte (so the LLVM
disk-cache keys and every test of generated IR are unchanged); they are subclasses of
llvmlite's classes, so llvmlite's own instructions, builders and modules work with them.

Why: building and printing llvmlite IR was a third of a training step's cold build on the
critical path (mlp64: ~65 ms to build 4,500 instructions, ~45 ms to print them). llvmlite
pays for generality: a name scope object per value, ``str.format`` with type and reference
lookups through several layers, type equality through their printed strings. Here a value's
name and reference are fixed when it is created, types are compared by identity first, and
an instruction prints with one f-string.
"""

from __future__ import annotations

import contextlib
import re
import warnings

try:
    from llvmlite import ir as _ir
except ImportError as _err:  # a dependency of pytvm, but a venv can lose it
    raise ImportError(
        "the LLVM backend (CPU code generation) needs llvmlite, a dependency of pytvm that is "
        f"missing or broken here ({_err}); install it with pip install 'llvmlite>=0.49,<0.51' "
        "or reinstall pytvm-compiler (pip install pytvm-compiler)"
    ) from _err
from llvmlite.ir import (
    ArrayType,
    Constant,
    DoubleType,
    FloatType,
    FunctionType,
    GlobalVariable,
    HalfType,
    IntType,
    LabelType,
    LiteralStructType,
    MDValue,
    MetaDataString,
    Module,
    PointerType,
    Type,
    Undefined,
    Value,
    VectorType,
    VoidType,
)
from llvmlite.ir._utils import DuplicatedNameError
from llvmlite.ir.values import FunctionAttributes

#: The llvmlite minor versions this module was checked against (its tests compare every
#: recipe's text with llvmlite's own). It subclasses llvmlite's private classes, so another
#: version may differ; pyproject.toml bounds the dependency to these.
TESTED_LLVMLITE = ((0, 49), (0, 50))


def untested_llvmlite(version: str) -> str | None:
    """A message when llvmlite ``version`` is not one this module was tested with, else None."""
    parts = tuple(int(p) for p in re.findall(r"\d+", version)[:2])
    if parts in TESTED_LLVMLITE:
        return None
    tested = ", ".join(f"{a}.{b}" for a, b in TESTED_LLVMLITE)
    return (
        f"llvmlite {version} is not a version pytvm's LLVM IR builder (tvm.backend.llvm.irtext) "
        f"was tested with ({tested}); it subclasses llvmlite's private classes, so generated "
        "code may break. Install a tested version: pip install 'llvmlite>=0.49,<0.51'"
    )


_UNTESTED = untested_llvmlite(getattr(__import__("llvmlite"), "__version__", "0"))
if _UNTESTED is not None:
    warnings.warn(_UNTESTED, RuntimeWarning, stacklevel=2)

_LABEL = LabelType()
_I1 = IntType(1)
_I32 = IntType(32)
_SIMPLE_NAME = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*$")
_CMP = {">": "gt", "<": "lt", "==": "eq", "!=": "ne", ">=": "ge", "<=": "le"}
_ICMP_OPS = frozenset(("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle"))
_FCMP_OPS = frozenset(("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                       "uge", "ult", "ule", "une", "uno", "true"))
_FCMP_FLAGS = frozenset(("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast"))
_BOOL_VECTORS: dict = {}


def _same_type(a, b) -> bool:
    return a is b or a == b


class ScalableVectorType(VectorType):
    """``<vscale x N x T>``: ``N * vscale`` elements, ``vscale`` a run-time constant of the
    CPU (AArch64 SVE, RISC-V V); ``count`` is ``N``."""

    def _to_string(self):
        return f"<vscale x {self.count} x {self.element}>"

    def __eq__(self, other):
        return isinstance(other, ScalableVectorType) and self.element == other.element \
            and self.count == other.count

    def __hash__(self):
        return hash((ScalableVectorType, self.count))


def _local_ref(name: str) -> str:
    """``%"name"``, escaped as LLVM's quoted identifiers require."""
    if "\\" in name or '"' in name:
        name = name.replace("\\", "\\5c").replace('"', "\\22")
    return f'%"{name}"'


class _Scope:
    """The local names of one function: llvmlite's ``NameScope`` rules (``""`` becomes ``.1``,
    ``.2``..., a taken name ``x`` becomes ``x.1``...), without its per-call overhead."""

    __slots__ = ("_counters", "_used")

    def __init__(self):
        self._used = {""}
        self._counters = {}

    def register(self, name: str, deduplicate: bool = False) -> str:
        used = self._used
        if name in used:
            if not deduplicate:
                raise DuplicatedNameError(name)
            base, counters = name, self._counters
            while name in used:
                counters[base] = count = counters.get(base, 0) + 1
                name = f"{base}.{count}"
        used.add(name)
        return name


class Function(_ir.Function):
    """``llvmlite.ir.Function`` whose arguments, blocks and instructions are this module's.

    The same attributes as llvmlite's, set directly: its constructor (a name scope object,
    attribute sets for every argument) cost ~27 us a function, and a build declares and
    defines a few hundred.
    """

    def __init__(self, module, ftype, name):
        self.parent = module
        self.type = ftype.as_pointer()
        self._name = module.scope.register(name)  # a global's name is never renamed
        self.linkage = self.storage_class = self.section = self.calling_convention = ""
        self.metadata = {}
        self.ftype = ftype
        self.scope = _Scope()
        self.blocks = []
        self.attributes = FunctionAttributes()
        self.args = tuple([Argument(self, typ) for typ in ftype.args])
        self.return_value = _ReturnValue(self, ftype.return_type)
        module.add_global(self)

    @property
    def function_type(self):
        """The function's ``FunctionType`` (return and argument types)."""
        return self.ftype

    def append_basic_block(self, name=""):
        """Add a new basic block named ``name`` at the end of the function and return it."""
        block = Block(self, name)
        self.blocks.append(block)
        return block

    def insert_basic_block(self, before, name=""):
        """Add a new basic block named ``name`` at index ``before`` and return it."""
        block = Block(self, name)
        self.blocks.insert(before, block)
        return block


class _LazyAttributes:
    """An argument's ``attributes`` (llvmlite's ``ArgumentAttributes``), made on first use."""

    _attributes = None

    @property
    def attributes(self):
        if self._attributes is None:
            self._attributes = _ir.values.ArgumentAttributes()
        return self._attributes

    @attributes.setter
    def attributes(self, value):
        self._attributes = value


class Argument(_LazyAttributes, _ir.Argument):
    """A function argument (``%".1"`` until renamed, e.g. ``arg.name = "x"``)."""

    def __init__(self, parent, typ, name=""):
        self.parent = parent
        self.type = typ
        self._name = name = parent.scope.register(name, True)
        self._ref = _local_ref(name)

    def _set_name(self, name):
        self._name = name = self.parent.scope.register(name, True)
        self._ref = _local_ref(name)

    name = property(lambda self: self._name, _set_name)

    def get_reference(self):
        """The argument as an operand: ``%name`` (quoted when needed)."""
        return self._ref

    def __str__(self):
        if self._attributes is None:
            return f"{self.type} {self._ref}"
        return super().__str__()


class _ReturnValue(_LazyAttributes, _ir.values.ReturnValue):
    def __init__(self, parent, typ):
        self.parent = parent
        self.type = typ
        self._name = parent.scope.register("", True)

    def __str__(self):
        return str(self.type) if self._attributes is None else super().__str__()


class Block(_ir.Block):
    """A basic block of a :class:`Function`."""

    def __init__(self, parent, name=""):
        self.parent = parent
        self.type = _LABEL
        self.scope = parent.scope
        self._name = name = parent.scope.register(name, True)
        self._ref = _local_ref(name)
        self.instructions = []
        self.terminator = None

    def get_reference(self):
        """The block as a branch target: ``%name`` (quoted when needed)."""
        return self._ref

    def descr(self, buf):
        """Append the block's text (its label, then one line per instruction) to list ``buf``."""
        name = self._name
        if not _SIMPLE_NAME.match(name):
            name = '"{}"'.format(name.replace("\\", "\\5c").replace('"', "\\22"))
        buf.append(f"{name}:\n")
        buf += [f"  {instr}\n" for instr in self.instructions]


class Instruction(_ir.Value):
    """One instruction; a subclass's ``_body`` is its text after ``%name = ``."""

    metadata = None
    opname = ""

    def __init__(self, parent, typ, name=""):
        self.parent = parent
        self.type = typ
        self._name = name = parent.scope.register(name, True)
        self._ref = _local_ref(name)

    name = property(lambda self: self._name)
    function = property(lambda self: self.parent.parent)
    module = property(lambda self: self.parent.parent.parent)

    def get_reference(self):
        """The instruction's result as an operand: ``%name`` (quoted when needed)."""
        return self._ref

    def set_metadata(self, name, node):
        """Attach the metadata ``node`` under ``name`` (printed as ``!name !N``)."""
        if self.metadata is None:
            self.metadata = {}
        self.metadata[name] = node

    def _meta(self) -> str:
        if not self.metadata:
            return ""
        return "".join(f", !{k} {v.get_reference()}" for k, v in self.metadata.items())

    def __str__(self):
        body = self._body().rstrip()
        return body if isinstance(self.type, VoidType) else f"{self._ref} = {body}"

    def __repr__(self):
        return f"<irtext.{type(self).__name__} {self._name!r} of type '{self.type}'>"


class _Generic(Instruction):
    """``opname [flags] type a, b`` (binary and unary arithmetic)."""

    def __init__(self, parent, typ, opname, operands, name="", flags=()):
        super().__init__(parent, typ, name)
        self.opname = opname
        self.operands = operands
        self.flags = list(flags)

    def _body(self):
        opname = " ".join([self.opname, *self.flags]) if self.flags else self.opname
        operands = ", ".join([op.get_reference() for op in self.operands])
        return f"{opname} {self.type} {operands}{self._meta()}"


class _Compare(Instruction):
    def __init__(self, parent, opname, op, lhs, rhs, name="", flags=()):
        lt = lhs.type
        if isinstance(lt, VectorType):
            typ = _BOOL_VECTORS.get(lt.count)
            if typ is None:
                typ = _BOOL_VECTORS[lt.count] = VectorType(_I1, lt.count)
        else:
            typ = _I1
        super().__init__(parent, typ, name)
        self.opname, self.op, self.operands, self.flags = opname, op, (lhs, rhs), list(flags)

    def _body(self):
        lhs, rhs = self.operands
        flags = "".join(" " + flag for flag in self.flags)
        return (f"{self.opname}{flags} {self.op} {lhs.type} {lhs.get_reference()}, "
                f"{rhs.get_reference()} {self._meta()}")


class _Cast(Instruction):
    def __init__(self, parent, opname, value, typ, name=""):
        super().__init__(parent, typ, name)
        self.opname, self.operands = opname, (value,)

    def _body(self):
        (value,) = self.operands
        return f"{self.opname} {value.type} {value.get_reference()} to {self.type} {self._meta()}"


class _Select(Instruction):
    opname = "select"

    def __init__(self, parent, cond, lhs, rhs, name="", flags=()):
        if not _same_type(lhs.type, rhs.type):
            raise TypeError(f"select of different types: {lhs.type} and {rhs.type}")
        super().__init__(parent, lhs.type, name)
        self.operands, self.flags = (cond, lhs, rhs), list(flags)

    def _body(self):
        c, a, b = self.operands
        return (f"select {' '.join(self.flags)} {c.type} {c.get_reference()}, {a.type} "
                f"{a.get_reference()}, {b.type} {b.get_reference()} {self._meta()}")


class _Load(Instruction):
    opname = "load"

    def __init__(self, parent, ptr, name="", typ=None, align=None, ordering=None):
        if typ is None:
            if isinstance(ptr, _Alloca):
                typ = ptr.allocated_type
            elif not ptr.type.is_opaque:
                typ = ptr.type.pointee
            else:
                raise ValueError("Load lacks type.")
        super().__init__(parent, typ, name)
        self.operands, self.align, self.ordering = (ptr,), align, ordering

    def _body(self):
        (ptr,) = self.operands
        if self.ordering is not None:
            return (f"load atomic {self.type}, {ptr.type} {ptr.get_reference()} {self.ordering}, "
                    f"align {self.align}{self._meta()}")
        align = "" if self.align is None else f", align {self.align}"
        return f"load {self.type}, {ptr.type} {ptr.get_reference()}{align}{self._meta()}"


class _Store(Instruction):
    opname = "store"

    def __init__(self, parent, value, ptr, align=None, ordering=None):
        super().__init__(parent, _ir.VoidType(), "")
        self.operands, self.align, self.ordering = (value, ptr), align, ordering

    def _body(self):
        value, ptr = self.operands
        head = (f"store {value.type} {value.get_reference()}, {ptr.type} "
                f"{ptr.get_reference()}")
        if self.ordering is not None:
            return f"store atomic{head[5:]} {self.ordering}, align {self.align}{self._meta()}"
        align = "" if self.align is None else f", align {self.align}"
        return f"{head}{align}{self._meta()}"


class _Alloca(Instruction):
    opname = "alloca"

    def __init__(self, parent, typ, count, name=""):
        super().__init__(parent, typ.as_pointer(), name)
        self.allocated_type, self.operands, self.align = typ, (count,) if count else (), None

    def _body(self):
        text = f"alloca {self.allocated_type}"
        if self.operands:
            (count,) = self.operands
            text += f", {count.type} {count.get_reference()}"
        if self.align is not None:
            text += f", align {self.align}"
        return text + self._meta()


class _GEP(Instruction):
    opname = "getelementptr"

    def __init__(self, parent, ptr, indices, inbounds=False, name="", source_etype=None):
        if source_etype is not None:
            typ = ptr.type
        elif not ptr.type.is_opaque:
            # Typed pointers: the result points at what the last index selects.
            typ, last, space = ptr.type, None, 0
            for index in indices:
                last, typ = typ, typ.gep(index)
                if isinstance(last, PointerType):
                    space = last.addrspace
            if not isinstance(typ, PointerType) and isinstance(last, PointerType):
                typ = last
            else:
                typ = typ.as_pointer(space)
            source_etype = ptr.type.pointee
        else:
            raise ValueError("GEP lacks type.")
        super().__init__(parent, typ, name)
        self.operands = (ptr, *indices)
        self.source_etype, self.inbounds = source_etype, inbounds

    def _body(self):
        ptr, *indices = self.operands
        op = "getelementptr inbounds" if self.inbounds else "getelementptr"
        index_text = ", ".join([f"{i.type} {i.get_reference()}" for i in indices])
        return (f"{op} {self.source_etype}, {ptr.type} {ptr.get_reference()}, {index_text} "
                f"{self._meta()}")


class _Phi(Instruction):
    opname = "phi"

    def __init__(self, parent, typ, name="", flags=()):
        super().__init__(parent, typ, name)
        self.incomings, self.flags = [], list(flags)

    def add_incoming(self, value, block):
        self.incomings.append((value, block))

    def _body(self):
        incoming = ", ".join([f"[{v.get_reference()}, {b.get_reference()}]"
                              for v, b in self.incomings])
        return f"phi {' '.join(self.flags)} {self.type} {incoming} {self._meta()}"


class _Call(Instruction):
    opname = "call"

    def __init__(self, parent, fn, args, name="", cconv=None, tail=False, fastmath=(), attrs=()):
        fnty = fn.function_type
        expected = fnty.args
        if len(args) < len(expected):
            raise TypeError(f"{fn.get_reference()} takes {len(expected)} arguments, got {len(args)}")
        for i, (arg, want) in enumerate(zip(args, expected)):
            if not _same_type(arg.type, want):
                raise TypeError(f"Type of #{i + 1} arg mismatch: {want} != {arg.type}")
        super().__init__(parent, fnty.return_type, name)
        self.operands = (fn, *args)
        self.cconv = fn.calling_convention if cconv is None and isinstance(fn, _ir.Function) \
            else cconv
        self.tail = tail if isinstance(tail, str) else ("tail" if tail else "")
        self.fastmath, self.attrs = tuple(fastmath), tuple(attrs)

    @property
    def callee(self):
        return self.operands[0]

    @property
    def args(self):
        return self.operands[1:]

    def _body(self):
        fn, *args = self.operands
        fnty = fn.function_type
        arg_text = ", ".join([f"{a.type} {a.get_reference()}" for a in args])
        callee = f"{fnty if fnty.var_arg else fnty.return_type} {fn.get_reference()}"
        if self.cconv:
            callee = f"{self.cconv} {callee}"
        tail = f"{self.tail} " if self.tail else ""
        fastmath = (" " + " ".join(_ir.instructions.FastMathFlags(self.fastmath)
                                   ._to_list(fnty.return_type))) if self.fastmath else ""
        attrs = (" " + " ".join(_ir.instructions.CallInstrAttributes(self.attrs)
                                ._to_list(fnty.return_type))) if self.attrs else ""
        return f"{tail}call{fastmath} {callee}({arg_text}){attrs}{self._meta()}"


class _Terminator(Instruction):
    """``br``: ``opname type a, type b...``."""

    def __init__(self, parent, opname, operands):
        super().__init__(parent, _ir.VoidType(), "")
        self.opname, self.operands = opname, operands

    def set_weights(self, weights):
        """Branch weights (``!prof``), as llvmlite's conditional branches have."""
        module = self.module
        if any(w < 0 for w in weights):
            raise ValueError("branch weight must be a positive integer")
        node = module.add_metadata(
            [MetaDataString(module, "branch_weights"), *(Constant(_I32, w) for w in weights)]
        )
        self.set_metadata("prof", node)

    def _body(self):
        operands = ", ".join([f"{op.type} {op.get_reference()}" for op in self.operands])
        return f"{self.opname} {operands}{self._meta()}"


class _Ret(_Terminator):
    def _body(self):
        if not self.operands:
            return f"{self.opname}{self._meta()}"
        (value,) = self.operands
        return f"{self.opname} {value.type} {value.get_reference()}{self._meta()}"


class _Unreachable(_Terminator):
    def _body(self):
        return "unreachable"


class _VectorOp(Instruction):
    """``insertelement``, ``extractelement`` and ``shufflevector``: typed operands in a row."""

    def __init__(self, parent, typ, opname, operands, name=""):
        super().__init__(parent, typ, name)
        self.opname, self.operands = opname, operands

    def _body(self):
        operands = ", ".join([f"{op.type} {op.get_reference()}" for op in self.operands])
        if self.opname == "shufflevector":
            return f"shufflevector {operands} {self._meta()}"
        return f"{self.opname} {operands}"


class _AtomicRMW(Instruction):
    opname = "atomicrmw"

    def __init__(self, parent, op, ptr, value, ordering, name=""):
        super().__init__(parent, value.type, name)
        self.operation, self.operands, self.ordering = op, (ptr, value), ordering

    def _body(self):
        ptr, value = self.operands
        return (f"atomicrmw {self.operation} {ptr.type} {ptr.get_reference()}, {value.type} "
                f"{value.get_reference()} {self.ordering} {self._meta()}")


def _label_suffix(label: str, suffix: str) -> str:
    return label[:25] + ".." + suffix if len(label) > 50 else label + suffix


def _binop(opname):
    def emit(self, lhs, rhs, name="", flags=()):
        if not _same_type(lhs.type, rhs.type):
            raise ValueError(f"Operands must be the same type, got ({lhs.type}, {rhs.type})")
        return self._insert(_Generic(self._block, lhs.type, opname, (lhs, rhs), name, flags))

    emit.__name__ = opname
    return emit


def _cast(opname):
    def emit(self, value, typ, name=""):
        if _same_type(value.type, typ):
            return value
        return self._insert(_Cast(self._block, opname, value, typ, name))

    emit.__name__ = opname
    return emit


class IRBuilder:
    """Appends instructions at a position in a :class:`Block` (``llvmlite.ir.IRBuilder``)."""

    def __init__(self, block=None):
        self._block = block
        self._anchor = len(block.instructions) if block else 0

    @property
    def block(self):
        """The basic block instructions are inserted into."""
        return self._block

    basic_block = block

    @property
    def function(self):
        """The function of the current block."""
        return self._block.parent

    @property
    def module(self):
        """The module of the current block's function."""
        return self._block.parent.parent

    def position_before(self, instr):
        """Insert the following instructions just before ``instr`` (in its block)."""
        self._block = instr.parent
        self._anchor = self._block.instructions.index(instr)

    def position_after(self, instr):
        """Insert the following instructions just after ``instr`` (in its block)."""
        self._block = instr.parent
        self._anchor = self._block.instructions.index(instr) + 1

    def position_at_start(self, block):
        """Insert the following instructions at the start of ``block``."""
        self._block, self._anchor = block, 0

    def position_at_end(self, block):
        """Insert the following instructions at the end of ``block``."""
        self._block, self._anchor = block, len(block.instructions)

    def append_basic_block(self, name=""):
        """Add a new basic block named ``name`` at the end of the current function."""
        return self._block.parent.append_basic_block(name)

    def _insert(self, instr):
        self._block.instructions.insert(self._anchor, instr)
        self._anchor += 1
        return instr

    def _terminate(self, term):
        if self._block.terminator is not None:
            raise ValueError(f"block {self._block.name} already has a terminator")
        self._insert(term)
        self._block.terminator = term
        return term

    # --- structured control flow -----------------------------------------------------------
    @contextlib.contextmanager
    def _branch_helper(self, enter, exit_):
        self.position_at_end(enter)
        yield exit_
        if self._block.terminator is None:
            self.branch(exit_)

    def _branch_on(self, pred, *suffixes, likely=None):
        """New blocks named after the current one (``.if``, ``.else``, ``.endif``) and a
        branch on ``pred`` to the first or the second; ``likely`` adds branch weights."""
        name = self._block.name
        blocks = [self.append_basic_block(_label_suffix(name, s)) for s in suffixes]
        br = self.cbranch(pred, blocks[0], blocks[1])
        if likely is not None:
            br.set_weights([99, 1] if likely else [1, 99])
        return blocks

    @contextlib.contextmanager
    def if_then(self, pred, likely=None):
        """Run the body in a block entered when ``pred`` is true; continue after it."""
        then, end = self._branch_on(pred, ".if", ".endif", likely=likely)
        with self._branch_helper(then, end):
            yield end
        self.position_at_end(end)

    @contextlib.contextmanager
    def if_else(self, pred, likely=None):
        """Yield ``(then, otherwise)`` context managers, as llvmlite's ``if_else``."""
        then, other, end = self._branch_on(pred, ".if", ".else", ".endif", likely=likely)
        yield self._branch_helper(then, end), self._branch_helper(other, end)
        self.position_at_end(end)

    # --- arithmetic ------------------------------------------------------------------------
    add, sub, mul, sdiv, udiv, srem, urem = (
        _binop(op) for op in ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem"))
    fadd, fsub, fmul, fdiv, frem = (_binop(op) for op in ("fadd", "fsub", "fmul", "fdiv", "frem"))
    shl, lshr, ashr, xor = (_binop(op) for op in ("shl", "lshr", "ashr", "xor"))
    and_, or_ = _binop("and"), _binop("or")

    def not_(self, value, name=""):
        """Emit the bitwise complement of ``value`` (``xor`` with all ones; lane-wise too)."""
        ty = value.type
        ones = Constant(ty, (-1,) * ty.count) if isinstance(ty, VectorType) else Constant(ty, -1)
        return self.xor(value, ones, name=name)

    def neg(self, value, name=""):
        """Emit the integer negation ``0 - value``."""
        return self.sub(Constant(value.type, 0), value, name=name)

    def fneg(self, arg, name="", flags=()):
        """Emit the float negation ``fneg`` of ``arg`` (``flags``: fast-math flags)."""
        return self._insert(_Generic(self._block, arg.type, "fneg", (arg,), name, flags))

    def _icmp(self, prefix, cmpop, lhs, rhs, name):
        op = _CMP.get(cmpop)
        if op is None:
            raise ValueError(f"invalid comparison {cmpop!r} for icmp")
        if cmpop not in ("==", "!="):
            op = prefix + op
        return self._insert(_Compare(self._block, "icmp", op, lhs, rhs, name))

    def icmp_signed(self, cmpop, lhs, rhs, name=""):
        """Emit a signed integer comparison; ``cmpop`` is one of ``< <= == != >= >``."""
        return self._icmp("s", cmpop, lhs, rhs, name)

    def icmp_unsigned(self, cmpop, lhs, rhs, name=""):
        """Emit an unsigned integer comparison (``cmpop`` as in :meth:`icmp_signed`)."""
        return self._icmp("u", cmpop, lhs, rhs, name)

    def _fcmp(self, prefix, cmpop, lhs, rhs, name, flags):
        op = prefix + _CMP[cmpop] if cmpop in _CMP else cmpop
        if op not in _FCMP_OPS:
            raise ValueError(f"invalid comparison {op!r} for fcmp")
        for flag in flags:
            if flag not in _FCMP_FLAGS:
                raise ValueError(f"invalid flag {flag!r} for fcmp")
        return self._insert(_Compare(self._block, "fcmp", op, lhs, rhs, name, flags))

    def fcmp_ordered(self, cmpop, lhs, rhs, name="", flags=()):
        """Emit an ordered float comparison (false when either side is NaN)."""
        return self._fcmp("o", cmpop, lhs, rhs, name, flags)

    def fcmp_unordered(self, cmpop, lhs, rhs, name="", flags=()):
        """Emit an unordered float comparison (true when either side is NaN)."""
        return self._fcmp("u", cmpop, lhs, rhs, name, flags)

    def select(self, cond, lhs, rhs, name="", flags=()):
        """Emit ``select cond, lhs, rhs``: ``lhs`` where ``cond`` is true, else ``rhs``."""
        return self._insert(_Select(self._block, cond, lhs, rhs, name, flags))

    # --- casts -----------------------------------------------------------------------------
    trunc, zext, sext, bitcast = (_cast(op) for op in ("trunc", "zext", "sext", "bitcast"))
    fptrunc, fpext, fptoui, fptosi = (_cast(op) for op in ("fptrunc", "fpext", "fptoui",
                                                            "fptosi"))
    uitofp, sitofp, ptrtoint, inttoptr = (_cast(op) for op in ("uitofp", "sitofp", "ptrtoint",
                                                                "inttoptr"))
    addrspacecast = _cast("addrspacecast")

    # --- memory ----------------------------------------------------------------------------
    def alloca(self, typ, size=None, name=""):
        """Emit a stack allocation of ``size`` (default 1) values of ``typ``; returns a pointer."""
        if size is not None and not isinstance(size, Value):
            size = Constant(_I32, size)
        return self._insert(_Alloca(self._block, typ, size, name))

    def load(self, ptr, name="", align=None, typ=None):
        """Emit a load through ``ptr`` (of ``typ`` for an opaque pointer), aligned to ``align``.

        Raises
        ------
        TypeError
            When ``ptr`` is not a pointer.
        """
        if not isinstance(ptr.type, PointerType):
            raise TypeError(f"cannot load from value of type {ptr.type} ({ptr!r}): not a pointer")
        return self._insert(_Load(self._block, ptr, name, typ, align))

    def load_atomic(self, ptr, ordering, align, name="", typ=None):
        """Emit an atomic load through ``ptr`` with memory ``ordering``.

        Raises
        ------
        TypeError
            When ``ptr`` is not a pointer.
        """
        if not isinstance(ptr.type, PointerType):
            raise TypeError(f"cannot load from value of type {ptr.type} ({ptr!r}): not a pointer")
        return self._insert(_Load(self._block, ptr, name, typ, align, ordering))

    def store(self, value, ptr, align=None):
        """Emit a store of ``value`` through ``ptr``, aligned to ``align``.

        Raises
        ------
        TypeError
            When ``ptr`` is not a pointer, or a typed pointer's pointee is not ``value``'s type.
        """
        pt = ptr.type
        if not isinstance(pt, PointerType):
            raise TypeError(f"cannot store to value of type {pt} ({ptr!r}): not a pointer")
        if not pt.is_opaque and not _same_type(pt.pointee, value.type):
            raise TypeError(f"cannot store {value.type} to {pt}: mismatching types")
        return self._insert(_Store(self._block, value, ptr, align))

    def store_atomic(self, value, ptr, ordering, align):
        """Emit an atomic store of ``value`` through ``ptr`` with memory ``ordering``.

        Raises
        ------
        TypeError
            When ``ptr`` is not a pointer, or a typed pointer's pointee is not ``value``'s type.
        """
        pt = ptr.type
        if not isinstance(pt, PointerType):
            raise TypeError(f"cannot store to value of type {pt} ({ptr!r}): not a pointer")
        if not pt.is_opaque and not _same_type(pt.pointee, value.type):
            raise TypeError(f"cannot store {value.type} to {pt}: mismatching types")
        return self._insert(_Store(self._block, value, ptr, align, ordering))

    def atomic_rmw(self, op, ptr, val, ordering, name=""):
        """Emit ``atomicrmw op ptr, val`` with memory ``ordering``; returns the old value."""
        return self._insert(_AtomicRMW(self._block, op, ptr, val, ordering, name))

    def gep(self, ptr, indices, inbounds=False, name="", source_etype=None):
        """Emit a ``getelementptr`` of ``ptr`` by ``indices`` (``inbounds`` when asked)."""
        return self._insert(_GEP(self._block, ptr, indices, inbounds, name, source_etype))

    # --- vectors ---------------------------------------------------------------------------
    def extract_element(self, vector, idx, name=""):
        """Emit ``extractelement``: lane ``idx`` of ``vector``."""
        if not isinstance(vector.type, VectorType):
            raise TypeError("vector needs to be of VectorType.")
        return self._insert(_VectorOp(self._block, vector.type.element, "extractelement",
                                      (vector, idx), name))

    def insert_element(self, vector, value, idx, name=""):
        """Emit ``insertelement``: ``vector`` with lane ``idx`` replaced by ``value``."""
        if not isinstance(vector.type, VectorType):
            raise TypeError("vector needs to be of VectorType.")
        if not _same_type(value.type, vector.type.element):
            raise TypeError(f"value needs to be of type {vector.type.element} not {value.type}.")
        return self._insert(_VectorOp(self._block, vector.type, "insertelement",
                                      (vector, value, idx), name))

    def shuffle_vector(self, vector1, vector2, mask, name=""):
        """Emit ``shufflevector``: lanes of ``vector1``, ``vector2`` picked by constant ``mask``."""
        if not isinstance(vector1.type, VectorType):
            raise TypeError("vector1 needs to be of VectorType.")
        typ = type(mask.type)(vector1.type.element, mask.type.count)  # scalable stays so
        return self._insert(_VectorOp(self._block, typ, "shufflevector",
                                      (vector1, vector2, mask), name))

    # --- phi, calls, terminators -----------------------------------------------------------
    def phi(self, typ, name="", flags=()):
        """Emit an empty ``phi`` of ``typ``; add the incoming values with ``add_incoming``."""
        return self._insert(_Phi(self._block, typ, name, flags))

    def call(self, fn, args, name="", cconv=None, tail=False, fastmath=(), attrs=()):
        """Emit a call of ``fn`` with ``args`` (calling convention, tail, fast-math, attributes)."""
        return self._insert(_Call(self._block, fn, args, name, cconv, tail, fastmath, attrs))

    def branch(self, target):
        """Terminate the block with an unconditional branch to ``target``."""
        return self._terminate(_Terminator(self._block, "br", (target,)))

    def cbranch(self, cond, truebr, falsebr):
        """Terminate the block with a branch to ``truebr`` when ``cond`` holds, else ``falsebr``."""
        return self._terminate(_Terminator(self._block, "br", (cond, truebr, falsebr)))

    def ret(self, value):
        """Terminate the block by returning ``value``."""
        return self._terminate(_Ret(self._block, "ret", (value,)))

    def ret_void(self):
        """Terminate the block by returning from a void function."""
        return self._terminate(_Ret(self._block, "ret void", ()))

    def unreachable(self):
        """Terminate the block with ``unreachable``."""
        return self._terminate(_Unreachable(self._block, "unreachable", ()))


__all__ = [
    "Argument", "ArrayType", "Block", "Constant", "DoubleType", "FloatType", "Function", "FunctionAttributes",
    "FunctionType", "GlobalVariable", "HalfType", "IRBuilder", "Instruction", "IntType",
    "LabelType", "LiteralStructType", "MDValue", "MetaDataString", "Module", "PointerType",
    "ScalableVectorType", "Type", "Undefined", "Value", "VectorType", "VoidType",
]
