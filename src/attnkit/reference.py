"""The reference solutions (solutions/), loaded once per process, and the results they give."""
from functools import lru_cache

from attnkit_runtime.judge import call_named
from attnkit_runtime import loader

from . import manifest
from .paths import SOLUTIONS_DIR


def load_step(module, folder, deps_folder=None, cache=None):
    """Step `module` imported from `folder` with the kit's layout (attnkit_runtime.loader.load_step)."""
    return loader.load_step(module, folder, deps_folder, cache, layout=manifest)


@lru_cache(maxsize=None)
def reference_module(module):
    """The reference step module `module`, with reference dependencies."""
    return load_step(module, SOLUTIONS_DIR)


def reference_function(module, function):
    return getattr(reference_module(module), function)


def reference_outputs(case, calls):
    """The reference's named results for each call of `case` (on copies of the arguments)."""
    fn = reference_function(case.step.module, case.function)
    return [call_named(fn, case.returns, kwargs) for kwargs in calls]


def learner_step(module, folder):
    """The learner's step `module` from `folder`, with the reference versions of the steps it imports
    (with the folder's own when the kit has no solutions/, as in an installed kit)."""
    return load_step(module, folder, deps_folder=SOLUTIONS_DIR if SOLUTIONS_DIR.is_dir() else folder)
