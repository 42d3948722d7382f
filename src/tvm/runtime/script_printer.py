"""``tvm.runtime.script_printer``: printer options as an object, and printing with them.

Apache TVM 0.27 keeps the TVMScript printer's configuration object here. ``PrinterConfig``
holds the options of ``obj.script(...)``; :func:`_script` prints an object with one, and
:func:`_relax_script` prints it with Relax as the preferred dialect. The printer itself is
``tvm.script.printer`` (a higher layer, imported when printing).
"""

from __future__ import annotations

__all__ = ["PrinterConfig"]

#: Keys of ``extra_config`` the pytvm printer understands; others are rejected by it.
_EXTRA_KEYS_IGNORED = ("script.use_pep695", "relax.use_pep695")

#: Attributes passed on to ``tvm.script.printer.script`` unchanged.
_SCRIPT_KEYS = (
    "name",
    "show_meta",
    "ir_prefix",
    "module_alias",
    "int_dtype",
    "float_dtype",
    "verbose_expr",
    "indent_spaces",
    "print_line_numbers",
    "num_context_lines",
    "syntax_sugar",
    "show_object_address",
    "path_to_underline",
    "path_to_annotate",
    "obj_to_underline",
    "obj_to_annotate",
)


class PrinterConfig:
    """Options for printing IR as TVMScript (names and defaults of Apache TVM 0.27).

    Parameters
    ----------
    name : str, optional
        Name of the printed module or function.
    show_meta : bool
        Print the metadata section.
    ir_prefix, module_alias : str
        Prefix of the IR dialect (``I``) and name of the module inside its methods (``cls``).
    buffer_dtype, int_dtype, float_dtype : str
        Default dtypes left implicit in the output.
    verbose_expr, syntax_sugar, show_object_address : bool
        Accepted for compatibility; see :func:`tvm.script.printer.script` for their effect.
    indent_spaces : int
        Spaces per indentation level.
    print_line_numbers : bool
        Prefix lines with their numbers.
    num_context_lines : int
        Lines kept around underlines (-1 keeps all).
    extra_config : dict, optional
        Further options, e.g. ``{"render_invisible_path_info": bool}``.
    path_to_underline, obj_to_underline : list, optional
        Access paths / objects to underline.
    path_to_annotate, obj_to_annotate : dict, optional
        Access paths / objects mapped to a comment appended to their statement.
    binding_names : sequence of str, optional
        Accepted for compatibility; pytvm derives names from the IR.
    """

    def __init__(self, *, name=None, show_meta=False, ir_prefix="I", module_alias="cls",
                 buffer_dtype="float32", int_dtype="int32", float_dtype="void",
                 verbose_expr=False, indent_spaces=4, print_line_numbers=False,
                 num_context_lines=-1, syntax_sugar=True, show_object_address=False,
                 extra_config=None, path_to_underline=None, path_to_annotate=None,
                 obj_to_underline=None, obj_to_annotate=None, binding_names=()):
        if not isinstance(indent_spaces, int) or indent_spaces < 0:
            raise ValueError(
                f"PrinterConfig: indent_spaces must be an int >= 0, got {indent_spaces!r}"
            )
        if extra_config is not None and not isinstance(extra_config, dict):
            raise TypeError(
                f"PrinterConfig: extra_config must be a dict, got {type(extra_config).__name__}"
            )
        self.name = name
        self.show_meta = bool(show_meta)
        self.ir_prefix = ir_prefix
        self.module_alias = module_alias
        self.buffer_dtype = buffer_dtype
        self.int_dtype = int_dtype
        self.float_dtype = float_dtype
        self.verbose_expr = bool(verbose_expr)
        self.indent_spaces = indent_spaces
        self.print_line_numbers = bool(print_line_numbers)
        self.num_context_lines = int(num_context_lines)
        self.syntax_sugar = bool(syntax_sugar)
        self.show_object_address = bool(show_object_address)
        self.extra_config = dict(extra_config or {})
        self.path_to_underline = list(path_to_underline or [])
        self.path_to_annotate = dict(path_to_annotate or {})
        self.obj_to_underline = list(obj_to_underline or [])
        self.obj_to_annotate = dict(obj_to_annotate or {})
        self.binding_names = tuple(binding_names)

    def __repr__(self):
        return f"PrinterConfig(name={self.name!r}, ir_prefix={self.ir_prefix!r}, ...)"

    @property
    def render_invisible_path_info(self) -> bool:
        """Whether an underline request prints its ``Access path:`` header (``extra_config``
        key of the same name; default True, as in TVM 0.27)."""
        return bool(self.extra_config.get("render_invisible_path_info", True))

    def script_options(self) -> dict:
        """The keyword arguments of :func:`tvm.script.printer.script` this config stands for."""
        extra = {k: v for k, v in self.extra_config.items() if k not in _EXTRA_KEYS_IGNORED}
        options = {key: getattr(self, key) for key in _SCRIPT_KEYS}
        options["extra_config"] = extra
        return options


def _script(obj, config: PrinterConfig) -> str:
    """Print ``obj`` as TVMScript with the options of ``config``."""
    if not isinstance(config, PrinterConfig):
        raise TypeError(f"_script: config must be a PrinterConfig, got {type(config).__name__}")
    # Lazy: the printer is in the ``script`` layer, far above ``runtime``.
    from tvm.script.printer import script

    return script(obj, **config.script_options())


def _relax_script(obj, config: PrinterConfig) -> str:
    """Print ``obj`` with Relax as the preferred dialect: a tuple of scalar types printed
    alone is ``R.Tuple(T.float32)`` here and ``T.Tuple(T.float32)`` through :func:`_script`.
    """
    if not isinstance(config, PrinterConfig):
        raise TypeError(
            f"_relax_script: config must be a PrinterConfig, got {type(config).__name__}")
    # Lazy: the printer is in the ``script`` layer, far above ``runtime``.
    from tvm.script.printer import PREFER_RELAX, script

    options = config.script_options()
    options["extra_config"] = {**options["extra_config"], PREFER_RELAX: True}
    return script(obj, **options)
