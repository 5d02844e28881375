"""The case catalogue: every test of the kit, public or hidden, as data.

Two files per step: the public cases in the package (data/cases/<step>.yaml) and the hidden ones
on the instructor's side (autograder/cases/<step>.yaml, absent from an installed kit: then only
the public cases exist). A case names the function it calls, the arguments of one or more calls, and
what the result must be. The public tests, the grader, the nbgrader builder and the reports all
read cases through this module; see docs/CASES.md for the file format.
"""
import copy
from dataclasses import dataclass
from functools import lru_cache

from . import gradients, lessons, manifest
from attnkit_runtime import judge
from .data_texts import gaps, two_languages
from .messages import say
from attnkit_runtime.i18n import LANGUAGES
from .paths import CASES_DIR, HIDDEN_CASES_DIR
from .reference import reference_function
from .yaml_data import read_yaml

DEFAULT_TOLERANCE = {"atol": 1e-8, "rtol": 1e-6}
EXPECTATIONS = ("value", "reference", "finite_differences", "property")  # the kinds of `expect` (docs/CASES.md)


@dataclass(frozen=True)
class Case:
    """One test. `calls` holds the raw argument specs; `build_calls()` makes the arrays."""

    name: str  # unique across the catalogue, e.g. "softmax_three_scores"
    step: manifest.Step
    function: str
    visibility: str  # "public" or "hidden"
    concept: dict  # what it checks, in a learner's words, {lang: text} (shown via i18n.pick)
    lesson: str  # where to read: a lesson reference, e.g. "step4_softmax#stability" (attnkit.lessons)
    calls: tuple  # of dict: argument name -> spec
    expect: dict  # see docs/CASES.md
    tolerance: dict  # {"atol": …, "rtol": …}
    weight: float  # share of the step's points (manifest.yaml) relative to the step's other cases
    hint: dict  # extra teaching text shown when it fails, {lang: text}, or "" if none (shown via i18n.pick)

    @property
    def read(self):
        """Where to read, as the learner opens it: "lessons/en/step4_softmax.md#stability"."""
        return lessons.link(self.lesson)

    @property
    def public(self):
        return self.visibility == "public"

    @property
    def kind(self):
        """"value" (stored result), "reference" (the reference solution's result), "finite_differences" (the
        gradient of a reference function, attnkit.gradients) or "property"."""
        return next(k for k in EXPECTATIONS if k in self.expect)

    @property
    def returns(self):
        return self.step.function(self.function).returns

    def build_calls(self, build=None):
        """Return a fresh list of keyword-argument dicts, one per call (arrays made anew each time).

        A key "*name" holds a list of values passed positionally (for `combine_visible(*visibles)`);
        `judge.invoke` knows how to call with it. `build` makes one argument from its spec (`build_arg` by
        default; the public tests keep the large ones on disk, `kept_inputs.keep(build_arg)`).
        """
        build = build or build_arg
        return [{arg: [build(s) for s in spec] if arg.startswith("*") else build(spec)
                 for arg, spec in call.items()} for call in self.calls]

    def __str__(self):
        return self.name


def build_arg(spec):
    """One argument spec as a value; a spec that calls a reference function runs the reference."""
    return judge.build_arg(spec, _reference_call)


def _reference_call(target, args):
    module, function = target.split(".")
    fn = reference_function(module, function)
    return fn(*[build_arg(a) for a in args]) if isinstance(args, list) else fn(**{k: build_arg(v) for k, v in args.items()})


def _learner_texts(raw):
    """{field: (where, text)} of the texts of a raw case that a learner reads: its concept, its hint if any,
    the explanation of a property it checks (`expect: {explain: …}`) if any."""
    texts = {key: (f"case {raw.get('name')!r}: {key}", raw.get(key)) for key in ("concept", "hint")
             if key == "concept" or key in raw}
    if "explain" in (raw.get("expect") or {}):
        texts["explain"] = (f"case {raw.get('name')!r}: expect.explain", raw["expect"]["explain"])
    return texts


def _parse_case(step, raw, defaults, side):
    known = {"name", "function", "visibility", "concept", "lesson", "args", "calls", "expect",
             "tolerance", "weight", "hint"}
    if set(raw) - known:
        raise ValueError(f"case {raw.get('name')!r}: unknown keys {sorted(set(raw) - known)}")
    if ("args" in raw) == ("calls" in raw):
        raise ValueError(f"case {raw.get('name')!r}: give either args (one call) or calls (several)")
    step.function(raw["function"])  # KeyError for a function the step does not have
    expect = raw["expect"]
    if sum(k in expect for k in EXPECTATIONS) != 1:
        raise ValueError(f"case {raw['name']!r}: expect needs exactly one of {' / '.join(EXPECTATIONS)}")
    if "finite_differences" in expect:
        gradients.check(expect["finite_differences"], step.function(raw["function"]).returns, f"case {raw['name']!r}")
    if "property" in expect and expect["property"] not in judge.PROPERTIES:
        raise ValueError(f"case {raw['name']!r}: unknown property {expect['property']!r}; the properties are "
                         f"{', '.join(judge.PROPERTIES)}")
    visibility = raw.get("visibility", side)
    if visibility != side:
        raise ValueError(f"case {raw['name']!r}: visibility {visibility!r} in a file of {side} cases "
                         "(public cases go in src/attnkit/data/cases/, hidden ones in autograder/cases/)")
    try:
        lessons.parse(raw.get("lesson", step.lesson))  # now, not when a failure message is written
    except ValueError as err:
        raise ValueError(f"case {raw['name']!r}: {err}") from None
    texts = {key: two_languages(*where_text) for key, where_text in _learner_texts(raw).items()}
    return Case(
        name=raw["name"],
        step=step,
        function=raw["function"],
        visibility=visibility,
        concept=texts["concept"],
        lesson=raw.get("lesson", step.lesson),
        calls=tuple(copy.deepcopy(raw["calls"] if "calls" in raw else [raw["args"]])),
        expect=copy.deepcopy(expect),
        tolerance={**DEFAULT_TOLERANCE, **defaults.get("tolerance", {}), **raw.get("tolerance", {})},
        weight=float(raw.get("weight", 1.0)),
        hint={lang: text.strip() for lang, text in texts["hint"].items()} if "hint" in texts else "",
    )


def hidden_cases_available():
    """True when the hidden cases are on disk (a checkout, or ATTNKIT_ROOT holding autograder/)."""
    return HIDDEN_CASES_DIR.is_dir()


def public_only_notice():
    """What a command that grades or builds tests says when the hidden cases are missing, else None."""
    if hidden_cases_available():
        return None
    return say("cases.public_only", folder=HIDDEN_CASES_DIR)


def _case_files(step):
    """(path, visibility) of the files holding a step's cases: public, then hidden when present."""
    files = [(CASES_DIR / f"{step.module}.yaml", "public")]
    if hidden_cases_available():
        files.append((HIDDEN_CASES_DIR / f"{step.module}.yaml", "hidden"))
    return files


@lru_cache(maxsize=None)
def all_cases():
    """Every case, in manifest step order, public before hidden, then file order."""
    cases, seen = [], set()
    for step in manifest.steps():
        for path, side in _case_files(step):
            data = read_yaml(path)
            cases += _parse_file(step, data, side, seen)
    return tuple(cases)


def _parse_file(step, data, side, seen):
    cases = []
    for raw in data["cases"]:
        case = _parse_case(step, raw, data.get("defaults", {}), side)
        if case.name in seen:
            raise ValueError(f"case name {case.name!r} is used twice")
        seen.add(case.name)
        cases.append(case)
    return cases


def cases_for(step_module=None, visibility=None, function=None):
    """The cases of one step (and optionally one visibility, one function)."""
    return [c for c in all_cases()
            if (step_module is None or c.step.module == step_module)
            and (visibility is None or c.visibility == visibility)
            and (function is None or c.function == function)]


def concepts(cases, but=()):
    """{lang: the concepts of `cases` in that language, in order, without repeats and without those of
    the cases `but`}: deduplicated per language, a two-language text whose values are lists (i18n.pick)."""
    known = {lang: {b.concept[lang] for b in but} for lang in LANGUAGES}
    return {lang: [text for text in dict.fromkeys(c.concept[lang] for c in cases) if text not in known[lang]]
            for lang in LANGUAGES}


def hidden_concepts(step_module):
    """Concepts only the hidden cases of a step check, as `concepts` gives them."""
    return concepts(cases_for(step_module, "hidden"), but=cases_for(step_module, "public"))


def text_gaps():
    """One line per concept or hint of the case files (public and hidden) missing a language: all of them,
    where loading stops at the first."""
    return gaps((f"{path.name}: {where}", text) for step in manifest.steps() for path, _ in _case_files(step)
                for raw in read_yaml(path)["cases"]
                for where, text in _learner_texts(raw).values())


def case(name):
    """The case called `name`."""
    for c in all_cases():
        if c.name == name:
            return c
    raise KeyError(f"no case named {name!r}")
