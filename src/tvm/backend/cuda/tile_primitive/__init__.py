"""Support code for the CUDA tile-primitive variants (``tvm.tirx.cuda.tile_primitive``)."""
