"""Import a step's flat module from a folder without touching the global import state.

A step module imports earlier steps by their plain names (`from step4_softmax import softmax`).
`load_step` runs the module with those names bound to modules of our choosing (the learner's own,
or the reference solutions), so a learner's step is always judged with known neighbours.

Standard library only: the student release ships this file as it is, with its own `layout`.
"""
import importlib.util
import sys
from pathlib import Path


class StepLoadError(Exception):
    """A learner's file is missing or could not be imported; the message says which and why."""


def _exec_module(name, path, bound):
    if not path.is_file():
        raise StepLoadError(f"{path} is missing")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    saved = {key: sys.modules.get(key) for key in [*bound, name]}
    sys.modules.update(bound)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        raise StepLoadError(f"{path} has a syntax error on line {err.lineno}: {err.msg}") from err
    except Exception as err:  # the learner's module failed while being imported
        raise StepLoadError(f"{path} failed while being imported: {type(err).__name__}: {err}") from err
    finally:
        for key, old in saved.items():
            if old is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = old
    return module


def load_step(module, folder, deps_folder=None, _cache=None, layout=None):
    """Return step `module` (e.g. "step6_head") imported from `folder`.

    The steps it depends on and the provided modules come from `deps_folder` when given (the
    reference), else from `folder` too. Raises StepLoadError with a plain message on failure.
    `layout` gives `provided_modules()` and `step(module).depends_on` (default: the kit's manifest).
    """
    if layout is None:
        from . import manifest as layout
    folder = Path(folder)
    deps = Path(deps_folder) if deps_folder is not None else folder
    cache = {} if _cache is None else _cache
    bound = {}
    for name in layout.provided_modules():
        key = (name, deps)
        if key not in cache:
            cache[key] = _exec_module(name, deps / f"{name}.py", {})
        bound[name] = cache[key]
    for dep in layout.step(module).depends_on:
        key = (dep, deps)
        if key not in cache:
            cache[key] = load_step(dep, deps, deps, cache, layout)
        bound[dep] = cache[key]
    return _exec_module(module, folder / f"{module}.py", bound)
