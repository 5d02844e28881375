"""The class report as one self-contained HTML page: inline SVG plots drawn here, no script, no outside file.

Four plots — the score histogram, why students lost points, the known mistakes by how many students
made them, and each step's spread of points — each bar labelled with its count and scaled to the
largest count of its plot (not to the class size, so 4 of 200 is still a bar), each plot with its own
colour (the browser test looks for them). Beneath them, who needs help, by name: the students of each
known mistake, those whose code raised or ran out of time, those who lost points with no known
diagnosis (with what their failing tests check, one row per step and concepts), and those who left steps
unwritten. Every name is learner text, escaped; every text the page words is in attnkit/messages.py.
"""
import html
import re

from ..messages import say
from attnkit_runtime.i18n import language
from .class_report import ClassSummary, spread_words, tally_text
from .terminal import printable

COLOURS = {"histogram": "#1f77b4", "groups": "#9467bd", "mistakes": "#d62728", "steps": "#2ca02c"}
_SPREAD_COLOURS = ("#d9d9d9", "#ff7f0e", "#bcbd22", COLOURS["steps"])  # none, under half, half or more, full
_W, _ROW, _LABEL = 720, 26, 240  # plot width, bar row height, label column of horizontal bars


def e(text):
    return html.escape(printable(str(text), keep=""))


def _rect(x, y, width, height, fill):
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{fill}"/>'


def _text(x, y, text, size, anchor="start"):
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}">{e(text)}</text>'


def _vertical_bars(name, bars, caption):
    """bars: [(label, count)], drawn bottom-up, scaled to the largest count."""
    height, base = 220, 190
    top = max((v for _, v in bars), default=0) or 1
    step = (_W - 40) / max(len(bars), 1)

    def bar(k, label, value):
        h, mid = (base - 20) * value / top, 30 + (k + 0.5) * step
        return (_rect(mid - step / 2 + 2, base - h, step - 4, h, COLOURS[name])
                + _text(mid, base + 14, label, 10, "middle") + _text(mid, base - h - 3, f"{value:g}", 10, "middle"))
    return _figure(name, caption, height, [bar(k, *b) for k, b in enumerate(bars)])


def _horizontal_bars(name, bars, caption):
    """bars: [(label, count)], scaled to the largest count, each labelled with its count."""
    top = max((v for _, v in bars), default=0) or 1
    span = _W - _LABEL - 60

    def bar(k, label, value):
        y = 5 + k * _ROW
        return (_text(_LABEL - 6, y + 15, label, 12, "end") + _rect(_LABEL, y + 3, span * value / top, _ROW - 8,
                                                                     COLOURS[name])
                + _text(_LABEL + span * value / top + 4, y + 15, f"{value:g}", 11))
    return _figure(name, caption, 10 + _ROW * max(len(bars), 1), [bar(k, *b) for k, b in enumerate(bars)])


def _spread_bars(summary):
    """One bar per step split into the students of each SPREAD bucket, with a legend."""
    span, count = _W - _LABEL - 20, summary.count

    def row(k, p):
        y, x = 30 + k * _ROW, float(_LABEL)
        parts = [_text(_LABEL - 6, y + 15, say("report.plot.step_mean", step=p.step, mean=p.mean, worth=p.worth),
                       12, "end")]
        for n, colour in zip(p.counts, _SPREAD_COLOURS):
            width = span * n / count
            parts.append(_rect(x, y + 3, width, _ROW - 8, colour))
            if n and width > 18:
                parts.append(_text(x + width / 2, y + 15, f"{n}", 11, "middle"))
            x += width
        return "".join(parts)
    legend = "".join(_rect(_LABEL + 120 * k, 6, 12, 12, colour) + _text(_LABEL + 120 * k + 16, 16, label, 11)
                     for k, (label, colour) in enumerate(zip(spread_words(), _SPREAD_COLOURS)))
    return _figure("steps", say("report.plot.steps", count=count), 36 + _ROW * len(summary.steps),
                   [legend] + [row(k, p) for k, p in enumerate(summary.steps)])


def _figure(name, caption, height, parts):
    return (f'<figure id="{name}"><figcaption>{e(caption)}</figcaption>'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height}" viewBox="0 0 {_W} {height}">'
            + "".join(parts) + "</svg></figure>")


def _breakable(text):
    """Escaped `text` that may wrap after each `/` and `#` (a lesson path is one long word otherwise)."""
    return "".join(e(piece) + ("<wbr>" if piece in ("/", "#") else "") for piece in re.split(r"([/#])", str(text)))


def _table(columns, rows, empty):
    """An HTML table of text rows (escaped here) under the headers of `columns` (report.column.* keys), or the
    sentence report.empty.`empty` when there is none."""
    if not rows:
        return f"<p>{e(say(f'report.empty.{empty}'))}</p>"
    head = "".join(f"<th>{e(say(f'report.column.{c}'))}</th>" for c in columns)
    return f"<table><tr>{head}</tr>" + "".join("<tr>" + "".join(f"<td>{_breakable(c)}</td>" for c in row) + "</tr>"
                                             for row in rows) + "</table>"


def _help_tables(s):
    tables = {
        "mistakes": _table(("students", "mistake", "who", "what", "reteach"),
                           [(m.students, m.code, ", ".join(m.who), m.summary, m.lesson) for m in s.mistakes], "mistakes"),
        "stopped": _table(("student", "score", "stopped"),
                          [(st.who, f"{st.score:.4g}", say("report.semicolon").join(f"{step}: {tally_text(t)}" for step, t in st.steps))
                           for st in s.stopped], "stopped"),
        "unexplained": _table(("students", "step", "concepts", "who"),
                              [(len(u.who), u.step, say("report.semicolon").join(u.concepts), ", ".join(u.who))
                               for u in s.unexplained_entries], "unexplained"),
        "not_written": _table(("student", "not_written"), [(name, ", ".join(steps)) for name, steps in s.not_written],
                              "not_written")}
    return "\n".join(f"<h2>{e(say(f'report.heading.{part}'))}</h2>\n{table}" for part, table in tables.items())


def page(summary: ClassSummary):
    s, title = summary, say("report.title")
    histogram = _vertical_bars("histogram", [(f"{low:g}–{high:g}", n) for low, high, n in s.histogram],
                               say("report.plot.scores", count=s.count, mean=s.mean, median=s.median, top=s.max_score))
    groups = _horizontal_bars("groups", s.groups, say("report.plot.groups"))
    ranked = _horizontal_bars("mistakes", [(m.code, m.students) for m in s.mistakes], say("report.plot.mistakes"))
    return (f'<!DOCTYPE html>\n<html lang="{language()}"><head><meta charset="utf-8"><title>{e(title)}</title><style>'
            "body{font-family:sans-serif;max-width:60em;margin:1em auto}figure{margin:1em 0}"
            "table{border-collapse:collapse;width:100%}td,th{padding:.2em .6em;text-align:left;vertical-align:top;"
            "border-bottom:1px solid #ddd;overflow-wrap:break-word}th{white-space:nowrap}</style></head><body>\n"
            f"<h1>{e(title)}</h1>\n{histogram}\n{groups}\n{ranked}\n{_spread_bars(s)}\n{_help_tables(s)}\n"
            "</body></html>\n")
