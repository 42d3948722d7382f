"""``Buffer.ty`` (the buffer's type fields) and ``tirx.is_buffer_var``."""

from tvm import tirx


def test_buffer_ty_reads_the_buffer_fields():
    buf = tirx.decl_buffer((4, 8), "float16", name="A", scope="shared")
    assert buf.ty.dtype == "float16"
    assert [int(s) for s in buf.ty.shape] == [4, 8]
    assert buf.ty.storage_scope == "shared"
    assert repr(buf.ty) == "BufferType(float16, shape=[4, 8])"
    # A buffer rebuilt with another shape reports the new one.
    assert [int(s) for s in buf.replace(shape=(32,)).ty.shape] == [32]


def test_is_buffer_var():
    assert tirx.is_buffer_var(tirx.decl_buffer((4,), "int32"))
    assert not tirx.is_buffer_var(tirx.Var("x", "int32"))
    assert not tirx.is_buffer_var(None)
