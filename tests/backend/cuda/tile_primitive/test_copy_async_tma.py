"""copy_async variants tma_auto / tma_explicit
(src/tvm/backend/cuda/tile_primitive/copy_async/tma.py): the plan (descriptor fields,
coordinates, issue loops), the host-side descriptor, the CUDA that nvcc compiles, and the
reasons a call is refused.

The gpu_simulator does not model cp.async.bulk.tensor (TMA); instead a model of the TMA load
(box written densely from the instruction's coordinates, then the 32/64/128-byte swizzle of
the shared address bits) runs the lowered kernel's instructions, and every element must land
where the shared layout (``Layout.apply``) puts it. The host side is in test_host_tma.py."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import re
import sys
from pathlib import Path

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.script import tirx as T
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.operator.tile_primitive.dispatcher import TileDispatchError

sys.path.insert(0, str(Path(__file__).parent))
import tma_kernels as K

requires_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")


def encode_args(host):
    """The arguments of each runtime.cuTensorMapEncodeTiled call of a host function."""
    calls = []

    def visit(node):
        if getattr(getattr(node, "op", None), "name", "") == "tirx.tvm_call_packed" and \
                node.args[0].value == "runtime.cuTensorMapEncodeTiled":
            calls.append([a.value if hasattr(a, "value") and not isinstance(a, tvm.tirx.Var)
                          else a for a in node.args[1:]])

    tvm.tirx.stmt_functor.post_order_visit(host.body, visit)
    return calls


def tma_lines(src):
    return [line.strip() for line in src.splitlines()
            if re.search(r"tvm_builtin_ptx_cp_(reduce_)?async_bulk_tensor", line)
            and not line.lstrip().startswith(("__forceinline__", "//"))]


def test_registered():
    names = list_registered_schedules()["tirx.tile.copy_async"]["cuda"]
    assert {"tma_auto", "tma_explicit"} <= set(names)


def test_rowmajor_tile_is_one_box():
    host, _ = K.split(K.tma_rowmajor)
    (args,) = encode_args(host)
    # tensormap, dtype, rank, address, dims[2], strides[1], box[2], element strides[2],
    # interleave, swizzle, l2 promotion, oob fill
    assert args[1:3] == ["float16", 2]
    assert args[4:] == [64, 64, 128, 64, 64, 1, 1, 0, 0, 2, 0]
    assert str(args[3]) == "A"  # the buffer's data pointer
    src = K.device_source(K.tma_rowmajor)
    assert "const __grid_constant__ CUtensorMap A_tensormap" in src
    (line,) = tma_lines(src)
    assert "cp_async_bulk_tensor_g2s_cluster_async_bulk_tensor_2d_shared__cluster_global" in line
    # 0.27's text: the descriptor's address as a u64, cast to the helper's ``const void*``.
    assert ("((void*)((unsigned long long)(&(A_tensormap)))), 0, 0, "
            "tvm_builtin_cuda_cvta_generic_to_shared((&(bar_ptr[0])))") in line


def test_swizzled_tile_issues_one_box_per_column_block():
    host, _ = K.split(K.tma_swizzled_tiles)
    a_args, b_args = encode_args(host)
    # 128-byte swizzle: 64 fp16 per box row, 64 rows; global 256 x 512 (row stride 1024 B)
    assert a_args[4:] == [512, 256, 1024, 64, 64, 1, 1, 0, 3, 2, 0]
    assert b_args[4:] == a_args[4:]
    lines = tma_lines(K.device_source(K.tma_swizzled_tiles))
    assert len(lines) == 4
    g2s, s2g = lines[:2], lines[2:]
    # The simplifier substitutes by = blockIdx.y, bx = blockIdx.x (as 0.27's does).
    by, bx = "((int)blockIdx.y)", "((int)blockIdx.x)"
    assert "A_smem_ptr[0]" in g2s[0] and f"({by} * 128), ({bx} * 64)" in g2s[0]
    assert "A_smem_ptr[4096]" in g2s[1] and f"(({by} * 128) + 64), ({bx} * 64)" in g2s[1]
    assert all("global_shared__cta_tile_bulk_group(((void*)((unsigned long long)(&(B_tensormap" in s for s in s2g)
    assert "A_smem_ptr[4096]" in s2g[1]


def test_staged_buffer_and_multicast():
    host, _ = K.split(K.tma_staged_multicast)
    (args,) = encode_args(host)
    # 3-D global (4, 128, 64) bf16, 64-byte swizzle: box 32 x 32 x 1
    assert args[1:3] == ["bfloat16", 3]
    assert args[4:] == [64, 128, 4, 128, 16384, 32, 32, 1, 1, 1, 1, 0, 2, 2, 0]
    lines = tma_lines(K.device_source(K.tma_staged_multicast))
    assert len(lines) == 2
    assert all("_multicast__cluster(" in s for s in lines)
    assert "S_ptr[(s * 2048)]" in lines[0] and ", 0, (s * 32), cl," in lines[0]
    assert "S_ptr[((s * 2048) + 1024)]" in lines[1] and ", 32, (s * 32), cl," in lines[1]
    assert "((unsigned short)((s == 1) ? 3 : 0))" in lines[0]


def test_one_descriptor_per_tensor_and_box():
    @T.prim_func
    def two_loads(A: T.Buffer((128, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        S = T.alloc_shared((2, 64, 64), "float16")
        bar = T.alloc_shared((1,), "uint64")
        if tid == 0:
            Tx.copy_async(S[0, :, :], A[0:64, :], dispatch="tma_explicit", mbar=bar.ptr_to([0]))
            Tx.copy_async(S[1, :, :], A[64:128, :], dispatch="tma_explicit",
                          mbar=bar.ptr_to([0]))

    host, _ = K.split(two_loads)
    assert len(encode_args(host)) == 1
    lines = tma_lines(K.device_source(two_loads))
    assert "S_ptr[0]" in lines[0] and ", 0, 0," in lines[0]
    assert "S_ptr[4096]" in lines[1] and ", 0, 64," in lines[1]


def test_wide_rows_cut_the_outer_box_dimension():
    # 8 rows of 512 fp16 into a row-major tile: the row (512 > 256) cannot be one box row,
    # but the box is 64-column wide x 8 rows only if the shared tile is column-blocked; a
    # row-major tile keeps rows whole, so it needs a 1-row box of 256... which is not dense.
    @T.prim_func
    def wide(A: T.Buffer((8, 512), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        S = T.alloc_shared((4096,), "float32")
        bar = T.alloc_shared((1,), "uint64")
        if tid == 0:
            Tx.copy_async(S[0:512], A[3, :], dispatch="tma_auto", mbar=bar.ptr_to([0]))

    host, _ = K.split(wide)
    (args,) = encode_args(host)
    # dim 0 (512 columns) is cut into boxes of 256: two instructions
    assert args[4:] == [512, 8, 2048, 256, 1, 1, 1, 0, 0, 2, 0]
    lines = tma_lines(K.device_source(wide))
    assert len(lines) == 2
    assert "S_ptr[0]" in lines[0] and ", 0, 3," in lines[0]
    assert "S_ptr[256]" in lines[1] and ", 256, 3," in lines[1]


def test_s2g_reduction():
    host, _ = K.split(K.tma_reduce_add)
    (args,) = encode_args(host)
    assert args[1:3] == ["float32", 2]
    assert args[4:] == [64, 256, 256, 32, 64, 1, 1, 0, 0, 2, 0]
    (line,) = tma_lines(K.device_source(K.tma_reduce_add))
    assert "cp_reduce_async_bulk_tensor" in line and "_add_tile_bulk_group(" in line
    assert "((void*)((unsigned long long)(&(A_tensormap)))), 32, (((int)blockIdx.x) * 64)," \
        in line


def _dispatch_error(func):
    with pytest.raises(TileDispatchError) as info:
        K.split(func)
    return str(info.value)


def test_g2s_needs_mbar():
    @T.prim_func
    def no_bar(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        S = T.alloc_shared((64, 64), "float16")
        if tid == 0:
            Tx.copy_async(S[:, :], A[:, :], dispatch="tma_auto")

    assert "needs mbar=" in _dispatch_error(no_bar)


def test_tma_is_one_thread():
    @T.prim_func
    def warp_tma(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64, 64), "float16")
        Tx.warp.copy_async(S[:, :], A[:, :], dispatch="tma_auto", mbar=bar.ptr_to([0]))

    assert "TMA is issued by one thread" in _dispatch_error(warp_tma)


def test_explicit_refuses_several_boxes_and_unsupported_options():
    @T.prim_func
    def two_boxes(A: T.Buffer((64, 128), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64, 128), "float16", layout=K.SW128_64x128)
        if tid == 0:
            Tx.copy_async(S[:, :], A[:, :], dispatch="tma_explicit", mbar=bar.ptr_to([0]))

    assert "needs 2 (use tma_auto)" in _dispatch_error(two_boxes)

    @T.prim_func
    def hinted(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64, 64), "float16")
        if tid == 0:
            Tx.copy_async(S[:, :], A[:, :], dispatch="tma_auto", mbar=bar.ptr_to([0]),
                          cache_hint="evict_last")

    assert "['cache_hint'] not supported yet" in _dispatch_error(hinted)

    @T.prim_func
    def reduce_load(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64, 64), "float16")
        if tid == 0:
            Tx.copy_async(S[:, :], A[:, :], dispatch="tma_auto", mbar=bar.ptr_to([0]),
                          use_tma_reduce="add")

    assert "use_tma_reduce= applies to shared -> global" in _dispatch_error(reduce_load)


def test_refuses_non_contiguous_inner_box_and_short_rows():
    @T.prim_func
    def column(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64,), "float16")
        if tid == 0:
            Tx.copy_async(S[:], A[:, 5], dispatch="tma_auto", mbar=bar.ptr_to([0]))

    assert "innermost box dimension contiguous" in _dispatch_error(column)

    @T.prim_func
    def short(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64, 4), "float16")
        if tid == 0:
            Tx.copy_async(S[:, :], A[:, 0:4], dispatch="tma_auto", mbar=bar.ptr_to([0]))

    assert "inner box dimension is 8 bytes" in _dispatch_error(short)


def test_refuses_misaligned_swizzled_offset():
    @T.prim_func
    def misaligned(A: T.Buffer((64, 128), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        S = T.alloc_shared((64, 128), "float16", layout=K.SW128_64x128)
        if tid == 0:
            Tx.copy_async(S[4:8, 0:64], A[0:4, 0:64], dispatch="tma_auto",
                          mbar=bar.ptr_to([0]))

    assert "not a multiple of the swizzle period" in _dispatch_error(misaligned)


@requires_nvcc
def test_kernels_compile_with_nvcc():
    sources = [K.device_source(f) for f in (K.tma_rowmajor, K.tma_swizzled_tiles,
                                            K.tma_staged_multicast, K.tma_atom_tiled,
                                            K.tma_reduce_add)]
    assert compile_many(sources, "sm_90a")
    assert all(re.search(r"cp\.(reduce\.)?async\.bulk\.tensor\.\dd\.", s) for s in sources)


# --- a model of the TMA loads: where each element lands -------------------------------------
def _eval(expr, env):
    from tvm.arith import Analyzer
    from tvm.tirx.stmt_functor import StmtExprMutator, substitute

    class _Sregs(StmtExprMutator):  # T.cuda.mov_sreg(32, "clusterid.x") -> its value
        def visit_call_(self, op):
            if op.op.name == "tirx.cuda.mov_sreg":
                return tvm.tirx.IntImm("int32", env["%" + op.args[1].value])
            return super().visit_call_(op)

    var_env = {k: v for k, v in env.items() if not isinstance(k, str)}
    for _ in range(4):  # Binds refer to earlier Binds
        expr = _Sregs().visit_expr(substitute(expr, var_env))
    return int(Analyzer().simplify(expr))


def _kernel_env(func, block):
    """Bind values of the kernel with ``blockIdx.*`` = ``block``."""
    env = {}

    def visit(node):
        if isinstance(node, tvm.tirx.Bind):
            env[node.var] = node.value
        if isinstance(node, tvm.tirx.AttrStmt) and node.attr_key == "thread_extent":
            tag = node.node.thread_tag
            if tag in block:
                env[node.node.var] = tvm.tirx.IntImm("int32", block[tag])

    env.update({k: v for k, v in block.items() if k.startswith("%")})  # special registers

    tvm.tirx.stmt_functor.post_order_visit(func.body, visit)
    return env


def _tma_loads(func):
    """``[(loop vars, shared element index expr, coordinate exprs)]`` of the g2s loads."""
    loads, loops = [], []

    def walk(stmt):
        if isinstance(stmt, tvm.tirx.For):
            loops.append((stmt.loop_var, int(stmt.extent)))
            walk(stmt.body)
            loops.pop()
            return
        if isinstance(stmt, tvm.tirx.Evaluate):
            call = stmt.value
            tokens = [a.value for a in call.args if isinstance(a, tvm.tirx.StringImm)]
            if "tensor" in tokens and "shared::cluster" in tokens:
                rank = int(next(t for t in tokens if t.endswith("d") and t[0].isdigit())[:-1])
                index = call.args[0].args[0].args[0].indices[0]
                loads.append((list(loops), index, list(call.args[2:2 + rank])))
            return
        for field in ("seq",):
            if hasattr(stmt, field):
                for s in getattr(stmt, field):
                    walk(s)
                return
        for field in ("body", "then_case", "else_case"):
            child = getattr(stmt, field, None)
            if child is not None:
                walk(child)

    walk(func.body)
    return loads


def _model_tma(func, host, block, elem_bytes):
    """Shared memory (element offset -> tensor-map coordinates) after the kernel's loads."""
    import itertools

    args = encode_args(host)[0]  # the loads' descriptor (encoded first)
    rank = args[2]
    box = args[4 + 2 * rank - 1:4 + 3 * rank - 1]
    swizzle = args[-3]
    env = _kernel_env(func, block)
    smem = {}
    for loops, index, coords in _tma_loads(func):
        for values in itertools.product(*[range(n) for _, n in loops]):
            local = dict(env)
            local.update({v: tvm.tirx.IntImm("int32", x) for (v, _), x in zip(loops, values)})
            base = _eval(index, local) * elem_bytes
            start = [_eval(c, local) for c in coords]
            for pos in itertools.product(*[range(b) for b in reversed(box)]):
                pos = pos[::-1]  # innermost first
                dense, scale = 0, elem_bytes
                for i, b in zip(pos, box):
                    dense += i * scale
                    scale *= b
                addr = base + dense
                if swizzle:
                    addr ^= ((addr >> 7) & ((1 << swizzle) - 1)) << 4
                smem[addr // elem_bytes] = tuple(s + i for s, i in zip(start, pos))
    return smem


@pytest.mark.parametrize("bx, by", [(0, 0), (2, 3)])
def test_model_swizzled_loads_land_where_the_layout_says(bx, by):
    host, dev = K.split(K.tma_swizzled_tiles)
    func = next(iter(dev.functions.values()))
    smem = _model_tma(func, host, {"blockIdx.x": bx, "blockIdx.y": by}, 2)
    for r in range(64):
        for c in range(128):
            phys = int(K.SW128_64x128.apply(r, c, shape=[64, 128])["m"])
            assert smem[phys] == (by * 128 + c, bx * 64 + r), (r, c)


def test_model_atom_tiled_layout_loads():
    host, dev = K.split(K.tma_atom_tiled)
    func = next(iter(dev.functions.values()))
    assert len(_tma_loads(func)) == 8  # one 64 x 8 box per atom
    smem = _model_tma(func, host, {"blockIdx.x": 2}, 2)
    for r in range(16):
        for c in range(256):
            phys = int(K.ATOM_16x256.apply(r, c, shape=[16, 256])["m"])
            assert smem[phys] == (c, 2 * 16 + r), (r, c)


def test_tma_utils_atoms():
    from tvm.backend.cuda.tile_primitive import tma_utils

    assert tma_utils.mma_atom_shape("float16", 3) == [8, 64]
    assert tma_utils.mma_atom_shape("float32", 1) == [8, 8]
    atom = tma_utils.mma_atom_layout("bfloat16", 2)
    assert (atom.per_element, atom.swizzle_len, atom.atom_len) == (3, 2, 3)
    mode = tma_utils.get_swizzle_mode_from_layout
    assert mode(K.SW64_2x32x64) == tma_utils.SwizzleMode.SWIZZLE_64B_ATOM
    assert mode(tma_utils.mma_shared_layout("float16", 0, (8, 64))) == 0
    with pytest.raises(ValueError, match="needs a 32B, 64B or 128B swizzle mode"):
        tma_utils.mma_atom_shape("float16", 0)


def test_model_staged_64b_swizzle_loads():
    host, dev = K.split(K.tma_staged_multicast)
    func = next(iter(dev.functions.values()))
    cl = 3 // 2  # the cluster of CTA 3 (clusters of 2): %clusterid.x
    smem = _model_tma(func, host, {"blockIdx.x": 3, "%clusterid.x": cl}, 2)
    for s in range(2):
        for r in range(32):
            for c in range(64):
                phys = int(K.SW64_2x32x64.apply(s, r, c, shape=[2, 32, 64])["m"])
                assert smem[phys] == (c, s * 32 + r, cl), (s, r, c)
