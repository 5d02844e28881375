"""`from step3_masks import causal_visible` in a notebook cell: the habit of the folder, where each step is
a file. In the notebook there is no such file; every cell runs in one namespace. Installed by the checks
cell (notebook.configure), this import hook makes such an import give the notebook's own names, and
says once per module that the cells share one namespace (the import is not needed). `attnkit grade`
drops the same imports when it reads a notebook (attnkit.kit_imports), so both routes run the same code.
"""
import importlib.abc
import importlib.util
import re
import sys

from .messages import say

KIT_MODULE = re.compile(r"(step\d+_\w+|shape_checks)")  # the kit's step modules and its provided module


class NotebookModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds a kit module that no file provides (it is asked after every other finder) as a view of
    `namespace`, the notebook's globals: `from step3_masks import x` gives the notebook's `x`."""

    def __init__(self, namespace):
        self.namespace = namespace

    def find_spec(self, fullname, path=None, target=None):
        return importlib.util.spec_from_loader(fullname, self) if KIT_MODULE.fullmatch(fullname) else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        namespace, name = self.namespace, module.__name__

        def __getattr__(attribute):  # looked up when imported, so a cell run later is seen too
            if attribute.startswith("__"):
                raise AttributeError(attribute)
            if attribute not in namespace:  # an ImportError: `from … import` would replace an AttributeError's text
                raise ImportError(say("notebook.not_in_namespace", module=name, name=attribute), name=name)
            return namespace[attribute]

        module.__getattr__ = __getattr__
        print(say("notebook.one_namespace", module=name))


def install(namespace):
    """Put the hook last on sys.meta_path for `namespace` (once: a rerun of the checks cell replaces it,
    and the modules an earlier one made are forgotten)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not _a_hook(f)]
    for name in [n for n, m in sys.modules.items() if _a_hook(getattr(m, "__loader__", None))]:
        del sys.modules[name]
    sys.meta_path.append(NotebookModules(namespace))


def _a_hook(obj):
    """Whether `obj` is a NotebookModules, this module's or an earlier import's of it (a reloaded runtime)."""
    return (type(obj).__module__, type(obj).__qualname__) == (__name__, NotebookModules.__qualname__)
