"""Colour TVMScript on a terminal: ``cprint`` (what ``mod.show()`` calls), as Apache TVM's
``tvm.script.highlight.cprint``.

Pygments colours the text when standard output is a terminal and Pygments is installed (it
comes with pytest); otherwise the text is printed as is, so pipes and logs get no escape
codes. ``style`` picks the colours:

* ``None`` or ``"light"``: for light terminal backgrounds (Pygments' ``default``);
* ``"dark"``: for dark backgrounds (``monokai``);
* ``"ansi"``: the 16 ANSI colours, which follow the terminal's own theme;
* any Pygments style name (``"solarized-dark"``, ...) or ``pygments.style.Style`` subclass.

``black_format=True`` first formats the text with ``black`` when it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings

__all__ = ["cprint"]

_NAMED = {"light": "default", "dark": "monokai"}


def _format(code_str: str, formatter: str | None = None) -> str:
    """Format Python/TVMScript text with ``ruff format`` or ``black``, as Apache TVM's
    ``tvm.script.highlight._format``.

    Parameters
    ----------
    code_str : str
        The text to format.
    formatter : {"ruff", "black"} or None
        The formatter; None takes ruff when its executable is on ``PATH``, else black.

    Returns
    -------
    str
        The formatted text; the text unchanged (with a warning) when the formatter is not
        installed.

    Raises
    ------
    ValueError
        For a formatter other than ``"ruff"``, ``"black"`` or None.
    """
    if formatter not in (None, "ruff", "black"):
        raise ValueError(f"formatter must be 'ruff', 'black' or None, got {formatter!r}")
    if formatter in (None, "ruff"):
        ruff = shutil.which("ruff")
        if ruff is not None:
            done = subprocess.run([ruff, "format", "-"], input=code_str, capture_output=True,
                                  text=True, check=False)
            if done.returncode == 0:
                return done.stdout
            warnings.warn(f"ruff format failed, printing unformatted: {done.stderr.strip()}",
                          stacklevel=2)
            return code_str
        if formatter == "ruff":
            warnings.warn("formatter='ruff' needs the ruff executable; printing unformatted",
                          stacklevel=2)
            return code_str
    try:
        import black  # lazy: an optional formatter, never needed to import tvm
    except ImportError:
        warnings.warn("formatting TVMScript needs the black package (or ruff); printing "
                      "unformatted", stacklevel=2)
        return code_str
    return black.format_str(code_str, mode=black.FileMode())


def _format_with_black(text: str) -> str:
    return _format(text, "black")


def _highlight(text: str, style) -> str:
    from pygments import highlight
    from pygments.formatters import Terminal256Formatter, TerminalFormatter
    from pygments.lexers.python import Python3Lexer
    from pygments.style import Style
    from pygments.styles import get_all_styles, get_style_by_name
    from pygments.util import ClassNotFound

    if style == "ansi":
        return highlight(text, Python3Lexer(), TerminalFormatter())
    if isinstance(style, type) and issubclass(style, Style):
        style_cls = style
    else:
        name = _NAMED.get(style or "light", style)
        if not isinstance(name, str):
            raise TypeError(f"style must be a str or a pygments Style class, got {style!r}")
        try:
            style_cls = get_style_by_name(name)
        except ClassNotFound:
            choices = ", ".join(sorted(["light", "dark", "ansi", *get_all_styles()]))
            raise ValueError(f"unknown style {style!r}; choose one of: {choices}") from None
    return highlight(text, Python3Lexer(), Terminal256Formatter(style=style_cls))


def cprint(printable, style=None, black_format: bool = False) -> None:
    """Print ``printable`` (TVMScript text or an object with ``script()``), coloured on a
    terminal (see the module docstring for ``style``)."""
    text = printable if isinstance(printable, str) else printable.script()
    if black_format:
        text = _format_with_black(text)
    stream = sys.stdout
    if not (hasattr(stream, "isatty") and stream.isatty()):
        if style is not None and not isinstance(style, (str, type)):
            raise TypeError(f"style must be a str or a pygments Style class, got {style!r}")
        print(text)
        return
    try:
        coloured = _highlight(text, style)
    except ImportError:
        print(text)  # Pygments is optional: plain text, as on a pipe
        return
    stream.write(coloured if coloured.endswith("\n") else coloured + "\n")
