"""Points: rubric.yaml gives each step of each track its total; a step's cases share it by weight.

Each track (manifest.yaml's `track:`) is a separate assignment worth 100 points.
"""
from functools import lru_cache

from . import manifest
from .cases import cases_for
from .paths import DATA_DIR
from .yaml_data import read_yaml

_MICRO = 10**6  # a case's points are a whole number of millionths


@lru_cache(maxsize=None)
def _tracks():
    tracks = read_yaml(DATA_DIR / "rubric.yaml")["tracks"]
    if sorted(tracks) != sorted(manifest.tracks()):
        raise ValueError(f"rubric.yaml must give points to exactly the tracks {list(manifest.tracks())}, "
                         f"got {sorted(tracks)}")
    return tracks


@lru_cache(maxsize=None)
def step_points(track=manifest.DEFAULT_TRACK):
    """{step module: points} of `track`; checked to cover the track's steps and to total 100."""
    points = _tracks()[track]
    modules = [s.module for s in manifest.steps(track)]
    if sorted(points) != sorted(modules):
        raise ValueError(f"rubric.yaml must give the {track} track's points to exactly the steps {modules}, "
                         f"got {sorted(points)}")
    if abs(sum(points.values()) - 100) > 1e-9:
        raise ValueError(f"rubric.yaml: the {track} track's points must total 100, got {sum(points.values())}")
    return dict(points)


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

