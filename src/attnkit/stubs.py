"""Generate exercises/ from the reference solutions and the manifest: stubs, public tests, conftest.

Every `### BEGIN SOLUTION` … `### END SOLUTION` block (nbgrader's markers) becomes a line that
raises NotImplementedError naming the step and the function. Everything else — signatures,
docstrings, input checks, provided modules — is kept as it is.
"""
import ast
import re
from pathlib import Path

from . import lessons, manifest
from attnkit_runtime.i18n import LANGUAGES, pick
from attnkit_runtime.messages import MESSAGES
from .paths import EXERCISES_DIR, SOLUTIONS_DIR

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_DEF = re.compile(r"^(\s*)def (\w+)\(")


def not_written_message(step, function):
    """The text of the NotImplementedError a stub raises, in every language (English first), each with
    its lesson link: the stub is generated once for every learner, and its raise stays one line, which
    a learner deletes whole."""
    return " ".join(pick(MESSAGES["stub.not_written"], lang).format(step=step.number, name=f"{step.module}.{function}",
                                                                    read=lessons.link(step.lesson, lang))
                    for lang in LANGUAGES)


def rewrite_solution_blocks(source, filename, replace):
    """Return `source` with each solution block, markers included, replaced by the lines
    `replace(function, indent, begin_line, block_lines, end_line)` returns (lines keep their "\\n")."""
    out, function, block, begin = [], None, None, ""
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        stripped = line.strip()
        match = _DEF.match(line)
        if match and block is None:
            function = match.group(2)
        if stripped == BEGIN:
            if block is not None or function is None:
                raise ValueError(f"{filename}:{number}: {BEGIN} outside a function or nested")
            block, begin = [], line
        elif stripped == END:
            if block is None:
                raise ValueError(f"{filename}:{number}: {END} without {BEGIN}")
            out += replace(function, begin[: len(begin) - len(begin.lstrip())], begin, block, line)
            block = None
        elif block is not None:
            block.append(line)
        else:
            out.append(line)
    if block is not None:
        raise ValueError(f"{filename}: {BEGIN} is never closed")
    return "".join(out)


def solution_lines(source):
    """The non-blank lines between ### BEGIN SOLUTION and ### END SOLUTION, stripped."""
    lines, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped in (BEGIN, END):
            inside = stripped == BEGIN
        elif inside and stripped:
            lines.append(stripped)
    return lines


def provided_code(source):
    """`source` without its solved functions (each top-level function holding a solution block): the
    provided code of a step (imports, constants, provided classes and functions), which the release
    ships as it is."""
    lines = source.splitlines(keepends=True)
    for node in reversed(ast.parse(source).body):
        end = node.end_lineno
        while end < len(lines) and lines[end].strip() == END:  # a comment: after the body's last line
            end += 1
        if isinstance(node, ast.FunctionDef) and any(line.strip() == BEGIN for line in lines[node.lineno - 1:end]):
            del lines[min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1:end]
    return "".join(lines)


def strip_solutions(source, step):
    """Return `source` with each solution block replaced by a NotImplementedError."""
    def stub(function, indent, begin, block, end):
        return [f"{indent}# YOUR CODE HERE\n",
                f"{indent}raise NotImplementedError({not_written_message(step, function)!r})\n"]
    return rewrite_solution_blocks(source, step.filename, stub)


CONFTEST = '''"""pytest setup for the public tests: the --solutions switch, --lang and the progress ladder.

公开测试的 pytest 设置：--solutions 开关、--lang 和进度表。
"""
from attnkit.pytest_plugin import pytest_addoption, pytest_configure  # noqa: F401  (pytest hooks)
'''


def public_test_file(step):
    """The text of exercises/test_<step>.py: one test per function of the step."""
    lines = [f'"""Public tests of step {step.number}: {step.titles}\n',
             f"Run: pytest exercises/test_{step.filename}   (all steps: pytest exercises)",
             f"The cases are in the kit's catalogue, src/attnkit/data/cases/{step.filename[:-3]}.yaml.", "",
             f"第 {step.number} 步的公开测试。运行：pytest exercises/test_{step.filename}（所有步骤：pytest exercises）。",
             f"用例在本套工具的用例目录 src/attnkit/data/cases/{step.filename[:-3]}.yaml 里。",
             '"""', "from attnkit.public import case_test", ""]
    lines += [f'test_{fn.name} = case_test("{step.module}", "{fn.name}")' for fn in step.functions]
    return "\n".join(lines) + "\n"


def generated_files(solutions_dir=SOLUTIONS_DIR):
    """Map file name -> the text exercises/ should hold for it (stubs, provided modules, public tests)."""
    solutions_dir = Path(solutions_dir)
    files = {f"{name}.py": (solutions_dir / f"{name}.py").read_text(encoding="utf-8")
             for name in manifest.provided_modules()}
    for step in manifest.steps():
        files[step.filename] = strip_solutions((solutions_dir / step.filename).read_text(encoding="utf-8"), step)
        files[f"test_{step.filename}"] = public_test_file(step)
    files["conftest.py"] = CONFTEST
    return files


def drift(exercises_dir=EXERCISES_DIR, solutions_dir=SOLUTIONS_DIR):
    """Names of the files in exercises/ that differ from what the generator makes."""
    exercises_dir = Path(exercises_dir)
    return sorted(name for name, text in generated_files(solutions_dir).items()
                  if not (exercises_dir / name).is_file()
                  or (exercises_dir / name).read_text(encoding="utf-8") != text)


def write(exercises_dir=EXERCISES_DIR, solutions_dir=SOLUTIONS_DIR):
    """Write the stubs and provided modules into exercises/; return the names written."""
    exercises_dir = Path(exercises_dir)
    exercises_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generated_files(solutions_dir).items():
        (exercises_dir / name).write_text(text, encoding="utf-8")
        written.append(name)
    return written
