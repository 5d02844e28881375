"""Turn an nbgrader-style notebook into the step modules of a folder submission.

Convention shared with the nbgrader course builder: the solution cell of each step has metadata
`nbgrader.grade_id == "<step module>"` and holds that step's code without its `from shape_checks
import …` / `from stepN_… import …` lines (the notebook is one namespace). Each step's module is
rebuilt by prepending `from shape_checks import *` and `from <dep> import *` for the steps it
depends on, plus the notebook's other import statements; the kit's own imports (those, and the
checks cell's `import attnkit_runtime.notebook`) are left out, as `kit_imports` says. The header is
one line joined to the cell's first line (`…; import numpy as np; <the cell's docstring>`) when that line
can follow a `;` (not a `def`, `class`, `if`, decorator…), so that a line of the module is the same
line of the step's cell; each module is a sandbox_types.Source whose places name the cells its lines come
from (the notebook, the heading above the cell), so an error says "attention.ipynb, the cell under
"Step 3 …", line 19", never "step3_masks.py", a file the learner does not have. Without the
metadata, the cells whose code defines the step's functions are used. IPython magics and shell lines are commented out. The
notebook is read as JSON and its code only parsed here, never run; both are learner input, so their
size is capped before parsing and a nesting too deep to parse is a NotebookError or an unparsed cell,
never a crash of the grader.
"""
import ast
import json
import re
from functools import cached_property

from attnkit_runtime.messages import say
from .. import manifest
from ..kit_imports import is_kit_import, without_kit_imports
from .sandbox_types import Source

_TOP_LEVEL_DEF = re.compile(r"^def\s", re.M)  # cells without these are never parsed
_TOP_LEVEL_IMPORT = re.compile(r"^(import|from)\s", re.M)
_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.+?)[\s#]*$", re.M)
_MAX_HEADING = 80
_COMPOUND = re.compile(r"\s*(@|(def|class|if|elif|else|for|while|with|try|except|finally|match|case|async)\b)")
MAX_CODE_CHARS = 1_000_000  # all code cells together (a whole solution is ~20 kB): parsing costs ~2 s per MB


class NotebookError(ValueError):
    """The file is not a notebook we can read; the message says why."""


def step_sources(text, name="notebook.ipynb"):
    """{"stepN_x.py": module source (a Source, its places named after the notebook `name`)} for each step
    the notebook has code for."""
    try:
        cells = json.loads(text)["cells"]  # the C decoder stops a deep nesting with RecursionError
        if not isinstance(cells, list):
            raise TypeError("'cells' is not a list")
    except (ValueError, KeyError, TypeError, RecursionError, MemoryError) as err:
        raise NotebookError(f"not a readable .ipynb notebook ({type(err).__name__}: {str(err)[:200]})") from None
    code, heading = [], None
    for cell in (cell for cell in cells if isinstance(cell, dict)):
        if cell.get("cell_type") == "markdown":
            heading = _heading(cell) or heading
        elif cell.get("cell_type") == "code":
            place = (say("grade.notebook_cell", notebook=name, heading=heading) if heading
                     else say("grade.notebook_code_cell", notebook=name, number=len(code) + 1))
            code.append(_Cell(_grade_id(cell), _python(cell), place))
    size = sum(len(cell.src) for cell in code)
    if size > MAX_CODE_CHARS:
        raise NotebookError(f"its code cells hold {size} characters (at most {MAX_CODE_CHARS})")
    cells_of = {}  # step module -> indices of its code cells (a cell may serve several steps)
    for step in manifest.steps():
        tagged = [k for k, cell in enumerate(code) if cell.grade_id == step.module]
        cells_of[step.module] = tagged or [k for k, cell in enumerate(code)
                                           if _defines(cell) & {f.name for f in step.functions}]
    used = {k for cells in cells_of.values() for k in cells}
    shared_imports = [line for k, cell in enumerate(code) if k not in used for line in _imports(cell)]
    sources = {}
    for step in manifest.steps():
        body = [_without_kit_imports(code[k]) for k in cells_of[step.module]]
        if body:
            header = ["from shape_checks import *", *(f"from {dep} import *" for dep in step.depends_on),
                      *shared_imports]
            text, first = _with_header(header, "\n\n".join(body))
            places = []
            for k, cell_text in zip(cells_of[step.module], body):
                places.append((first, code[k].place, 1))
                first += cell_text.count("\n") + 2  # the cells are joined by a blank line
            sources[step.filename] = Source(text + "\n", places)
    return sources


def _with_header(header, code):
    """(`code` after the `header` statements, the line `code` starts on): on its first line, when a statement
    may follow them there, so that its lines keep their numbers; else on lines of their own before it."""
    if _COMPOUND.match(code.split("\n", 1)[0]):
        return "\n".join(header) + "\n\n" + code, len(header) + 2
    return "; ".join(header) + "; " + code, 1


def _heading(cell):
    """The first Markdown heading of a cell, without its #s ("Step 3 · Masks"), or None."""
    source = cell.get("source", "")
    text = "".join(part for part in source if isinstance(part, str)) if isinstance(source, list) else source
    found = _HEADING.search(text) if isinstance(text, str) else None
    return found.group(1)[:_MAX_HEADING] if found else None


def _grade_id(cell):
    meta = cell.get("metadata")
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None


def _python(cell):
    """The cell's source with magics (%, %%, !) commented out; a %% cell magic comments the whole cell."""
    source = cell.get("source", "")
    if isinstance(source, list):
        text = "".join(part for part in source if isinstance(part, str))
    else:
        text = source if isinstance(source, str) else ""
    lines = text.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join("# " + line for line in lines)
    return "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line for line in lines)


class _Cell:
    """A code cell: its grade_id, its source, what a learner calls it (`place`: the notebook and the heading
    above the cell), and its syntax tree (parsed once, only when needed)."""

    def __init__(self, grade_id, src, place):
        self.grade_id, self.src, self.place = grade_id, src, place

    @cached_property
    def tree(self):
        """The cell's syntax tree, or None when it cannot be parsed (loading it in the sandbox says why)."""
        try:
            return ast.parse(self.src)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # code nested too deep: RecursionError
            return None


def _defines(cell):
    """Names of the functions the cell defines at top level."""
    if not _TOP_LEVEL_DEF.search(cell.src) or cell.tree is None:
        return set()
    return {node.name for node in cell.tree.body if isinstance(node, ast.FunctionDef)}


def _imports(cell):
    """The top-level import statements of a cell that are not the kit's own modules, written from the tree
    (ast.get_source_segment splits the whole cell again for each one, in Python: 25 ms per import of
    shape_checks)."""
    if not _TOP_LEVEL_IMPORT.search(cell.src) or cell.tree is None:
        return []
    return [ast.unparse(node) for node in cell.tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not is_kit_import(node)]


def _without_kit_imports(cell):
    """The cell with its imports of shape_checks / stepN_… blanked (the header provides them)."""
    if cell.tree is None:
        return cell.src  # a syntax error: keep it as it is, loading the module reports it
    return without_kit_imports(cell.src, cell.tree)
