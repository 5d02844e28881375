"""Points: rubric.yaml gives each step its total; a step's cases share it by weight."""
from functools import lru_cache

import yaml

from . import manifest
from .cases import cases_for
from .paths import DATA_DIR


@lru_cache(maxsize=None)
def step_points():
    """{step module: points}; checked to cover every step and to total 100."""
    points = yaml.safe_load((DATA_DIR / "rubric.yaml").read_text(encoding="utf-8"))["steps"]
    modules = [s.module for s in manifest.steps()]
    if sorted(points) != sorted(modules):
        raise ValueError(f"rubric.yaml must give points to exactly the steps {modules}, got {sorted(points)}")
    if abs(sum(points.values()) - 100) > 1e-9:
        raise ValueError(f"rubric.yaml points must total 100, got {sum(points.values())}")
    return dict(points)


@lru_cache(maxsize=None)
def case_points():
    """{case name: points}, rounded to 1e-6; the cases of a step add up to the step's points."""
    result = {}
    for module, total in step_points().items():
        step_cases = cases_for(module)
        weight = sum(c.weight for c in step_cases)
        for c in step_cases:
            result[c.name] = round(total * c.weight / weight, 6) if weight else 0.0
    return result
