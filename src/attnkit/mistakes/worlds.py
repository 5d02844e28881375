"""Mistaken copies of the reference steps.

For one slip, the slip's step module is loaded afresh from solutions/ with the wrong function put
in its namespace, and every later step that imports it is loaded again on top of it (the loader
binds plain module names), so a slip in step 2 also shows in step 6's composed head, as it does
for a learner who writes attention() inline.
"""
import types
from functools import lru_cache

from .. import manifest
from ..reference import load_step
from ..paths import SOLUTIONS_DIR
from .catalogue import catalogue
from .slips import SLIPS


_WORLDS = {}  # slip -> (the loader's cache, {step module: module object} of the steps it changes loaded so far)


def _world(slip, upto=None):
    """{step module: module object} for the steps the slip changes, among step `upto` and the steps it
    imports (all steps when None). Steps are loaded as far as `upto` only, the rest when asked for: a
    step's imports come before it in the manifest, so a world grown step by step is the one built at once."""
    cache, changed = _WORLDS.setdefault(slip, ({}, {}))
    steps = manifest.steps()
    last = len(steps) if upto is None else next(k for k, step in enumerate(steps) if step.module == upto) + 1
    for step in steps[:last]:
        if step.module in changed or (step.module != slip.module and not changed.keys() & set(step.depends_on)):
            continue
        module = load_step(step.module, SOLUTIONS_DIR, SOLUTIONS_DIR, cache)
        if step.module == slip.module:
            setattr(module, slip.function, slip.impl)
        cache[(step.module, SOLUTIONS_DIR)] = changed[step.module] = module
    wanted = None if upto is None else _upstream(upto)
    return {module: obj for module, obj in changed.items() if wanted is None or module in wanted}


def _global_names(code):
    """Names `code` looks up, its nested generator expressions and inner functions included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _calls_any(function, hit):
    """Whether `function` is in `hit` or names one of them among its globals."""
    if id(function) in hit:
        return True
    code = getattr(function, "__code__", None)
    names = _global_names(code) if code is not None else ()
    return any(id(function.__globals__.get(name)) in hit for name in names)


@lru_cache(maxsize=None)
def _affected(slip, upto=None):
    """{(module, function): mistaken callable} for every step function the slip changes, among step `upto`
    and the steps it imports (all steps when None)."""
    world, hit, found = _world(slip, upto), {id(slip.impl)}, {}
    grew = True
    while grew:  # a caller may come before its callee in the manifest
        grew = False
        for module, obj in world.items():
            for fn in manifest.step(module).functions:
                function = getattr(obj, fn.name)
                if (module, fn.name) not in found and _calls_any(function, hit):
                    found[(module, fn.name)] = function
                    hit.add(id(function))
                    grew = True
    return found


def slip_overrides(code):
    """One {(module, function): mistaken callable} per way of making mistake `code` (its slips)."""
    catalogue()[code]  # KeyError for an unknown code
    return [_affected(s) for s in SLIPS[code]]


def slip_step(code, variant):
    """The step module where way `variant` of mistake `code` is made."""
    return SLIPS[code][variant].module


@lru_cache(maxsize=None)
def _upstream(module):
    """`module` and every step it imports, directly or through another step: where a slip can change it."""
    found = {module}
    for dep in manifest.step(module).depends_on:
        found |= _upstream(dep)
    return frozenset(found)


def variants(code, module, function):
    """Every way mistake `code` changes `module.function` (empty when it cannot affect it). Only the slips
    made in `module` or a step it imports are built, as far as `module` (`_world` loads the steps anew for each)."""
    catalogue()[code]  # KeyError for an unknown code
    slips = [s for s in SLIPS[code] if s.module in _upstream(module)]
    return [_affected(s, module)[(module, function)] for s in slips if (module, function) in _affected(s, module)]


def mistaken_function(code, module, function):
    """The reference `module.function` as it behaves with mistake `code`, or None if unaffected."""
    found = variants(code, module, function)
    return found[0] if found else None
