"""Points: the manifest gives each step its `points`; a step's cases share them by weight.

Each track (manifest.yaml's `track:`) is a separate assignment whose steps total exactly 100: a new
step's points are taken from the other steps of its track, by hand, in the manifest; a track that does
not total 100 is refused, naming its steps and their points (docs/ADDING_A_STEP.md).
"""
from functools import lru_cache

from . import manifest
from .cases import cases_for

_MICRO = 10**6  # a case's points are a whole number of millionths
TRACK_TOTAL = 100


@lru_cache(maxsize=None)
def step_points(track=manifest.DEFAULT_TRACK):
    """{step module: points} of `track`, in manifest order; checked to total 100."""
    points = {s.module: s.points for s in manifest.steps(track)}
    if abs(sum(points.values()) - TRACK_TOTAL) > 1e-9:
        listed = ", ".join(f"{module} {p:g}" for module, p in points.items())
        raise ValueError(f"manifest.yaml: the {track} track's points must total {TRACK_TOTAL}, got "
                         f"{sum(points.values()):g} ({listed}); a new step takes its points from the "
                         "other steps of its track (docs/ADDING_A_STEP.md)")
    return points


@lru_cache(maxsize=None)
def case_points(track=manifest.DEFAULT_TRACK):
    """{case name: points} of `track`: the cases of a step add up to the step's points exactly (as the
    decimals a report writes them), so a track's cases add up to exactly 100."""
    result = {}
    for module, total in step_points(track).items():
        step_cases = cases_for(module)
        shares = _shares(total, [c.weight for c in step_cases])
        result.update((c.name, share) for c, share in zip(step_cases, shares))
    return result


def _shares(total, weights):
    """`total` split in proportion to `weights`, each share a whole number of millionths.

    Each share is the difference of the rounded running totals, so the shares add up to `total`
    exactly and none is more than a millionth from its exact value.
    """
    whole, running, bounds = sum(weights), 0, [0]
    for weight in weights:
        running += weight
        bounds.append(round(total * _MICRO * running / whole) if whole else 0)
    return [(high - low) / _MICRO for low, high in zip(bounds, bounds[1:])]

