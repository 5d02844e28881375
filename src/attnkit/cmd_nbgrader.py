"""`attnkit nbgrader-course DIR`: write an nbgrader course (config, instructor notebook, hidden cases)."""
import sys
from pathlib import Path

from attnkit_runtime.i18n import LANGUAGES
from . import manifest
from .nbgrader_course import DEFAULT_TIMEOUT, build
from .nbgrader_course.notebook import TRACKS
from .nbgrader_course.runtime_folder import FOLDER

FOLDERS = {"lessons": "the lessons, released beside the notebook",
           FOLDER: "the checks the notebook imports, released beside it"}  # printed once per folder, not per file


def register(sub):
    p = sub.add_parser("nbgrader-course", help="write an nbgrader course directory: an assignment per track, "
                                               f"{_assignments()}",
                       description="Write DIR/nbgrader_config.py, DIR/source/<assignment>/<assignment>.ipynb (with "
                                   "the folders lessons/ and attnkit_runtime/ beside it) and "
                                   f"DIR/hidden_tests/<assignment>.json for the assignments {_assignments()}, "
                                   "and DIR/jupyter/kernels/attnkit-barrier/, the "
                                   "kernel nbgrader runs each notebook in (inside bubblewrap: install it). Then, in "
                                   "DIR: nbgrader generate_assignment "
                                   "attention. See docs/NBGRADER.md.")
    p.add_argument("directory", metavar="DIR", help="the course folder (created if needed)")
    p.add_argument("--course-id", default="attnkit", help="nbgrader's CourseDirectory.course_id (default: attnkit)")
    p.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT,
                   help=f"seconds a notebook cell may run when nbgrader executes it (default: {DEFAULT_TIMEOUT})")
    p.add_argument("--force", action="store_true", help="overwrite the files this command wrote before")
    p.add_argument("--lang", choices=LANGUAGES, default=None, dest="handout_lang",  # not the CLI's own --lang
                   help="make the notebooks in one language: their Markdown in it, and the checks' messages in it "
                        "whatever the student's locale (ATTNKIT_LANG still switches). Default: both languages, "
                        "English then Chinese, the messages following ATTNKIT_LANG or the locale")
    p.set_defaults(func=run)


def _assignments():
    """ "attention (steps 1–6), attention_extension (steps 7–9), …": each track's assignment and steps."""
    return ", ".join(f"{name} (steps {manifest.steps(track)[0].number}–{manifest.steps(track)[-1].number})"
                     for name, track in TRACKS.items())


def run(args):
    from .cases import public_only_notice

    notice = public_only_notice()
    if notice:
        print(f"attnkit nbgrader-course: {notice}", file=sys.stderr)
    try:
        written = build(args.directory, course_id=args.course_id, timeout=args.timeout, force=args.force,
                        lang=args.handout_lang)
    except FileExistsError as err:
        print(f"attnkit nbgrader-course: {err}", file=sys.stderr)
        return 1
    in_folders = {path: name for path in written for name in FOLDERS if name in path.parts}
    for path in written:
        if path not in in_folders:
            print(f"wrote {path}")
    for folder, name in sorted({(Path(*path.parts[:path.parts.index(name) + 1]), name) for path, name in in_folders.items()}):
        print(f"wrote {folder}/ ({FOLDERS[name]})")
    first, *later = TRACKS
    print(f"next: cd {args.directory} && nbgrader generate_assignment {first} "
          f"(and, when the class gets there, {' or '.join(later)})")
    return 0
