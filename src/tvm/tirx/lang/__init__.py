"""``tvm.tirx.lang``: script-time helpers of TIRx kernels, by their Apache TVM 0.27 names.

``tvm.tirx.lang.alloc_pool`` and ``tvm.tirx.lang.warp_role`` forward to
``tvm.backend.cuda.lang.*``, where they live: they emit statements through the TVMScript
builder and PTX intrinsics, layers above ``tvm.tirx``.
"""
