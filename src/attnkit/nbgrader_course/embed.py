"""The source of the notebook's locked checks cell: the checking code as a package of its own, then its data.

The portable core (`attnkit_runtime.i18n`, `messages`, `judge`, the harness with `status`, `inputs` and
`loader`, and `stored`, the stored cases' reader: standard library and numpy only) and the notebook's
`notebook_feedback` and `notebook` are embedded whole, each as a module of the package
`attnkit_notebook_checks` (their relative imports then resolve inside it), so the notebook's
messages and verdicts are the kit's. `_ak` is the runtime module: a learner's helper called `show`
or `pick` cannot break the checks, nor the checks the learner's code. The cell ends with
`_ak.configure(...)`, which hands the runtime the course's steps and public cases (test data stays
out of the test cells).
"""
import ast
import inspect

from attnkit_runtime import harness, i18n, inputs, judge, loader, messages, status, stored
from attnkit_runtime import notebook, notebook_feedback

PACKAGE = notebook_feedback.PACKAGE
MODULES = {"i18n": i18n, "messages": messages, "judge": judge, "status": status, "inputs": inputs, "loader": loader,
           "harness": harness, "stored": stored, "notebook_feedback": notebook_feedback,
           "notebook": notebook}  # in import order


def _imports_within_package(source):
    """`source` with `from ..x import` turned into `from .x import`: one flat package in the notebook."""
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.level == 2:
            lines[node.lineno - 1] = lines[node.lineno - 1].replace("from ..", "from .", 1)
    return "\n".join(lines)


def module_sources():
    """{module name in the package: its source}."""
    return {name: _imports_within_package(inspect.getsource(module)) for name, module in MODULES.items()}


def _quoted(text, what):
    if "'''" in text or text.endswith("\\"):
        raise RuntimeError(f"{what} contains ''' or ends in a backslash and cannot be quoted in the notebook cell")
    return f"r'''{text}'''"


def cell_source(assignment, digest, steps_json):
    """The locked cell: the package, `_ak` = its runtime, configured with `steps_json` (runtime.configure)."""
    modules = ",\n".join(f"    ({name!r}, {_quoted(source, name)})" for name, source in module_sources().items())
    return (
        "# Provided, do not edit, run it first: the checking code of the test cells (attnkit's own judging\n"
        "# code, as a package of its own so that its names never clash with yours), then the public checks' data.\n"
        "import sys as _sys\n"
        "import types as _types\n\n"
        f"_sys.modules[{PACKAGE!r}] = _types.ModuleType({PACKAGE!r})\n"
        f"_sys.modules[{PACKAGE!r}].__path__ = []\n"
        "for _name, _source in [\n"
        f"{modules},\n"
        "]:\n"
        f"    _ak = _types.ModuleType({PACKAGE!r} + '.' + _name)\n"
        f"    _ak.__package__ = {PACKAGE!r}\n"
        "    _sys.modules[_ak.__name__] = _ak\n"
        f"    setattr(_sys.modules[{PACKAGE!r}], _name, _ak)\n"
        "    exec(compile(_source, _ak.__name__, 'exec'), _ak.__dict__)\n"
        f"_ak.configure({assignment!r}, {digest!r}, {_quoted(steps_json, 'the public checks')})\n"
        "del _sys, _types, _name, _source"
    )
