"""Script-time helpers for CUDA kernels written in TIRx: allocation pools (``alloc_pool``)
and warp specialisation roles (``warp_role``). They run while a kernel is parsed and emit
statements through the TVMScript IR builder; ``tvm.tirx.lang.<module>`` names the same
objects."""
