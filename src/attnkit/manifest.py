"""The ordered step manifest (data/manifest.yaml) as objects."""
from dataclasses import dataclass
from functools import lru_cache

import yaml

from . import lessons
from .paths import DATA_DIR


@dataclass(frozen=True)
class Function:
    name: str
    returns: tuple  # names of the parts of the result, e.g. ("O", "P")


@dataclass(frozen=True)
class Step:
    number: int
    module: str
    title: str
    lesson: str
    depends_on: tuple
    functions: tuple  # of Function, in manifest order

    @property
    def read(self):
        """Where to read, as the learner opens it: "lessons/en/step4_softmax.md"."""
        return lessons.link(self.lesson)

    @property
    def filename(self):
        return f"{self.module}.py"

    def function(self, name):
        for fn in self.functions:
            if fn.name == name:
                return fn
        raise KeyError(f"{self.module} has no function {name!r}")


@lru_cache(maxsize=None)
def _load():
    return yaml.safe_load((DATA_DIR / "manifest.yaml").read_text(encoding="utf-8"))


def provided_modules():
    """Names of the provided flat modules (copied to exercises/ as they are, never graded)."""
    return tuple(_load()["provided"])


@lru_cache(maxsize=None)
def steps():
    """All steps, in order."""
    return tuple(
        Step(
            number=k,
            module=raw["module"],
            title=raw["title"],
            lesson=raw["lesson"],
            depends_on=tuple(raw["depends_on"]),
            functions=tuple(Function(name, tuple(spec["returns"])) for name, spec in raw["functions"].items()),
        )
        for k, raw in enumerate(_load()["steps"], start=1)
    )


def step(module):
    """The step whose module name is `module` (e.g. "step4_softmax")."""
    for s in steps():
        if s.module == module:
            return s
    raise KeyError(f"no step named {module!r}; steps are {[s.module for s in steps()]}")
