"""dpb.tables: one formatting helper for the chapters' tables (text for nbval, HTML for the site)."""

from __future__ import annotations

import math
from html.parser import HTMLParser

import numpy as np
import pytest

from dpb.tables import Table, format_table


class _Cells(HTMLParser):
    """Collect the text of every th/td cell, row by row, and the caption."""

    def __init__(self):
        super().__init__()
        self.rows, self.caption, self._in = [], None, None
        self.tables = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables += 1
        if tag == "tr":
            self.rows.append([])
        if tag in ("th", "td", "caption"):
            self._in, self._buf = tag, ""

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            self.rows[-1].append(self._buf)
            self._in = None
        if tag == "caption":
            self.caption, self._in = self._buf, None

    def handle_data(self, data):
        if self._in:
            self._buf += data


ROWS = [("DP-IMED", 202.84, 46), ("IMED", 52.8, 100000)]


def test_text_form_is_aligned_and_exact():
    t = format_table(ROWS, ["policy", "regret", "phases"], formats={"regret": ".1f"})
    assert str(t).splitlines() == [
        "policy   regret  phases",
        "-------  ------  ------",
        "DP-IMED   202.8      46",
        "IMED       52.8  100000",
    ]
    assert repr(t) == str(t)  # what a notebook's text/plain output (and nbval) sees


def test_every_line_has_the_same_column_boundaries():
    rows = [{"x": x, "name": "a" * (i + 1), "p": 10.0 ** -i} for i, x in enumerate([1, 22, 333])]
    lines = str(format_table(rows, ["name", "x", "p"], {"p": ".3e"})).splitlines()
    rule = lines[1]
    starts = [i for i, ch in enumerate(rule) if ch == "-" and (i == 0 or rule[i - 1] == " ")]
    assert starts == [0, 6, 11]  # widths 4 ("name"), 3 ("333"), 9 ("1.000e+00"), two spaces apart
    assert lines[2:] == ["a       1  1.000e+00", "aa     22  1.000e-01", "aaa   333  1.000e-02"]


def test_mappings_and_sequences_give_the_same_table():
    cols = ["policy", "regret", "phases"]
    as_maps = [dict(zip(cols, r, strict=True)) for r in ROWS]
    assert format_table(as_maps, cols) == format_table(ROWS, cols)


def test_defaults_numpy_scalars_and_specials():
    rows = [(np.int64(3), np.float64(1 / 3), "x", -math.inf), (10, 2.5e-7, "long text", math.nan)]
    t = format_table(rows, ["n", "v", "s", "log p"], formats={"log p": ".2f"})
    assert t.cells == (("3", "0.3333", "x", "-inf"), ("10", "2.5e-07", "long text", "nan"))
    assert t.align == ("right", "right", "left", "right")


def test_zero_dimensional_arrays_are_numbers():
    t = format_table([(np.array(0.25), np.array(3))], ["p", "n"], {"p": ".2f"})
    assert t.cells == (("0.25", "3"),) and t.align == ("right", "right")


def test_floats_sets_the_default_of_the_columns_without_a_format():
    t = format_table([(0.123456, 2, 0.5)], ["a", "n", "b"], {"b": ".1%"}, floats=".2f")
    assert t.cells == (("0.12", "2", "50.0%"),)


def test_callable_format_headers_title_and_align():
    t = format_table([(0.5, 1e6)], ["eps", "T"], {"T": lambda v: f"1e{round(math.log10(v))}"},
                     headers={"eps": "ε"}, title="one row", align={"T": "left"})
    assert str(t).splitlines() == ["one row", "  ε  T", "---  ---", "0.5  1e6"]


def test_html_form_holds_the_same_cells_escaped():
    t = format_table([("a<b", 1.25), ("c&d", -2.0)], ["name", "value"], {"value": "+.2f"},
                     title="x < y")
    html = t._repr_html_()
    assert "a&lt;b" in html and "c&amp;d" in html and "<b" not in html.replace("<body", "")
    parser = _Cells()
    parser.feed(html)
    assert parser.tables == 1 and parser.caption == "x < y"
    assert parser.rows == [["name", "value"], ["a<b", "+1.25"], ["c&d", "-2.00"]]
    # aligned as the column says, and padded: adjacent cells never run together ("0.3000.700")
    assert 'style="text-align: right; padding: 0.2em 0.45em">+1.25' in html
    assert 'style="text-align: left; padding: 0.2em 0.45em">a&lt;b' in html
    # a wide table scrolls inside its own box instead of widening the page (phone layout), and a
    # keyboard can scroll it (a focusable region named after the table's title)
    assert html.startswith('<div class="dpb-table-wrap" role="region" tabindex="0" aria-label="x &lt; y" '
                           'style="overflow-x: auto; max-width: 100%">')
    assert html.endswith("</table></div>")


def test_empty_rows_give_headers_only():
    t = format_table([], ["a", "bb"])
    assert str(t).splitlines() == ["a  bb", "-  --"] and len(t) == 0


def test_deterministic():
    rows = [(i, i / 7, f"r{i}") for i in range(20)]
    a = format_table(rows, ["i", "v", "s"], {"v": ".6f"})
    b = format_table(list(rows), ["i", "v", "s"], {"v": ".6f"})
    assert str(a) == str(b) and a._repr_html_() == b._repr_html_()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"rows": [(1, 2)], "columns": []}, ValueError, "at least one column"),
        ({"rows": [(1, 2)], "columns": "ab"}, TypeError, "columns"),
        ({"rows": [(1, 2)], "columns": ["a", "a"]}, ValueError, "distinct"),
        ({"rows": [(1,)], "columns": ["a", "b"]}, ValueError, r"rows\[0\] has 1 values"),
        ({"rows": [{"a": 1}], "columns": ["a", "b"]}, ValueError, "no value for columns"),
        ({"rows": [3], "columns": ["a"]}, TypeError, "mapping or a sequence"),
        ({"rows": [(1,)], "columns": ["a"], "formats": {"b": ".1f"}}, ValueError, "not in columns"),
        ({"rows": [(1,)], "columns": ["a"], "formats": {"a": 3}}, TypeError, "format specification"),
        ({"rows": [(1.5,)], "columns": ["a"], "formats": {"a": "d"}}, ValueError, "does not apply"),
        ({"rows": [(1,)], "columns": ["a"], "formats": {"a": lambda v: v}}, TypeError, "return a str"),
        ({"rows": [(1,)], "columns": ["a"], "align": {"a": "centre"}}, ValueError, "'left' or 'right'"),
        ({"rows": [(1,)], "columns": ["a"], "floats": "d"}, ValueError, "floats="),
        ({"rows": [(1,)], "columns": ["a"], "floats": 3}, TypeError, "floats must be"),
    ],
)
def test_bad_input_is_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        format_table(**kwargs)


def test_table_checks_its_shape():
    with pytest.raises(ValueError, match=r"cells\[0\] has 1 cells"):
        Table(["a", "b"], [["x"]], ["left", "left"])
    with pytest.raises(ValueError, match="align"):
        Table(["a"], [["x"]], ["middle"])
