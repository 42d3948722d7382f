"""``tvm.contrib``: helpers around external libraries (TVM's contrib namespace).

Only the pieces TVM code commonly imports exist so far: :mod:`tvm.contrib.cblas`. Each
submodule is imported explicitly (``import tvm.contrib.cblas``), as in TVM.
"""
