"""The gradebook: one CSV row per submission, a column per step, the total, the diagnoses and the
isolation its code ran under."""
import csv
import io

from .atomic import write_text


def text(graded_list, steps):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["submission", *steps, "score", "max_score", "diagnoses", "isolation"])
    for g in graded_list:
        writer.writerow([g.submission, *(_number(g.steps[m][0]) for m in steps), _number(g.score),
                         _number(g.max_score), " ".join(g.diagnoses), g.isolation])
    return out.getvalue()


def write(path, graded_list, steps):
    write_text(path, text(graded_list, steps))


def _number(x):
    return f"{x:.6g}"
