"""The gradebook: one CSV row per submission — the student, a column per step, the total, the diagnoses
and the isolation its code ran under.

`student` is the submission's folder name, or the roster's student_id when a roster maps it; with a
roster a `name` column follows (see students.py for the roster's columns).

Folder names and roster fields are learner text, and a spreadsheet runs a cell that starts with `=`,
`+`, `-` or `@` as a formula. As OWASP recommends, every text cell is quoted (its `"` doubled, so a
`,` or `;` in it starts no cell) and one that would start a formula (after any leading spaces) gets
a leading `'`; control and format characters are written as visible escapes (`\\t`, `\\r`, `\\n`,
`\\u202e`), so no cell starts with TAB, CR or LF either. Points are bare numbers.
"""
import csv
import io

from .atomic import write_text
from .students import student
from .terminal import printable

FORMULA_START = ("=", "+", "-", "@")  # and TAB, CR, LF: printable() has made them escapes


def text(graded_list, steps, roster=None):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    names = ["name"] if roster is not None else []
    writer.writerow(["student", *names, "submission", *steps, "score", "max_score", "diagnoses", "isolation"])
    for g in graded_list:
        who = student(g.submission, roster)
        cells = [who.id, *([who.name] if names else []), g.submission]
        writer.writerow([*map(_text, cells), *(_number(g.steps[m][0]) for m in steps), _number(g.score),
                         _number(g.max_score), _text(" ".join(g.diagnoses)), _text(g.isolation)])
    return out.getvalue()


def write(path, graded_list, steps, roster=None):
    write_text(path, text(graded_list, steps, roster))


def _text(value):
    """A cell a spreadsheet shows as the text `value`, never runs."""
    value = printable(value, keep="")
    return "'" + value if value.lstrip(" ").startswith(FORMULA_START) else value


def _number(x):
    """`x` to 6 significant digits, as an int when whole (written `100`, not `100.0`): unquoted by the writer."""
    rounded = float(f"{x:.6g}")
    return int(rounded) if rounded.is_integer() else rounded
