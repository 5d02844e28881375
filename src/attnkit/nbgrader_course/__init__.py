"""Write an nbgrader course for the kit: config, the instructor's notebook and the hidden cases.

    DIR/nbgrader_config.py                 per-cell timeout, deleted test cells put back, course id,
                                           the feedback page's template
    DIR/source/attention/attention.ipynb   the instructor's notebook of the core, steps 1–6 (notebook.py)
    DIR/source/attention/lessons/…         the kit's lessons, released beside the notebook it links them from
    DIR/source/attention/attnkit_runtime/  the learner runtime the checks cell imports, and data/attention.json,
                                           the public checks (runtime_folder.py)
    DIR/hidden_tests/attention.json        the hidden cases, read only by the test cells at grading
    DIR/source/attention_extension/…, DIR/hidden_tests/attention_extension.json
                                           the same for the extension (steps 7–9), a separate assignment;
    DIR/source/attention_modern/…          and for the modern track (steps 10–13), another (notebook.TRACKS)
    DIR/feedback_templates/attnkit_feedback.html.j2   the feedback page: steps named, CJK fonts (feedback_page.py)
    DIR/jupyter/kernels/attnkit-barrier/kernel.json    the kernel nbgrader runs notebooks in: ipykernel inside
                                           bwrap, only the notebook's own folder writable (attnkit/nbgrader_kernel.py)

The hidden cases sit outside source/, so nbgrader copies them into no release, no autograded
folder and no feedback; see docs/NBGRADER.md.
"""
import hashlib
import json
from pathlib import Path

from ..paths import LESSONS_DIR
from .. import nbgrader_kernel as barrier
from . import feedback_page, runtime_folder, texts
from .notebook import ASSIGNMENT as ASSIGNMENT, TRACKS, hidden_cases, source_notebook, steps_data  # ASSIGNMENT re-exported: the core assignment's name
from attnkit_runtime.i18n import HANDOUT_LANGUAGE, check_language
from attnkit_runtime.notebook import COURSE_CONFIG, HIDDEN_DIR

DEFAULT_TIMEOUT = 30


def config_text(course_id, timeout):
    return f'''"""nbgrader configuration of the attnkit course (written by `attnkit nbgrader-course`)."""
import os
import sys

c = get_config()  # noqa: F821  (nbgrader provides get_config)

# nbgrader starts `alembic` by name: find the one installed beside this Python, so that
# `.venv/bin/nbgrader …` works without activating the virtualenv.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

c.CourseDirectory.course_id = {course_id!r}

# Each notebook runs in the course's kernel {barrier.KERNEL_NAME!r} (jupyter/kernels/ beside this file):
# ipykernel inside bubblewrap, where it can write only its own folder (autograded/<student>/<assignment>/),
# so that no notebook changes the hidden tests, the course files or another student's submission. When
# bwrap cannot build that sandbox the kernel does not start and nbgrader records an error for the student.
# To grade without the sandbox anyway (docs/NBGRADER.md says what a notebook can then do), delete this line.
c.Execute.kernel_name = {barrier.KERNEL_NAME!r}
kernels = os.path.join(os.path.dirname(os.path.abspath(__file__)), {barrier.JUPYTER_DIR!r})
os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [kernels, os.environ.get("JUPYTER_PATH")]))

# A cell that runs longer than this (an endless loop in a submission) is interrupted and fails;
# the cells after it still run.
c.Execute.timeout = {timeout}
c.ExecutePreprocessor.timeout = {timeout}

# nbgrader logs one "Copying … -> …" line per file it copies: none for the lessons (most of the files).
from attnkit.nbgrader_log import without_lesson_copies
without_lesson_copies()

# A test cell that a student deleted is put back from the instructor's notebook and graded.
c.OverwriteCells.add_missing_cells = True

# Each solution block of the instructor's notebook is followed by the step's own
# `raise NotImplementedError("Step N (module.function) is not written yet ...")`, which the
# released notebook keeps: the stub that replaces the block only needs to show where to write.
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE"}}
''' + feedback_page.config_lines()


def course_files(course_id="attnkit", timeout=DEFAULT_TIMEOUT, lang=None):
    """{relative path: text or bytes} of every file the course needs; its notebooks made in `lang` ("en" or
    "zh": their Markdown in it, and the checks' messages in it whatever the kernel's locale, through
    attnkit_runtime/data/language) or, when None, in both (Markdown in English then Chinese)."""
    files = {Path(COURSE_CONFIG): config_text(course_id, timeout),
             Path(feedback_page.TEMPLATE): feedback_page.template()}
    lessons = {path.relative_to(LESSONS_DIR.parent): path.read_text(encoding="utf-8")
               for path in sorted(LESSONS_DIR.rglob("*.md"))}
    digests, runtimes = {}, {}
    for assignment in TRACKS:
        files.update({Path("source", assignment, rel): text for rel, text in lessons.items()})
        hidden = json.dumps(hidden_cases(assignment), separators=(",", ":")) + "\n"
        digest = hashlib.sha256(hidden.encode("utf-8")).hexdigest()
        with texts.made_in(lang):
            notebook = source_notebook(digest, assignment=assignment)
        files[Path("source", assignment, f"{assignment}.ipynb")] = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        files[Path(HIDDEN_DIR, f"{assignment}.json")] = hidden
        files.update({Path("source", assignment, rel): data
                      for rel, data in runtime_folder.files(assignment, steps_data(TRACKS[assignment])).items()})
        runtimes[assignment] = Path("source", assignment, runtime_folder.FOLDER).as_posix()
        if lang is not None:
            files[Path(runtimes[assignment], *HANDOUT_LANGUAGE)] = check_language(lang) + "\n"
        digests[Path(HIDDEN_DIR, f"{assignment}.json").as_posix()] = digest
    files[barrier.SPEC_DIR / "kernel.json"] = json.dumps(barrier.kernel_spec(digests, runtimes), indent=1) + "\n"
    return files


def build(course_dir, course_id="attnkit", timeout=DEFAULT_TIMEOUT, force=False, lang=None):
    """Write the course (in `lang`, or both languages when None: `course_files`) into `course_dir`; return
    the paths written.

    Raises FileExistsError when one of the files is already there, unless `force`.
    """
    course_dir = Path(course_dir)
    files = {course_dir / rel: text for rel, text in course_files(course_id, timeout, lang).items()}
    existing = [str(path) for path in files if path.exists()]
    if existing and not force:
        raise FileExistsError(f"already there: {', '.join(existing)} (--force overwrites them)")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))  # as hashed: no newline translation
    return list(files)
