"""The kit's own imports in a notebook's code, for the course builder and the grader alike.

A notebook is one namespace: its step cells import neither the provided modules (`shape_checks`) nor
the earlier steps, and its checks cell imports the learner runtime (`import attnkit_runtime.notebook
as _ak`). The course builder drops those imports from the solutions it puts in cells; the grader,
rebuilding a step module from a submitted notebook, blanks them and writes its own header instead.
"""
import ast

import attnkit_runtime

from . import manifest


def kit_modules():
    """Top-level names of the kit's modules: the provided ones, every step's, the learner runtime."""
    return frozenset({*manifest.provided_modules(), *(s.module for s in manifest.steps()), attnkit_runtime.__name__})


def is_kit_import(node):
    """Whether the statement `node` imports one of the kit's modules (or a module inside one)."""
    if isinstance(node, ast.ImportFrom):
        names = [node.module] if node.level == 0 and node.module else []
    else:
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
    return any(name.split(".")[0] in kit_modules() for name in names)


def without_kit_imports(source, tree):
    """`source` with the lines of its top-level kit imports blank (so every other line keeps its number);
    `tree` is `ast.parse(source)`."""
    lines = source.splitlines()
    for node in tree.body:
        if is_kit_import(node):
            lines[node.lineno - 1:node.end_lineno] = [""] * (node.end_lineno - node.lineno + 1)
    return "\n".join(lines)
