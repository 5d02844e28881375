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
Steps 1–6 are the core. Steps 7–9 (the extension) are optional: their tests are skipped while a step's
file still holds the stub's code (comments aside), so a finished core is a green run; change the step's
file and its tests run.

- A failing test shows the inputs of each call, the values it must give and yours (the cases are
  stored in `runtime/{runtime}/data/course.json`).
- A step that uses earlier steps (step 6 imports steps 1–5) runs on YOUR versions of them. If a call
  used one of those and it does not pass its own tests yet, the failure says which one to fix first.
- Each call of your function has a time limit (3 s; `ATTNKIT_TIME_LIMIT=20` gives more): an endless
  loop fails its test and the run ends (on Windows there is no limit: stop a hung run with Ctrl+C).
  A large array is shown by its shape and the first slice that differs; `pytest -vv` shows it whole.
- To look at your own result while you experiment: `attnkit-show causal_visible 2 5` (or
  `attnkit-show softmax "0,1,-inf;-inf,-inf,-inf"`) calls your function from `exercises/` and prints
  each part of its result as a labelled grid. In Python:
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
attnkit-show = "{runtime}.show_tool:main"

[tool.setuptools.packages.find]
where = ["runtime"]

[tool.setuptools.package-data]
{runtime} = ["data/*"]

[tool.pytest.ini_options]
testpaths = ["exercises"]
addopts = "-p no:anyio"
"""

GITIGNORE = """.venv/
__pycache__/
*.egg-info/
build/
.pytest_cache/
"""


def test_file(step, runtime):
    """exercises/test_<step>.py: one test per function, running the step's public cases stored in the runtime."""
    header = textwrap.dedent(f'''\
        """Public tests of step {step.number}: {step.titles}

        Run: pytest exercises/test_{step.filename}   (all steps: pytest exercises)
        Each test runs the public cases of one function, stored in {runtime}/data/course.json (large arrays
        in data/snapshot.npz). A failing case shows the inputs of each call, what was expected and what came.
        """
        from {runtime}.exercise import case_test

        ''')
    return header + "".join(f"test_{fn.name} = case_test({step.module!r}, {fn.name!r})\n" for fn in step.functions)
