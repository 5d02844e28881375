"""The gradebook: one CSV row per student — who, whether graded, a column per step, the total, the
diagnoses and the isolation its code ran under (a word: students.py and sandbox_types.Isolation).

Without a roster, one row per submission in the order given: `student` is its folder name. With a
roster, the roster's students first, in its order, each with the roster's `student_id` (in
`student`), `name` and `email`: one row per submission matched to them, or one row `missing` (step
and score cells blank) when none was; then one row per submission no row matched, its `student`
blank (no id to import into a wrong student) and its `roster` cell saying why (`unrostered`,
`ambiguous`). `roster` says how each row was matched (students.Match), `status` whether it was
graded (`Status`).

Folder names and roster fields are learner text, and a spreadsheet runs a cell that starts with `=`,
`+`, `-` or `@` as a formula. As OWASP recommends, every text cell is quoted (its `"` doubled, so a
`,` or `;` in it starts no cell) and one that would start a formula (after any leading spaces) gets
a leading `'`; control and format characters are written as visible escapes (`\\t`, `\\r`, `\\n`,
`\\u202e`), so no cell starts with TAB, CR or LF either. Points are bare numbers.
"""
import csv
import io
from enum import Enum

from .atomic import write_text
from .students import assign
from .terminal import printable

FORMULA_START = ("=", "+", "-", "@")  # and TAB, CR, LF: printable() has made them escapes


class Status(str, Enum):
    """Whether a gradebook row's student was graded."""

    GRADED = "graded"
    NOT_GRADED = "not_graded"  # its submission could not be graded at all (the reason is in every test)
    MISSING = "missing"  # a roster student with no submission

    def __str__(self):
        return self.value


def text(graded_list, steps, roster=None, students=None):
    """The gradebook of `graded_list` (Graded, in the order given); `students`: {submission path: Student}
    (students.assign of the run's submissions, so that duplicates are seen), made here when None."""
    students = students or assign([g.submission for g in graded_list], roster)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    who_columns = ["student", "name", "email", "status", "roster"] if roster is not None else ["student", "status"]
    writer.writerow([*who_columns, "submission", "found_in", *steps, "score", "max_score", "diagnoses", "isolation"])
    if roster is None:
        for g in graded_list:
            writer.writerow(_row([students[g.submission].id, _status(g)], g, steps))
        return out.getvalue()
    by_id = {}
    for g in graded_list:
        who = students[g.submission]
        by_id.setdefault(who.id if who.in_roster else None, []).append((g, who))
    for row in roster.rows:
        mine = by_id.get(row.student_id, [])
        for g, who in mine:
            writer.writerow(_row([row.student_id, row.name, row.email, _status(g), who.match], g, steps))
        if not mine:
            writer.writerow([*map(_text, (row.student_id, row.name, row.email, Status.MISSING, "")),
                             *[""] * (len(steps) + 6)])
    for g, who in by_id.get(None, []):
        writer.writerow(_row(["", "", "", _status(g), who.match], g, steps))
    return out.getvalue()


def write(path, graded_list, steps, roster=None, students=None):
    write_text(path, text(graded_list, steps, roster, students))


def _status(graded):
    return Status.NOT_GRADED if graded.problem else Status.GRADED


def _row(who, g, steps):
    """The cells of one graded row: `who` (the student's cells), then the submission's."""
    return [*map(_text, [*who, g.submission, g.found_in]), *(_number(g.steps[m][0]) for m in steps), _number(g.score),
            _number(g.max_score), _text(" ".join(g.diagnoses)), _text(g.isolation)]


def _text(value):
    """A cell a spreadsheet shows as the text `value`, never runs."""
    value = printable(str(value), keep="")
    return "'" + value if value.lstrip(" ").startswith(FORMULA_START) else value


def _number(x):
    """`x` to 6 decimals, as the grading JSON rounds it (85.555556, not 85.5556), as an int when whole (written
    `100`, not `100.0`): unquoted by the writer."""
    rounded = round(float(x), 6)
    return int(rounded) if rounded.is_integer() else rounded
