"""The kit's own imports in a notebook's code, for the course builder and the grader alike.

A notebook is one namespace: its step cells import neither the provided modules (`shape_checks`) nor
the earlier steps, and its checks cell imports the learner runtime (`import attnkit_runtime.notebook
as _ak`). The course builder drops those imports from the solutions it puts in cells; the grader,
rebuilding a step module from a submitted notebook, blanks them and writes its own header instead.
"""
import ast
from functools import lru_cache

import attnkit_runtime

from . import manifest


@lru_cache(maxsize=None)
def kit_modules():
    """Top-level names of the kit's modules: the provided ones, every step's, the learner runtime."""
    return frozenset({*manifest.provided_modules(), *(s.module for s in manifest.steps()), attnkit_runtime.__name__})


def is_kit_import(node):
    """Whether the statement `node` imports one of the kit's modules (or a module inside one)."""
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and bool(node.module) and node.module.split(".")[0] in kit_modules()
    return isinstance(node, ast.Import) and any(alias.name.split(".")[0] in kit_modules() for alias in node.names)


def without_kit_imports(source, tree):
    """`source` with the lines of its top-level kit imports blank (so every other line keeps its number);
    `tree` is `ast.parse(source)`."""
    lines = source.splitlines()
    for node in tree.body:
        if is_kit_import(node):
            lines[node.lineno - 1:node.end_lineno] = [""] * (node.end_lineno - node.lineno + 1)
    return "\n".join(lines)
