"""The student hand-out's files (`attnkit release OUT`), as the package docstring lists them."""
import io
import json
from pathlib import Path

import numpy as np

from .. import __version__, lessons, manifest, portable_cases, stubs
import attnkit_runtime
from attnkit_runtime.started import prints
from ..cases import cases_for, hidden_concepts
from ..paths import LESSONS_DIR, SOLUTIONS_DIR
from ..show_frames import stored_presets
from ..show_mine import stored_examples
from attnkit_runtime.i18n import HANDOUT_LANGUAGE, check_language
from .texts import GITIGNORE, PYPROJECT, readme_files, test_file

RUNTIME = "attnkit_runtime"
CONFTEST = f'''"""pytest setup for the public tests: --lang, short tracebacks and the progress ladder (from the runtime).

公开测试的 pytest 设置（来自运行时）：--lang、简短的 traceback 和进度表。
"""
from {RUNTIME}.exercise import pytest_addoption, pytest_configure  # noqa: F401  (pytest hooks)
'''


def runtime_sources():
    """The learner runtime's files, shipped as they are: src/attnkit_runtime/*.py."""
    return sorted(Path(attnkit_runtime.__file__).parent.glob("*.py"))


def course_data(cases, stub_files):
    """course.json: the steps (each with the prints of its stub's code, from `stub_files` {file name:
    text}: an optional step is skipped while the learner's file still has it), the provided modules, what
    the hidden tests check, the public cases ({step: [stored case]})."""
    return {
        "provided": list(manifest.provided_modules()),
        "steps": [{"number": s.number, "module": s.module, "title": s.title, "track": s.track, "track_title": s.track_title,
                   "read": lessons.links(s.lesson), "stub": prints(stub_files[s.filename]),
                   "depends_on": list(s.depends_on), "functions": {fn.name: list(fn.returns) for fn in s.functions}}
                  for s in manifest.steps()],
        "hidden_concepts": {s.module: hidden_concepts(s.module) for s in manifest.steps()},
        "cases": cases,
        "show": {"presets": stored_presets(), "examples": stored_examples()},
    }


def release_files(solutions_dir=SOLUTIONS_DIR, lang=None):
    """{relative path: bytes} of every file of the release; made in `lang` ("en" or "zh": its README.md and
    the messages' language whatever the locale, data/language in the runtime) or, when None, in both (the
    locale picks the messages' language).

    Raises FileNotFoundError when the kit has no lessons/: every "read:" of the release points there.
    """
    if not LESSONS_DIR.is_dir():
        raise FileNotFoundError(f"the lessons are not here ({LESSONS_DIR} is missing), and every 'read:' of the "
                                "release points into them: run from a checkout of the kit, or set ATTNKIT_ROOT")
    generated = stubs.generated_files(solutions_dir)
    files = {f"exercises/{name}": text for name, text in generated.items()
             if not name.startswith("test_") and name != "conftest.py"}
    files["exercises/conftest.py"] = CONFTEST
    snapshot = portable_cases.NpzStore()
    cases = {step.module: [portable_cases.case_spec(case, snapshot) for case in cases_for(step.module, "public")]
             for step in manifest.steps()}
    for step in manifest.steps():
        files[f"exercises/test_{step.filename}"] = test_file(step, RUNTIME)
    package = f"runtime/{RUNTIME}"
    for path in runtime_sources():
        files[f"{package}/{path.name}"] = path.read_bytes()
    files[f"{package}/data/course.json"] = json.dumps(course_data(cases, generated), ensure_ascii=False, separators=(",", ":")) + "\n"
    buffer = io.BytesIO()
    np.savez(buffer, **snapshot.arrays)  # stored: float data hardly compresses, and the leak check scans a stored member once
    files[f"{package}/data/snapshot.npz"] = buffer.getvalue()
    for path in sorted(p for p in LESSONS_DIR.rglob("*") if p.is_file()):
        files[f"lessons/{path.relative_to(LESSONS_DIR).as_posix()}"] = path.read_bytes()
    if lang is not None:
        files["/".join((package, *HANDOUT_LANGUAGE))] = check_language(lang) + "\n"
    files.update(readme_files(RUNTIME, lang))
    files["pyproject.toml"] = PYPROJECT.format(runtime=RUNTIME, version=__version__)
    files[".gitignore"] = GITIGNORE
    return {path: text.encode("utf-8") if isinstance(text, str) else text for path, text in files.items()}


def write(out, force=False, lang=None):
    """Write the release (in `lang`, or both languages when None) into the folder `out`; return the paths written.

    Raises FileExistsError when `out` already holds files, unless `force`; FileNotFoundError as
    `release_files` does.
    """
    out = Path(out)
    if out.exists() and any(out.iterdir()) and not force:
        raise FileExistsError(f"{out} is not empty (--force writes over it)")
    written = []
    for rel, data in release_files(lang=lang).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written
