"""Turn an nbgrader-style notebook into the step modules of a folder submission.

Convention shared with the nbgrader course builder: the solution cell of each step has metadata
`nbgrader.grade_id == "<step module>"` and holds that step's code without its `from shape_checks
import …` / `from stepN_… import …` lines (the notebook is one namespace). Each step's module is
rebuilt by prepending `from shape_checks import *` and `from <dep> import *` for the steps it
depends on, plus the notebook's other import statements. Without the metadata, the cells whose code
defines the step's functions are used. IPython magics and shell lines are commented out. The
notebook is read as JSON and its code only parsed here, never run.
"""
import ast
import json
import re

from .. import manifest

_KIT_MODULE = re.compile(r"^(shape_checks|step\d+_\w+)$")


class NotebookError(ValueError):
    """The file is not a notebook we can read; the message says why."""


def step_sources(text):
    """{"stepN_x.py": module source} for each step the notebook has code for."""
    try:
        cells = json.loads(text)["cells"]
    except (ValueError, KeyError, TypeError) as err:
        raise NotebookError(f"not a readable .ipynb notebook ({type(err).__name__}: {err})") from None
    code = [(_grade_id(cell), _python(cell)) for cell in cells
            if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    cells_of = {}  # step module -> indices of its code cells (a cell may serve several steps)
    for step in manifest.steps():
        tagged = [k for k, (grade_id, _) in enumerate(code) if grade_id == step.module]
        cells_of[step.module] = tagged or [k for k, (_, src) in enumerate(code)
                                           if _defines(src) & {f.name for f in step.functions}]
    used = {k for cells in cells_of.values() for k in cells}
    shared_imports = [line for k, (_, src) in enumerate(code) if k not in used for line in _imports(src)]
    sources = {}
    for step in manifest.steps():
        body = [_without_kit_imports(code[k][1]) for k in cells_of[step.module]]
        if body:
            header = ["from shape_checks import *", *(f"from {dep} import *" for dep in step.depends_on),
                      *shared_imports]
            sources[step.filename] = "\n".join(header) + "\n\n" + "\n\n".join(body) + "\n"
    return sources


def _grade_id(cell):
    meta = cell.get("metadata")
    nbgrader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return nbgrader.get("grade_id") if isinstance(nbgrader, dict) else None


def _python(cell):
    """The cell's source with magics (%, %%, !) commented out; a %% cell magic comments the whole cell."""
    source = cell.get("source", "")
    text = "".join(source) if isinstance(source, list) else str(source)
    lines = text.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        return "\n".join("# " + line for line in lines)
    return "\n".join("# " + line if line.lstrip().startswith(("%", "!")) else line for line in lines)


def _tree(src):
    try:
        return ast.parse(src)
    except (SyntaxError, ValueError):
        return None


def _defines(src):
    tree = _tree(src)
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)} if tree else set()


def _is_kit_import(node):
    if isinstance(node, ast.ImportFrom):
        return bool(node.module and _KIT_MODULE.match(node.module))
    return isinstance(node, ast.Import) and any(_KIT_MODULE.match(alias.name) for alias in node.names)


def _imports(src):
    """The top-level import statements of a cell that are not the kit's own modules."""
    tree = _tree(src)
    if tree is None:
        return []
    return [ast.get_source_segment(src, node) for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not _is_kit_import(node)]


def _without_kit_imports(src):
    """The cell with its imports of shape_checks / stepN_… blanked (the header provides them)."""
    tree = _tree(src)
    if tree is None:
        return src  # a syntax error: keep it as it is, loading the module reports it
    lines = src.splitlines()
    for node in tree.body:
        if _is_kit_import(node):
            for n in range(node.lineno - 1, node.end_lineno):
                lines[n] = ""
    return "\n".join(lines)
