"""T.cuda builtins and T.address_of: printed forms (checked against Apache TVM 0.27),
round trips, dtypes and argument errors."""

import importlib.util

import pytest

import tvm
from tvm.script import tirx as T

_HEADER = """
import tvm
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float16")):
    barb = T.alloc_shared((4,), "uint64")
    smem = T.alloc_shared((256,), "float16")
    tmb = T.alloc_local((16,), "uint64")
    tm: T.uint32
    r: T.uint32
    r2: T.uint32
    r3: T.uint32
    r4: T.uint32
    u64: T.uint64
    f32: T.float32
    f32b: T.float32
    d0: T.float32
    d1: T.float32
    d2: T.float32
    d3: T.float32
    h: T.float16
    hh: T.uint16
    i32: T.int32
"""


def parse_kernel(tmp_path, line, name="k"):
    """Parse the kernel above with ``line`` appended to its body (from a real file, so that
    spans and error snippets point at it)."""
    path = tmp_path / f"{name}.py"
    path.write_text(_HEADER + "    " + line + "\n")
    spec = importlib.util.spec_from_file_location(f"_ptx_kernel_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.f


CASES = [
    ('T.evaluate(T.cuda.func_call("my_fn", i32, source_code="__device__ int my_fn(int x){return x;}", return_type="int32"))',
     'T.cuda.func_call("my_fn", i32, source_code="__device__ int my_fn(int x){return x;}", return_type="int32")'),
    ('T.cuda.func_call("my_fn2", i32, r, source_code="__device__ void my_fn2(int x, unsigned y){}")',
     'T.cuda.func_call("my_fn2", i32, r, source_code="__device__ void my_fn2(int x, unsigned y){}")'),
    ('T.cuda.printf("%d %f", i32, f32)',
     'T.cuda.printf("%d %f", i32, f32)'),
    ('T.cuda.cta_sync()',
     'T.cuda.cta_sync()'),
    ('T.cuda.warp_sync()',
     'T.cuda.warp_sync()'),
    ('T.cuda.warpgroup_sync(8)',
     'T.cuda.warpgroup_sync(8)'),
    ('T.cuda.grid_sync()',
     'T.cuda.grid_sync()'),
    ('T.cuda.syncthreads_and(i32)',
     'T.cuda.syncthreads_and(i32)'),
    ('T.cuda.syncthreads_or(i32)',
     'T.cuda.syncthreads_or(i32)'),
    ('T.cuda.thread_fence()',
     'T.cuda.thread_fence()'),
    ('T.cuda.cluster_sync()',
     'T.cuda.cluster_sync()'),
    ('T.cuda.mbarrier_wait(T.address_of(barb[0]), 0)',
     'T.cuda.mbarrier_wait(T.address_of(barb[0]), 0)'),
    ('T.cuda.mbarrier_wait_acquire_cluster(T.address_of(barb[0]), 0)',
     'T.cuda.mbarrier_wait_acquire_cluster(T.address_of(barb[0]), 0)'),
    ('r = T.cuda.cvta_generic_to_shared(T.address_of(barb[0]))',
     'r = T.cuda.cvta_generic_to_shared(T.address_of(barb[0]))'),
    ('r = T.cuda.get_tmem_addr(tm, 0, 0)',
     'r = T.cuda.get_tmem_addr(tm, 0, 0)'),
    ('f32 = T.cuda.warp_sum(f32)',
     'f32 = T.cuda.warp_reduce(f32, "sum", 32)'),
    ('f32 = T.cuda.warp_max(f32)',
     'f32 = T.cuda.warp_reduce(f32, "max", 32)'),
    ('f32 = T.cuda.warp_min(f32)',
     'f32 = T.cuda.warp_reduce(f32, "min", 32)'),
    ('f32 = T.cuda.warp_reduce(f32, "sum")',
     'f32 = T.cuda.warp_reduce(f32, "sum", 32)'),
    ('T.cuda.wgmma.noop_barrier(f32)',
     'T.cuda.wgmma.noop_barrier(f32)'),
    ('f32 = T.cuda.cta_sum(f32, 4, T.address_of(smem[0]))',
     'f32 = T.cuda.cta_reduce(f32, "sum", 4, T.address_of(smem[0]))'),
    ('f32 = T.cuda.cta_reduce(f32, "max", 4, T.address_of(smem[0]))',
     'f32 = T.cuda.cta_reduce(f32, "max", 4, T.address_of(smem[0]))'),
    ('T.cuda.wgmma.encode_matrix_descriptor(T.address_of(u64), T.address_of(smem[0]), 1, 64, 1)',
     'T.cuda.wgmma.encode_matrix_descriptor(T.address_of(u64), T.address_of(smem[0]), 1, 64, 1)'),
    ('T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(u64), T.address_of(smem[0]), 1, 64, 1)',
     'T.cuda.tcgen05.encode_matrix_descriptor(T.address_of(u64), T.address_of(smem[0]), 1, 64, 1)'),
    ('T.cuda.tcgen05.encode_instr_descriptor(T.address_of(r), d_dtype="float32", a_dtype="float16", b_dtype="float16", M=128, N=256, K=16, trans_a=False, trans_b=False)',
     'T.cuda.tcgen05.encode_instr_descriptor(T.address_of(r), "float32", "float16", "float16", 128, 256, 16, T.bool(False), T.bool(False), 1, T.bool(False), T.bool(False), T.bool(False), T.bool(False))'),
    ('T.cuda.tcgen05.encode_instr_descriptor_block_scaled(T.address_of(r), d_dtype="float32", a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn", sfa_dtype="float8_e8m0fnu", sfb_dtype="float8_e8m0fnu", sfa_tmem_addr=0, sfb_tmem_addr=0, M=128, N=256, K=32, trans_a=False, trans_b=False)',
     'T.cuda.tcgen05.encode_instr_descriptor_block_scaled(T.address_of(r), "float32", "float8_e4m3fn", "float8_e4m3fn", "float8_e8m0fnu", "float8_e8m0fnu", 0, 0, 128, 256, 32, T.bool(False), T.bool(False), 1, T.bool(False), T.bool(False), T.bool(False))'),
    ('T.evaluate(T.cuda.elect_sync())',
     'T.cuda.elect_sync()'),
]


@pytest.mark.parametrize(("line", "printed"), CASES, ids=[c[0][:60] for c in CASES])
def test_print_and_round_trip(tmp_path, line, printed):
    func = parse_kernel(tmp_path, line)
    text = func.script()
    assert text.rstrip().splitlines()[-1].strip() == printed
    again = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(func, again)


def test_dtypes_effects_and_op_names():
    v = tvm.tirx.Var("v", "float32")
    p = tvm.tirx.Var("p", "handle")
    assert T.cuda.elect_sync().dtype == "uint32"  # as Apache TVM 0.27
    assert T.cuda.cvta_generic_to_shared(p).dtype == "uint32"
    assert T.cuda.syncthreads_or(tvm.tirx.Var("c", "int32")).dtype == "int64"
    assert T.cuda.cta_sync().dtype == ""
    assert T.cuda.warp_sum(v).dtype == "float32"
    assert T.cuda.warp_max(v).op.name == "tirx.cuda.warp_reduce"
    assert T.cuda.cta_min(v, 4, p).op.name == "tirx.cuda.cta_reduce"
    assert T.cuda.func_call("f", v, source_code="...", return_type="float32").dtype == "float32"
    assert T.cuda.wgmma.noop_barrier(v).op.name == "tirx.cuda.wgmma_noop_barrier"
    op = tvm.ir.Op.get("tirx.cuda.cta_sync")
    assert op.get_attr("TCallEffectKind") == 3  # UpdateState, as in Apache TVM 0.27
    assert T.address_of is tvm.tirx.address_of
    buf = tvm.tirx.decl_buffer((4,), "float32", name="B")
    addr = T.address_of(buf[1])
    assert addr.dtype == "handle" and addr.op.name == "tirx.address_of"


def test_argument_errors():
    v = tvm.tirx.Var("v", "float32")
    p = tvm.tirx.Var("p", "handle")
    with pytest.raises(ValueError, match="op must be one of sum, max, min, got 'prod'"):
        T.cuda.warp_reduce(v, "prod")
    with pytest.raises(TypeError, match="source_code must be a str"):
        T.cuda.func_call("f", v, source_code=None)
    with pytest.raises(TypeError, match="missing argument 'K'"):
        T.cuda.tcgen05.encode_instr_descriptor(p, d_dtype="float32", a_dtype="float16",
                                               b_dtype="float16", M=128, N=256,
                                               trans_a=False, trans_b=False)
    with pytest.raises(TypeError, match="unexpected argument 'L'"):
        T.cuda.tcgen05.encode_instr_descriptor(p, L=1)
    with pytest.raises(AttributeError, match="T.cuda.foo is not a CUDA builtin"):
        T.cuda.foo  # noqa: B018
    with pytest.raises(TypeError, match="T.address_of expects a buffer element"):
        T.address_of(3)


def test_elect_sync_selects_one_thread_in_an_if(tmp_path):
    # Spec D.3's role selection; the printed text is Apache TVM 0.27's.
    func = parse_kernel(tmp_path, 'if T.cuda.elect_sync():\n        T.cuda.printf("%d", r)')
    lines = [line.strip() for line in func.script().splitlines()]
    assert lines[-2:] == ["if T.cuda.elect_sync():", 'T.cuda.printf("%d", r)']
    tvm.ir.assert_structural_equal(func, tvm.script.from_source(func.script()))
