"""The release's own texts: the student README, pyproject.toml, .gitignore and the public test files."""
import textwrap

README = """# Single-head causal self-attention, in numpy

You write one GPT-2 Small attention head, step by step, in `exercises/`. Tests say what was expected,
what came, where they differ, the likely mistake and where in the lesson to read.

The lessons are in `lessons/`: English in `lessons/en/`, Chinese in `lessons/zh/` (same files, same
sections). Each step has its own (`lessons/en/step1_projection.md` …), and every "read:" in a test's
message names a file and section there, e.g. `read: lessons/en/step2_scores.md#scale`.

Messages come in English or Chinese (中文), and so do the lesson links in them: the language follows
your locale (`LANG=zh_CN.UTF-8` gives Chinese). To choose it yourself, set `ATTNKIT_LANG=zh` (or `en`),
e.g. `export ATTNKIT_LANG=zh`, or add `--lang zh` to one run: `pytest exercises --lang zh`.

## Set up (once)

```bash
python3 -m venv .venv && .venv/bin/pip install -q . && . .venv/bin/activate
```

(Python 3.10 or newer; it installs numpy, pytest and `{runtime}`, the small package that runs the tests.)

## Work

```bash
pytest exercises                               # every step (bare `pytest` does the same); the ladder says what is next
pytest exercises/test_step1_projection.py      # one step
```

Open the file the ladder names, e.g. `exercises/step1_projection.py`, and replace each
`raise NotImplementedError(...)` with your code. Leave the input checks above it as they are.

- Each test file lists its cases: the inputs of each call and the values it must give (large arrays
  are in the runtime's snapshot: `stored("...")`).
- A step that uses earlier steps (step 6 imports steps 1–5) runs on YOUR versions of them. If one of
  those does not pass its own tests yet, step 6's failure says which one to fix first.
- Each call of your function has a time limit (3 s; `ATTNKIT_TIME_LIMIT=20` gives more): an endless
  loop fails its test and the run ends (on Windows there is no limit: stop a hung run with Ctrl+C).
  A large array is shown by its shape and the first slice that differs; `pytest -vv` shows it whole.
- To look at your own result while you experiment: `attnkit-show causal_visible 2 5` (or
  `attnkit-show softmax "0,1,-inf;-inf,-inf,-inf"`) calls your function from `exercises/` and prints
  each part of its result as a labelled grid; the expected values are in the test files. In Python:
  `from {runtime}.show import grid; print(grid(P, tokens, tokens, "P"))` (rows are queries, columns keys).
- Passing every public test is not full marks: the graded run adds hidden tests; the ladder lists
  what they also check. A function's public tests count only once it also passes a hidden test that
  checks values: answers copied from the public tests earn nothing.
"""

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{runtime}"
version = "{version}"
description = "Runs the public tests of the attnkit exercises (pytest exercises)"
requires-python = ">=3.10"
dependencies = ["numpy>=1.24", "pytest>=7.4"]

[project.scripts]
attnkit-show = "{runtime}.exercise:show_main"

[tool.setuptools.packages.find]
where = ["runtime"]

[tool.setuptools.package-data]
{runtime} = ["data/*"]

[tool.pytest.ini_options]
testpaths = ["exercises"]
"""

GITIGNORE = """.venv/
__pycache__/
*.egg-info/
build/
.pytest_cache/
"""


def _param(fields, calls, expected, module):
    spec = ",\n".join(f"{' ' * 13}{key}={value!r}" for key, value in fields.items()).lstrip()
    return (f"    pytest.param(\n"
            f"        case({module!r}, {spec}),\n"
            f"        # calls: the arguments of each call\n"
            f"        {calls},\n"
            f"        # expected: what each call must give\n"
            f"        {expected},\n"
            f"        id={fields['name']!r}),\n")


def test_file(step, cases, runtime):
    """exercises/test_<step>.py: every public case as a pytest.param, one test per function."""
    header = textwrap.dedent(f'''\
        """Public tests of step {step.number}: {step.titles}

        Run: pytest exercises/test_{step.filename}   (all steps: pytest exercises)
        Each case: `case(...)` says what it checks and where to read; then the arguments of each call;
        then what each call must give, by part of the result (None: a property, stated in `expect`).
        recipe({{"normal": [3, 4], "seed": 7}}) is numpy's default_rng(7).standard_normal((3, 4)); the
        other recipes are described in {runtime}/judge.py (build_arg). stored("...") is a large array
        of the runtime's snapshot.
        """
        import numpy as np
        import pytest

        from {runtime}.exercise import case, check, for_function, hide_kit_frame, recipe, stored  # noqa: F401

        __tracebackhide__ = hide_kit_frame  # a failure shows your code's lines, not the test function's

        CASES = [
        ''')
    body = "".join(_param(fields, calls, expected, step.module) for fields, calls, expected in cases)
    tests = "\n\n".join(textwrap.dedent(f'''\
        @pytest.mark.parametrize("case, calls, expected", for_function(CASES, {fn.name!r}))
        def test_{fn.name}(case, calls, expected, request):
            check(case, calls, expected, request)
        ''') for fn in step.functions)
    return header + body + "]\n\n\n" + tests
