"""The ordered step manifest (data/manifest.yaml) as objects."""
from dataclasses import dataclass
from functools import lru_cache

from . import lessons
from .data_texts import gaps, two_languages
from attnkit_runtime.i18n import LANGUAGES
from .paths import DATA_DIR
from .yaml_data import read_yaml


@dataclass(frozen=True)
class Function:
    name: str
    returns: tuple  # names of the parts of the result, e.g. ("O", "P")


@dataclass(frozen=True)
class Step:
    number: int
    module: str
    title: dict  # {lang: text} (shown via i18n.pick)
    about: dict  # the notebook's explanation of the step (Markdown), {lang: text}
    lesson: str
    points: int | float  # what the step is worth in its track (rubric.py checks each track totals 100)
    depends_on: tuple
    functions: tuple  # of Function, in manifest order
    track: str  # the assignment it belongs to: "core" (steps 1–6), "extension" (7–9) or "modern" (10–13)

    @property
    def read(self):
        """Where to read, as the learner opens it: "lessons/en/step4_softmax.md"."""
        return lessons.link(self.lesson)

    @property
    def titles(self):
        """The title in every language, "English · 中文", for generated files that every learner reads."""
        return " · ".join(self.title[lang] for lang in LANGUAGES)

    @property
    def track_title(self):
        """The title of the step's track, {lang: text} (the manifest's `tracks:`)."""
        return track_title(self.track)

    @property
    def filename(self):
        return f"{self.module}.py"

    def function(self, name):
        for fn in self.functions:
            if fn.name == name:
                return fn
        raise KeyError(f"{self.module} has no function {name!r}")


DEFAULT_TRACK = "core"  # a step without `track:` belongs to the core assignment


@lru_cache(maxsize=None)
def _load():
    return read_yaml(DATA_DIR / "manifest.yaml")


def provided_modules():
    """Names of the provided flat modules (copied to exercises/ as they are, never graded)."""
    return tuple(_load()["provided"])


def steps(track=None):
    """The steps of `track` (all steps when None), in order."""
    if track is not None and track not in tracks():
        raise ValueError(f"no track {track!r}; tracks are {list(tracks())}")
    return tuple(s for s in _all_steps() if track is None or s.track == track)


def tracks():
    """Track names in the order their first steps come: ("core", "extension", "modern")."""
    return tuple(dict.fromkeys(s.track for s in _all_steps()))


def track_title(track):
    """`track`'s title, {lang: text} (the manifest's `tracks:`), for the front ends that name a track."""
    titles = _load().get("tracks") or {}
    if track not in titles:
        raise ValueError(f"manifest.yaml: track {track!r} has no title under `tracks:` (docs/ADDING_A_STEP.md)")
    return two_languages(f"tracks: {track}", titles[track])


@lru_cache(maxsize=None)
def _all_steps():
    return tuple(
        Step(
            number=k,
            module=raw["module"],
            title=two_languages(*_texts(k, raw)[0]),
            about={lang: text.strip() for lang, text in two_languages(*_texts(k, raw)[1]).items()},
            lesson=raw["lesson"],
            points=_points(k, raw),
            depends_on=tuple(raw["depends_on"]),
            functions=tuple(Function(name, tuple(spec["returns"])) for name, spec in raw["functions"].items()),
            track=raw.get("track", DEFAULT_TRACK),
        )
        for k, raw in enumerate(_load()["steps"], start=1)
    )


def _texts(number, raw):
    """[(where, text)] of a raw step's texts a learner reads: its title, its `about`."""
    return [(f"step {number} ({raw.get('module')}): {key}", raw.get(key)) for key in ("title", "about")]


def _points(number, raw):
    """A raw step's `points`, a number >= 0."""
    points = raw.get("points")
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
        raise ValueError(f"manifest.yaml step {number} ({raw.get('module')}): points must be a number >= 0, "
                         f"got {points!r} (each track's steps total 100: docs/ADDING_A_STEP.md)")
    return points


def text_gaps():
    """One line per step text missing a language: all of them, where loading stops at the first."""
    titles, raws = _load().get("tracks") or {}, _load()["steps"]
    named = dict.fromkeys(raw.get("track", DEFAULT_TRACK) for raw in raws)  # as tracks(), without loading the steps
    return gaps([pair for k, raw in enumerate(raws, start=1) for pair in _texts(k, raw)]
                + [(f"tracks: {track}", titles.get(track)) for track in named])


def step(module):
    """The step whose module name is `module` (e.g. "step4_softmax")."""
    for s in steps():
        if s.module == module:
            return s
    raise KeyError(f"no step named {module!r}; steps are {[s.module for s in steps()]}")
