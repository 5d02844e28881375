"""The source of the notebook's locked checks cell: attnkit's judging code plus `runtime`, run as a module.

The code is copied from the kit's own modules (not rewritten), so the notebook's messages and
verdicts are the kit's. It runs in a module namespace of its own (`_ak`), so a learner's helper
called `show` or `pick` cannot break the checks, nor the checks the learner's code.
"""
import ast
import inspect

from .. import cases, checks, indexing
from . import runtime

MODULE_NAME = "attnkit_notebook_checks"
# What runtime needs from the kit. cases.build_arg also names cases._reference_call, for catalogue
# specs that call the reference: the builder resolves those to stored arrays, so it is never reached.
_COPIED = (
    (indexing, ("_PICK", "_SLICE_PART", "parse_index", "parse_pick")),
    (cases, ("_DTYPES", "_GENERATORS", "_MODIFIERS", "_as_array", "build_arg", "invoke", "invoke_watched", "pick",
             "named_outputs")),
    (checks, ("Verdict", "PASSED", "show", "describe_inputs", "check_form", "compare", "_picked", "_check_property",
              "_COMPUTE", "_label", "evaluate", "warning_verdict", "teaching_message")),
)


def _defined_names(node):
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return set()


def _segment(source, node):
    """The source text of a top-level statement, decorators included."""
    lines = source.splitlines()
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return "\n".join(lines[first - 1:node.end_lineno])


def _copied_code():
    """(import lines, definitions) taken from the kit's modules."""
    imports, definitions = [], []
    for module, names in _COPIED:
        source = inspect.getsource(module)
        tree = ast.parse(source)
        wanted = [node for node in tree.body if _defined_names(node) & set(names)]
        missing = set(names) - set().union(*(_defined_names(n) for n in wanted))
        if missing:
            raise RuntimeError(f"{module.__name__} no longer defines {sorted(missing)}: update {__name__}._COPIED")
        used = {n.id for node in wanted for n in ast.walk(node) if isinstance(n, ast.Name)}
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                bound = {(a.asname or a.name).split(".")[0] for a in node.names}
                if bound & used:
                    imports.append(_segment(source, node))
        segments = "\n\n\n".join(_segment(source, node) for node in wanted)
        definitions.append(f"# --- copied from {module.__name__} ---\n{segments}")
    return imports, definitions


def module_source():
    """runtime.py with its package imports replaced by the copied kit code."""
    source = inspect.getsource(runtime)
    tree = ast.parse(source)
    relative = [node for node in tree.body if isinstance(node, ast.ImportFrom) and node.level]
    lines = source.splitlines()
    imports, definitions = _copied_code()
    insert_at = relative[0].lineno - 1
    for node in relative:
        for k in range(node.lineno - 1, node.end_lineno):
            lines[k] = None
    kept = [line for line in lines if line is not None]
    own_imports = {line for line in kept if line.startswith(("import ", "from "))}
    extra = [line for line in dict.fromkeys(imports) if line not in own_imports]
    copied = "\n\n\n".join(definitions).splitlines()
    body = kept[:insert_at] + extra + ["", ""] + copied + ["", "", "# --- attnkit.nbgrader_course.runtime ---"] + kept[insert_at:]
    return "\n".join(body) + "\n"


def cell_source():
    """The locked cell: runs module_source() as module `_ak`."""
    source = module_source()
    if "'''" in source:
        raise RuntimeError("the checks code contains ''' and cannot be quoted in the notebook cell")
    return (
        "# Provided, do not edit: the checking code of the test cells (attnkit's own judging code, run as\n"
        "# a module of its own, `_ak`, so that its names never clash with yours).\n"
        "import sys as _sys\n"
        "import types as _types\n\n"
        f"_ak = _types.ModuleType({MODULE_NAME!r})\n"
        f"_sys.modules[{MODULE_NAME!r}] = _ak\n"
        f"exec(compile(r'''{source}''', {MODULE_NAME!r}, 'exec'), _ak.__dict__)\n"
        "del _sys, _types"
    )
