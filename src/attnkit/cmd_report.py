"""`attnkit report RESULTS.jsonl [--html FILE]`: the class report of `attnkit grade --json` lines."""
import json
import sys

from .cli import add_lang_option
from .messages import say

_KEYS = {"score", "max_score", "tests", "diagnoses"}


def register(sub):
    p = sub.add_parser("report", help="class summary of graded submissions: scores, steps, mistakes ranked")
    p.add_argument("results", metavar="RESULTS.jsonl", help="the lines `attnkit grade --json` printed")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained page with plots")
    add_lang_option(p, "the report (the terminal's and the page's)")
    p.set_defaults(func=run)


def read_grades(path):
    """The grade objects of a --json output; ValueError naming the line that is not one."""
    grades = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                grade = json.loads(line)
            except ValueError as err:
                raise ValueError(f"{path}, line {number}: not JSON ({err})") from None
            missing = sorted(_KEYS - set(grade)) if isinstance(grade, dict) else sorted(_KEYS)
            if missing:
                raise ValueError(f"{path}, line {number}: not a grade of `attnkit grade --json` (no {', '.join(missing)})")
            grades.append(grade)
    return grades


def run(args):
    from .grader import class_report, class_report_html
    from .grader.atomic import write_text

    try:
        summary = class_report.summarize(read_grades(args.results))
    except (OSError, ValueError) as err:
        print(f"attnkit report: {err}", file=sys.stderr)
        return 2
    print(class_report.text(summary))
    if args.html:
        write_text(args.html, class_report_html.page(summary))
        print("\n" + say("report.written", path=args.html))
    return 0
