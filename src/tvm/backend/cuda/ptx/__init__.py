"""``tvm.backend.cuda.ptx``: the backend's view of the ``T.ptx`` instruction table.

The table, its interpreter and its renderer live in the ``tirx`` layer
(:mod:`tvm.tirx.ptx`), so that passes can use them without importing a backend. This
package re-exposes them under the module paths Apache TVM 0.27 has (``.table``:
``TABLE``, ``tokens_for``, ``renderings``; ``.render``: ``render_variant``), with the same
call shapes, over our own table (docs/arch/tirx_ptx.md, "The backend view").
"""

from . import render, table
from .render import render_variant
from .table import TABLE, renderings, tokens_for

__all__ = ["TABLE", "render", "render_variant", "renderings", "table", "tokens_for"]
