"""Small result tables for the chapters: one formatting helper, text for nbval, HTML for the site.

:func:`format_table` turns rows of numbers into a :class:`Table`, a plain object (no pandas) that
a notebook shows as a clean HTML table (``_repr_html_``) and that prints, and compares under nbval,
as an aligned text table (``__str__`` and ``__repr__`` give the same deterministic text).  Every
cell is formatted once, when the table is made, so both forms show exactly the same strings::

    >>> t = format_table([("DP-IMED", 202.84, 46), ("IMED", 52.8, 100000)],
    ...                  ["policy", "regret", "phases"], formats={"regret": ".1f"})
    >>> print(t)
    policy   regret  phases
    -------  ------  ------
    DP-IMED   202.8      46
    IMED       52.8  100000

Numbers are right-aligned and text left-aligned (a column is numeric when every value in it is a
number, numpy scalars and 0-d arrays included); a column's format is a format specification
(``".4f"``, ``"+.2f"``, ``",d"``) or a function from the value to a string, and the default is
``str`` for integers and text and ``".4g"`` (or the ``floats`` argument) for other numbers.
"""

from __future__ import annotations

from typing import Any

import html
import numbers
from collections.abc import Callable, Mapping, Sequence

__all__ = ["Table", "format_table"]

_ALIGNS = ("left", "right")


class Table:
    """A formatted table: a title, column headers and rows of cell strings.

    Build it with :func:`format_table`.  ``str(table)`` (and ``repr``) is the aligned text form,
    ``table._repr_html_()`` the HTML form that Jupyter displays (inside a box that
    scrolls sideways when the table is wider than the page).

    Parameters
    ----------
    headers : sequence of str
        The column titles.
    cells : sequence of sequence of str
        The formatted cells, one sequence per row, as many as ``headers``.
    align : sequence of str
        ``"left"`` or ``"right"`` for every column.
    title : str, optional
        A line above the table (the caption of the HTML table).
    """

    def __init__(self, headers: Sequence[str], cells: Sequence[Sequence[str]],
                 align: Sequence[str], title: str | None = None) -> None:
        for name, value in (("headers", headers), ("cells", cells), ("align", align)):
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise TypeError(f"{name} must be a sequence, got {type(value).__name__} {value!r}")
        if title is not None and not isinstance(title, str):
            raise TypeError(f"title must be a string or None, got {type(title).__name__}")
        if not all(isinstance(row, Sequence) and not isinstance(row, str) for row in cells):
            raise TypeError("cells must be a sequence of rows, each a sequence of strings")
        self.headers = tuple(str(h) for h in headers)
        self.cells = tuple(tuple(row) for row in cells)
        self.align = tuple(align)
        self.title = title
        if len(self.align) != len(self.headers) or any(a not in _ALIGNS for a in self.align):
            raise ValueError(f"align must give 'left' or 'right' for each of the "
                             f"{len(self.headers)} columns, got {align!r}")
        for i, row in enumerate(self.cells):
            if len(row) != len(self.headers):
                raise ValueError(f"cells[{i}] has {len(row)} cells, expected {len(self.headers)}")
            if not all(isinstance(c, str) for c in row):
                raise TypeError(f"cells[{i}] must hold strings, got {row!r}")

    def __len__(self) -> int:
        return len(self.cells)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Table):
            return NotImplemented
        return (self.headers, self.cells, self.align, self.title) == (
            other.headers, other.cells, other.align, other.title)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking container semantics: not hashable

    def lines(self) -> list[str]:
        """The text form, line by line (title, headers, a rule of dashes, the rows)."""
        widths = [max(len(h), *(len(row[j]) for row in self.cells)) if self.cells else len(h)
                  for j, h in enumerate(self.headers)]

        def line(values):
            parts = [v.rjust(w) if a == "right" else v.ljust(w)
                     for v, w, a in zip(values, widths, self.align, strict=True)]
            return "  ".join(parts).rstrip()

        out = [] if self.title is None else [self.title]
        out.append(line(self.headers))
        out.append("  ".join("-" * w for w in widths))
        out.extend(line(row) for row in self.cells)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        esc = html.escape
        style = [f' style="text-align: {a}; padding: 0.2em 0.45em"' for a in self.align]
        # the wrapper scrolls sideways on its own, so a wide table never widens a phone's page
        # (focusable, so that a keyboard can scroll it too); cells are padded, so that adjacent
        # numbers never run together where no stylesheet styles the table (JupyterLab, Voila)
        label = f' aria-label="{esc(self.title)}"' if self.title else ' aria-label="table"'
        parts = [f'<div class="dpb-table-wrap" role="region" tabindex="0"{label} '
                 'style="overflow-x: auto; max-width: 100%">',
                 '<table class="dpb-table" style="border-collapse: collapse; '
                 'font-variant-numeric: tabular-nums">']
        if self.title is not None:
            parts.append(f"<caption>{esc(self.title)}</caption>")
        parts.append("<thead><tr>" + "".join(f"<th{s}>{esc(h)}</th>" for h, s in
                                              zip(self.headers, style, strict=True))
                     + "</tr></thead>")
        parts.append("<tbody>")
        for row in self.cells:
            parts.append("<tr>" + "".join(f"<td{s}>{esc(c)}</td>" for c, s in
                                          zip(row, style, strict=True)) + "</tr>")
        parts.append("</tbody></table></div>")
        return "".join(parts)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, bool)


def _scalar(v):
    """A 0-d numpy array (what numpy reductions often return) as its Python scalar."""
    if getattr(v, "ndim", None) == 0 and hasattr(v, "item"):
        return v.item()
    return v


def _formatter(spec, column, floats: str) -> Callable[[object], str]:
    if spec is None:
        def default(v):
            if isinstance(v, numbers.Integral) and not isinstance(v, bool):
                return str(int(v))
            return format(float(v), floats) if _is_number(v) else str(v)
        return default
    if callable(spec):
        def call(v):
            out = spec(v)
            if not isinstance(out, str):
                raise TypeError(f"the format of column {column!r} must return a str, got "
                                f"{type(out).__name__}")
            return out
        return call
    if isinstance(spec, str):
        def fmt(v):
            if isinstance(v, str):
                return v
            if isinstance(v, numbers.Integral) and not isinstance(v, bool):
                v = int(v)  # numpy integers format like Python ones
            elif _is_number(v):
                v = float(v)
            try:
                return format(v, spec)
            except (ValueError, TypeError) as exc:
                raise ValueError(f"format {spec!r} of column {column!r} does not apply to "
                                 f"{v!r}: {exc}") from exc
        return fmt
    raise TypeError(f"formats[{column!r}] must be a format specification (str) or a function, "
                    f"got {type(spec).__name__}")


def _check_columns(columns) -> list:
    if isinstance(columns, str) or not isinstance(columns, Sequence):
        raise TypeError(f"columns must be a sequence of names, got {type(columns).__name__}")
    columns = list(columns)
    if not columns:
        raise ValueError("columns must name at least one column")
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns must be distinct, got {columns!r}")
    return columns


def _row_values(rows, columns: list) -> list[list]:
    """The values of each row (a mapping or a sequence) in the order of ``columns``."""
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__iter__"):
        raise TypeError(f"rows must be a sequence of mappings or sequences, got {type(rows).__name__}")
    values = []
    for i, row in enumerate(rows):
        if isinstance(row, Mapping):
            missing = [c for c in columns if c not in row]
            if missing:
                raise ValueError(f"rows[{i}] has no value for columns {missing!r}")
            values.append([row[c] for c in columns])
        elif isinstance(row, Sequence) and not isinstance(row, str):
            if len(row) != len(columns):
                raise ValueError(f"rows[{i}] has {len(row)} values, expected {len(columns)} "
                                 f"(columns {columns!r})")
            values.append(list(row))
        else:
            raise TypeError(f"rows[{i}] must be a mapping or a sequence, got {type(row).__name__}")
    return values


def format_table(rows: Any, columns: Sequence, formats: Mapping | None = None, *,
                 headers: Mapping | None = None, title: str | None = None,
                 align: Mapping | None = None, floats: str = ".4g") -> Table:
    """Format ``rows`` as a :class:`Table` with the given ``columns``.

    Parameters
    ----------
    rows : iterable of mapping or of sequence
        One row per item: a mapping from column name to value, or a sequence of values in the
        order of ``columns``.
    columns : sequence of str
        The column names, in order (they are also the headers unless ``headers`` renames them).
    formats : mapping, optional
        Column name -> format specification (``".3f"``) or function ``value -> str``.  Other
        columns use ``str`` for integers and text and ``floats`` for other numbers.  Text values
        pass through a format specification unchanged.
    headers : mapping, optional
        Column name -> the title shown for it.
    title : str, optional
        A line above the table.
    align : mapping, optional
        Column name -> ``"left"`` or ``"right"``; by default a column of numbers is right-aligned
        and any other column left-aligned.
    floats : str
        The format specification of the non-integer numbers of the columns without a format
        (default ``".4g"``).

    Returns
    -------
    Table
        Text form ``str(table)``, HTML form ``table._repr_html_()``.

    Raises
    ------
    TypeError
        For rows that are neither mappings nor sequences, a format that is neither a string nor a
        function, or a format function that does not return a string.
    ValueError
        For no columns, duplicate columns, a row of the wrong length or without a column, a key of
        ``formats``/``headers``/``align`` that is not a column, a bad alignment, or a format
        specification that does not apply to a value.
    """
    columns = _check_columns(columns)
    options = {"formats": formats or {}, "headers": headers or {}, "align": align or {}}
    for name, given in options.items():
        if not isinstance(given, Mapping):
            raise TypeError(f"{name} must be a mapping from column name, got {type(given).__name__}")
        unknown = [k for k in given if k not in columns]
        if unknown:
            raise ValueError(f"{name} names columns {unknown!r} that are not in columns {columns!r}")
    bad = {k: v for k, v in options["align"].items() if v not in _ALIGNS}
    if bad:
        raise ValueError(f"align must map columns to 'left' or 'right', got {bad!r}")
    values = _row_values(rows, columns)
    if not isinstance(floats, str):
        raise TypeError(f"floats must be a format specification (str), got {type(floats).__name__}")
    try:
        format(0.5, floats)
    except ValueError as exc:
        raise ValueError(f"floats={floats!r} is not a format specification for numbers: {exc}") from exc
    values = [[_scalar(v) for v in row] for row in values]
    fmts = [_formatter(options["formats"].get(c), c, floats) for c in columns]
    cells = [[f(v) for f, v in zip(fmts, row, strict=True)] for row in values]
    numeric = [bool(values) and all(_is_number(row[j]) for row in values) for j in range(len(columns))]
    aligns = [options["align"].get(c, "right" if num else "left")
              for c, num in zip(columns, numeric, strict=True)]
    names = [str(options["headers"].get(c, c)) for c in columns]
    return Table(names, cells, aligns, title=title)
