"""The gradebook: one CSV row per submission — the student, a column per step, the total, the diagnoses
and the isolation its code ran under.

`student` is the submission's folder name, or the roster's student_id when a roster maps it; with a
roster a `name` column follows (see students.py for the roster's columns).
"""
import csv
import io

from .atomic import write_text
from .students import student


def text(graded_list, steps, roster=None):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = ["name"] if roster is not None else []
    writer.writerow(["student", *names, "submission", *steps, "score", "max_score", "diagnoses", "isolation"])
    for g in graded_list:
        who = student(g.submission, roster)
        writer.writerow([who.id, *([who.name] if names else []), g.submission,
                         *(_number(g.steps[m][0]) for m in steps), _number(g.score), _number(g.max_score),
                         " ".join(g.diagnoses), g.isolation])
    return out.getvalue()


def write(path, graded_list, steps, roster=None):
    write_text(path, text(graded_list, steps, roster))


def _number(x):
    return f"{x:.6g}"
