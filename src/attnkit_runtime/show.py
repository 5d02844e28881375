"""Labelled text grids of visibility tables, masks and weights, for the terminal and for notebooks.

Standard library, numpy and the portable `messages` (its corner label is in the learner's language)
only: the renderer is the same in a student's copy without solutions/. Columns are padded by display width, so CJK token labels (two columns each)
line up with ASCII ones. In a notebook: `from attnkit_runtime.show import grid; print(grid(P, tokens, tokens))`; the
student release ships this file as `attnkit_runtime/show.py`.
"""
import unicodedata

import numpy as np

from .messages import say

MARK = "*"  # after a cell that differs from the expected grid
QUERY_BY_KEY = ("visible", "M", "mask", "P", "kq", "kq_soft_max", "scaled", "scores")  # rows queries, columns keys
TOKEN_BY_FEATURE = ("O", "kqv", "Q", "K", "V", "out", "merged", "heads")  # rows tokens (queries), columns features


def corner(name):
    """What the rows and columns of a result's part `name` are, as a grid's corner label says it."""
    if name in QUERY_BY_KEY:
        return say("show.corner_query_key")
    return say("show.corner_token_feature" if name in TOKEN_BY_FEATURE else "show.corner_row_column")


def display_width(text):
    """Columns `text` takes in a terminal: 2 for wide (CJK) characters, 0 for combining marks."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in str(text))


def _pad(text, width, left=False):
    gap = " " * max(width - display_width(text), 0)
    return text + gap if left else gap + text


def cell_text(value, precision=4):
    """One cell: True/False for a table, 0 and -inf as such, else `precision` decimals."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    value = float(value)
    if np.isinf(value):
        return "-inf" if value < 0 else "inf"
    if np.isnan(value):
        return "nan"
    if value == 0:
        return "0"
    return f"{value:.{precision}f}"


def _labels(given, count, name):
    if given is None:
        return [str(k) for k in range(count)]
    labels = [str(label) for label in given]
    if len(labels) != count:
        raise ValueError(f"{name} must name each of the {count} {name.split('_')[0]}s, got {len(labels)} labels")
    return labels


def grid(table, row_labels=None, col_labels=None, title="", differs=None, precision=4, corner=None):
    """The text of a 2-D `table` [rows, cols] as a labelled grid.

    `row_labels` / `col_labels` default to 0, 1, …; `differs`, a bool array of the table's shape,
    marks those cells with MARK. A 1-D table is one row; more axes give one grid per leading index.
    `corner` says what the rows and columns are (default: queries by keys).
    """
    corner = say("show.corner_query_key") if corner is None else corner
    arr = np.asarray(table)
    if arr.ndim == 0:
        arr = arr.reshape(1, 1)
    if arr.ndim == 1:
        arr = arr[None, :]
    marks = np.zeros(arr.shape, dtype=bool) if differs is None else np.broadcast_to(np.asarray(differs, bool), arr.shape)
    if arr.ndim > 2:
        return "\n\n".join(grid(arr[index], row_labels, col_labels,
                                f"{title} [{', '.join(map(str, index))}, :, :]".strip(), marks[index], precision,
                                corner)
                           for index in np.ndindex(arr.shape[:-2]))
    rows = _labels(row_labels, arr.shape[0], "row_labels")
    cols = _labels(col_labels, arr.shape[1], "col_labels")
    cells = [[cell_text(v, precision) + (MARK if m else " " if marks.any() else "") for v, m in zip(line, mark_line)]
             for line, mark_line in zip(arr.tolist(), marks.tolist())]
    first = max([display_width(corner)] + [display_width(r) for r in rows])
    widths = [max([display_width(c)] + [display_width(line[k]) for line in cells]) for k, c in enumerate(cols)]
    lines = [title] if title else []
    lines.append("  ".join([_pad(corner, first, left=True)] + [_pad(c, w) for c, w in zip(cols, widths)]))
    for label, line in zip(rows, cells):
        lines.append("  ".join([_pad(label, first, left=True)] + [_pad(c, w) for c, w in zip(line, widths)]))
    return "\n".join(lines)


def beside(*blocks, gap=4):
    """Text blocks side by side (each padded to its own display width), top-aligned."""
    split = [block.split("\n") for block in blocks]
    widths = [max(display_width(line) for line in lines) for lines in split]
    height = max(len(lines) for lines in split)
    rows = []
    for k in range(height):
        parts = [_pad(lines[k] if k < len(lines) else "", w, left=True) for lines, w in zip(split, widths)]
        rows.append((" " * gap).join(parts).rstrip())
    return "\n".join(rows)
