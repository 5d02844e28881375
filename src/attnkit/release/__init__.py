"""`attnkit release OUT`: the student hand-out, a folder ready to be a git repository.

    OUT/README.md, OUT/README.zh.md    set-up in one command, then `pytest exercises`, in English and Chinese
                                       (with --lang zh: README.md Chinese, README.en.md English)
    OUT/lessons/                       the kit's lessons, English and Chinese: every "read:" link points here
    OUT/pyproject.toml                 installs the runtime: `pip install .`
    OUT/exercises/                     the stubs, shape_checks.py, the public tests (one line per
                                       function), conftest.py
    OUT/runtime/attnkit_runtime/       the kit's learner runtime (src/attnkit_runtime/), file for file as
                                       it is: the judging core and the harness, messages in both languages,
                                       the ladder, `attnkit-show`, the public tests' plugin (exercise.py);
                                       and data/course.json (the steps and the public cases in the one
                                       stored form, attnkit.portable_cases), data/snapshot.npz (their large arrays)

No solution, no hidden case, no reference code, no implementation of a known mistake: what the
feedback needs from the reference is stored data (see docs/RELEASE.md). `leaks.scan` checks it.
"""

_HANDOUT = ("write", "release_files", "runtime_sources", "course_data", "RUNTIME", "CONFTEST")


def __getattr__(name):
    """The hand-out's writer (handout.py), imported when first used: the leak check (`release --check`,
    leaks.py) needs none of the kit it imports."""
    if name not in _HANDOUT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import handout
    return getattr(handout, name)
