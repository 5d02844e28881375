"""The feedback as one self-contained HTML page (no script, no outside file): per step its points, what is
not written yet in one line, each failure with its expected and got cells as two tables (the cells that
differ outlined, attention weights `P` shaded as a heat map), and the step's likely mistakes, hints and
lessons once each (feedback.steps).

Every text is escaped (html.escape, after terminal.printable makes control and format characters
visible): the student's name and id, what the code raised and printed are the learner's. The tables'
cells are numbers this module formats, their colours computed from them. Tables are drawn for public
tests only: a hidden test's expected values must stay in the grader (docs/SECURITY.md), and the page
says so where a hidden test failed.
"""
import html
import math

from attnkit_runtime.messages import say
from .feedback import found_in, header, heading, hidden_line, steps, title
from .terminal import printable

_STYLE = ("body{font-family:sans-serif;max-width:62em;margin:2em auto;padding:0 1em}"
          "td,th{padding:.2em .8em;text-align:left}pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}"
          ".pair{display:flex;flex-wrap:wrap;gap:2em;margin:.5em 0}.pair b{display:block;margin-bottom:.2em}"
          "table.g{border-collapse:collapse;font:12px monospace}"
          "table.g td{border:1px solid #ccc;padding:2px 5px;text-align:right;min-width:2.6em}"
          "table.g td.d{outline:3px solid #d62728;outline-offset:-3px;font-weight:bold}"
          "table.g td.t{background:#cfe8cf}.notes li{margin:.2em 0}.cap{color:#444;font-size:90%}")


def e(text):
    return html.escape(printable(text))


def _cell_text(value):
    if isinstance(value, bool):
        return "T" if value else "F"
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.3g}"


def _cell(value, differs, heat):
    classes = ["d"] if differs else []
    style = ""
    if isinstance(value, bool):
        classes += ["t"] if value else []
    elif heat and math.isfinite(value):
        shade = min(max(value, 0.0), 1.0)
        style = f' style="background:rgba(31,119,180,{shade:.2f});color:{"#fff" if shade > 0.55 else "#000"}"'
    kind = f' class="{" ".join(classes)}"' if classes else ""
    return f"<td{kind}{style}>{_cell_text(value)}</td>"


def _table(rows, differ, heat):
    return '<table class="g">' + "".join(
        "<tr>" + "".join(_cell(v, d, heat) for v, d in zip(row, marks)) + "</tr>"
        for row, marks in zip(rows, differ)) + "</table>"


def grids(grid):
    """Expected and got side by side, with what they show."""
    part = f"{grid['label']}{grid['where']}"
    caption = say("feedback.grid_caption", part=part, shape=tuple(grid["shape"]))
    if grid["heat"]:
        caption += " " + say("feedback.heat_caption")
    sides = "".join(f'<div><b>{e(say(word))}</b>{_table(grid[side], grid["differ"], grid["heat"])}</div>'
                    for word, side in (("compare.expected", "expected"), ("compare.got", "got")))
    return f'<div class="pair">{sides}</div><p class="cap">{e(caption)}</p>'


def page(graded, student, cases, reveal_hidden=False):
    """The feedback page; `cases` maps test names to catalogue cases."""
    name = title(graded, student, lambda text: printable(text, keep=""))
    shown = steps(graded, cases, reveal_hidden)
    rows = "".join(f"<tr><td>{e(s.name)}</td><td>{s.score:.4g} / {s.worth:g}</td><td>{s.not_passed}</td></tr>"
                   for s in shown)
    body = [f"<h1>{e(name)}</h1>", *(f"<p>{e(line)}</p>" for line in found_in(graded)),
            "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header()) + f"</tr>{rows}</table>"]
    if any(s.hidden for s in shown):
        body.append(f'<p class="cap">{e(say("feedback.grids_public_only"))}</p>')
    for s in shown:
        if not s.not_passed:
            continue
        body.append(f'<h2 id="{e(s.module)}">{e(s.name)} — {s.score:.4g} / {s.worth:g}</h2>')
        if s.unwritten:
            body.append(f"<p>{e(s.unwritten)}</p>")
        for f in (f for f in s.failures if f.full):
            body.append(f"<h3>{e(heading(f))}</h3>" + (grids(f.grid) if f.grid else "") + f"<pre>{e(f.text)}</pre>")
        hidden = [f"<li>{e(hidden_line(f))}</li>" for f in s.failures if not f.full]
        if hidden:
            body.append(f'<ul class="hidden">{"".join(hidden)}</ul>')
        if s.notes:
            body.append('<ul class="notes">' + "".join(f"<li>{e(note)}</li>" for note in s.notes) + "</ul>")
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{e(name)}</title><style>{_STYLE}</style>'
            "</head><body>\n" + "\n".join(body) + "\n</body></html>\n")
