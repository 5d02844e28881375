"""`attnkit nbgrader-course DIR`: write an nbgrader course (config, instructor notebook, hidden cases)."""
import sys
from pathlib import Path

from .nbgrader_course import DEFAULT_TIMEOUT, build


def register(sub):
    p = sub.add_parser("nbgrader-course", help="write an nbgrader course directory: the assignments 'attention' "
                                               "(the core) and 'attention_extension'",
                       description="Write DIR/nbgrader_config.py, DIR/source/<assignment>/<assignment>.ipynb and "
                                   "DIR/hidden_tests/<assignment>.json for the assignments attention (steps 1–6) and "
                                   "attention_extension (steps 7 on), and DIR/jupyter/kernels/attnkit-barrier/, the "
                                   "kernel nbgrader runs each notebook in (inside bubblewrap: install it). Then, in "
                                   "DIR: nbgrader generate_assignment "
                                   "attention. See docs/NBGRADER.md.")
    p.add_argument("directory", metavar="DIR", help="the course folder (created if needed)")
    p.add_argument("--course-id", default="attnkit", help="nbgrader's CourseDirectory.course_id (default: attnkit)")
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                   help=f"seconds a notebook cell may run when nbgrader executes it (default: {DEFAULT_TIMEOUT})")
    p.add_argument("--force", action="store_true", help="overwrite the files this command wrote before")
    p.set_defaults(func=run)


def run(args):
    from .cases import public_only_notice

    notice = public_only_notice()
    if notice:
        print(f"attnkit nbgrader-course: {notice}", file=sys.stderr)
    try:
        written = build(args.directory, course_id=args.course_id, timeout=args.timeout, force=args.force)
    except FileExistsError as err:
        print(f"attnkit nbgrader-course: {err}", file=sys.stderr)
        return 1
    lessons = [path for path in written if "lessons" in path.parts]
    for path in written:
        if path not in lessons:
            print(f"wrote {path}")
    for folder in sorted({Path(*path.parts[:path.parts.index("lessons") + 1]) for path in lessons}):
        print(f"wrote {folder}/ (the lessons, released beside the notebook)")
    print(f"next: cd {args.directory} && nbgrader generate_assignment attention "
          "(and, when the class gets there, attention_extension)")
    return 0
