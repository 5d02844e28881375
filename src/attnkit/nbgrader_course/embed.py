"""The source of the notebook's locked checks cell: the portable judging core plus `runtime`, run as a module.

The core (`attnkit.i18n`, `attnkit.messages`, `attnkit.judge`: standard library and numpy only) is
embedded whole, so the notebook's messages (in the learner's language) and verdicts are the kit's. It runs in a module namespace of its own (`_ak`), so a
learner's helper called `show` or `pick` cannot break the checks, nor the checks the learner's code.
`attnkit.i18n` is embedded as a module of its own, `_ak.i18n`, as the core refers to it (`i18n.pick`):
the learner's language is chosen when the checks run.
"""
import ast
import inspect

from .. import i18n, judge, messages
from . import runtime

MODULE_NAME = "attnkit_notebook_checks"


def _without_package_imports(source):
    """`source` without its relative imports: the names they bring are defined above it in the cell; a
    name imported under another (`pick as in_language`) becomes an assignment, made before a later
    module of the cell defines a name of its own the same (judge's own `pick`)."""
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            renamed = [f"{alias.asname} = {alias.name}" for alias in node.names if alias.asname]
            lines[node.lineno - 1:node.end_lineno] = [None] * (node.end_lineno - node.lineno + 1)
            lines[node.lineno - 1] = "; ".join(renamed) or None
    return "\n".join(line for line in lines if line is not None)


def module_source():
    """attnkit.i18n, attnkit.messages, attnkit.judge, then runtime.py, each without its package imports."""
    return "\n\n\n".join(f"# --- {module.__name__} ---\n{_without_package_imports(inspect.getsource(module)).rstrip()}"
                          for module in (i18n, messages, judge, runtime)) + "\n"


def cell_source():
    """The locked cell: runs attnkit.i18n as module `_ak.i18n`, then module_source() as module `_ak`."""
    source, i18n_source = module_source(), inspect.getsource(i18n)
    if "'''" in source + i18n_source:
        raise RuntimeError("the checks code contains ''' and cannot be quoted in the notebook cell")
    return (
        "# Provided, do not edit: the checking code of the test cells (attnkit's own judging code, run as\n"
        "# a module of its own, `_ak`, so that its names never clash with yours).\n"
        "import sys as _sys\n"
        "import types as _types\n\n"
        f"_ak = _types.ModuleType({MODULE_NAME!r})\n"
        f"_sys.modules[{MODULE_NAME!r}] = _ak\n"
        f"_ak.i18n = _types.ModuleType({MODULE_NAME + '.i18n'!r})\n"
        f"exec(compile(r'''{i18n_source}''', {MODULE_NAME + '.i18n'!r}, 'exec'), _ak.i18n.__dict__)\n"
        f"exec(compile(r'''{source}''', {MODULE_NAME!r}, 'exec'), _ak.__dict__)\n"
        "del _sys, _types"
    )
