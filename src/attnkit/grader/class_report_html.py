"""The class report as one self-contained HTML page: inline SVG plots drawn here, no script, no outside file.

Three plots — the score histogram, mean points per step, known mistakes by how many students made
them — each with its own bar colour (the browser test looks for them), and the tables beneath.
"""
import html

from .class_report import ClassSummary

COLOURS = {"histogram": "#1f77b4", "steps": "#2ca02c", "mistakes": "#d62728"}
_W, _ROW, _LABEL = 640, 26, 220  # plot width, bar row height, label column of horizontal bars
e = html.escape


def _rect(x, y, width, height, style):
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{width:.1f}" height="{height:.1f}" {style}/>'


def _text(x, y, text, size, anchor="start"):
    return f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}">{e(text)}</text>'


def _vertical_bars(name, bars, caption):
    """bars: [(label, value)], value ≥ 0, drawn bottom-up."""
    height, base = 220, 190
    top = max((v for _, v in bars), default=0) or 1
    step = (_W - 40) / max(len(bars), 1)

    def bar(k, label, value):
        h, mid = (base - 20) * value / top, 30 + (k + 0.5) * step
        return (_rect(mid - step / 2 + 2, base - h, step - 4, h, f'fill="{COLOURS[name]}"')
                + _text(mid, base + 14, label, 10, "middle") + _text(mid, base - h - 3, f"{value:g}", 10, "middle"))
    return _figure(name, caption, height, [bar(k, *b) for k, b in enumerate(bars)])


def _horizontal_bars(name, bars, caption):
    """bars: [(label, value, full)]: a bar of value out of full, with its frame."""
    top = max((full for _, _, full in bars), default=0) or 1
    span = _W - _LABEL - 60

    def bar(k, label, value, full):
        y = 5 + k * _ROW
        return (_text(_LABEL - 6, y + 15, label, 12, "end")
                + _rect(_LABEL, y + 3, span * full / top, _ROW - 8, 'fill="none" stroke="#999"')
                + _rect(_LABEL, y + 3, span * value / top, _ROW - 8, f'fill="{COLOURS[name]}"')
                + _text(_LABEL + span * full / top + 4, y + 15, f"{value:.3g} / {full:g}", 11))
    return _figure(name, caption, 10 + _ROW * max(len(bars), 1), [bar(k, *b) for k, b in enumerate(bars)])


def _figure(name, caption, height, parts):
    return (f'<figure id="{name}"><figcaption>{e(caption)}</figcaption>'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{height}" viewBox="0 0 {_W} {height}">'
            + "".join(parts) + "</svg></figure>")


def page(summary: ClassSummary, title="attnkit class report"):
    s = summary
    histogram = _vertical_bars("histogram", [(f"{low:g}–{high:g}", n) for low, high, n in s.histogram],
                               f"Scores of {s.count} submissions (mean {s.mean:.1f}, median {s.median:.1f} of {s.max_score:g})")
    steps = _horizontal_bars("steps", [(step, mean, worth) for step, mean, worth in s.steps], "Mean points per step")
    ranked = _horizontal_bars("mistakes", [(m.code, m.students, s.count) for m in s.mistakes],
                              "Known mistakes: students who made each (of all submissions)")
    rows = "".join(f"<tr><td>{m.students}</td><td>{e(m.code)}</td><td>{e(m.summary)}</td><td>{e(m.lesson)}</td></tr>"
                   for m in s.mistakes)
    table = (f"<table><tr><th>students</th><th>mistake</th><th>what it is</th><th>reteach</th></tr>{rows}</table>"
             if s.mistakes else "<p>No known mistake was made.</p>")
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{e(title)}</title><style>'
            "body{font-family:sans-serif;max-width:60em;margin:1em auto}figure{margin:1em 0}"
            "td,th{padding:.2em .6em;text-align:left;vertical-align:top}</style></head><body>\n"
            f"<h1>{e(title)}</h1>\n{histogram}\n{steps}\n{ranked}\n<h2>Mistakes to reteach</h2>\n{table}\n</body></html>\n")
