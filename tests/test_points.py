"""Points follow work on inputs the learner has not seen: a function's public and property cases pay
only when it also passes a hidden value case (docs/GRADING.md, "Points")."""
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from attnkit import cases, credit, manifest, reference
from attnkit.grader import submission
from attnkit.grader.grade import grade
from attnkit.grader.plan import Plan
from attnkit.grader.runners import InProcessRunner
from attnkit_runtime.judge import call_named, invoke, named_outputs
from attnkit_runtime.messages import MESSAGES
from attnkit.paths import ROOT, SOLUTIONS_DIR


@lru_cache(maxsize=None)
def _files():
    """Every step file present (the runner makes the calls); read when a test runs, not at collection."""
    return submission.read(str(SOLUTIONS_DIR)).sources


@lru_cache(maxsize=None)
def track_plan(track):
    return Plan(track)


def arguments_key(kwargs):
    """The bytes of one call's arguments, as a submission that prints its inputs could key a table by."""
    digest = hashlib.sha256()
    for name in sorted(kwargs):
        for value in kwargs[name] if name.startswith("*") else [kwargs[name]]:
            arr = np.asarray(value)
            digest.update(f"{name}|{arr.dtype.str}|{arr.shape}|".encode() + np.ascontiguousarray(arr).tobytes())
    return digest.hexdigest()


def public_answers(plan):
    """{(step, function, arguments' bytes): the reference's whole result} for every public call: all of
    what the student release prints about them, and more."""
    table = {}
    for planned in plan.cases:
        if planned.case.public:
            fn = reference.reference_function(planned.case.step.module, planned.case.function)
            for kwargs in planned.calls:
                key = (planned.case.step.module, planned.case.function, arguments_key(kwargs))
                table[key] = tuple(call_named(fn, planned.case.returns, kwargs).values())
    return table


def zeros(form, call):
    return np.zeros_like(form)


def ones(form, call):
    return np.ones_like(form)


def echo(form, call):
    """An argument of the result's shape given back unchanged (for a scale, a polarity flip, a split: a
    known mistake's output), else zeros."""
    same = [np.asarray(v) for key, value in call.items() for v in (value if key.startswith("*") else [value])
            if np.shape(v) == form.shape]
    return same[0].astype(form.dtype) if same else np.zeros_like(form)


def computes_nothing(plan, table, unseen=zeros):
    """Overrides for every function: the answer of `table` for a call it holds, else `unseen(form, call)`
    for each part, `form` the reference's result (only its shape and dtype are used)."""
    def stand_in(step, function):
        returns = manifest.step(step).function(function).returns
        ref = reference.reference_function(step, function)

        def looked_up(*args, **kwargs):
            call = {**kwargs, **({"*visibles": list(args)} if args else {})}
            found = table.get((step, function, arguments_key(call)))
            if found is None:
                forms = named_outputs(returns, invoke(ref, call)).values()
                found = tuple(unseen(np.asarray(form), call) for form in forms)
            return found if len(found) > 1 else found[0]
        return looked_up
    return {(p.case.step.module, p.case.function): stand_in(p.case.step.module, p.case.function) for p in plan.cases}


def graded(track, overrides):
    return grade(track_plan(track), InProcessRunner(overrides), _files(), "x")


@pytest.mark.parametrize("unseen", [zeros, ones, echo], ids=lambda f: f.__name__)
@pytest.mark.parametrize("track", manifest.tracks())
def test_a_lookup_table_of_the_public_cases_earns_almost_nothing(track, unseen):
    """Unseen inputs get a constant or an argument back: no evidence, even where it is right (one query
    sees every key: all True) or is what a known mistake gives (scale_scores returning kq)."""
    plan = track_plan(track)
    result = graded(track, computes_nothing(plan, public_answers(plan), unseen))
    public = [t for t in result.tests if t.public]
    assert sum(t.status == "passed" for t in public) > len(public) / 2  # the table does pass them
    assert result.score <= 5, result.steps


@pytest.mark.parametrize("track", manifest.tracks())
def test_zeros_of_the_right_shape_score_0(track):
    result = graded(track, computes_nothing(track_plan(track), {}))
    assert any(t.status == "passed" for t in result.tests)  # a property or two still holds for zeros
    assert result.score == 0.0, [(t.name, t.score) for t in result.tests if t.score]


@pytest.mark.parametrize("track", manifest.tracks())
def test_the_solutions_score_100_and_every_test_pays(track):
    result = graded(track, {})
    assert result.score == 100.0
    assert all(t.status == "passed" and t.score == t.max_score and t.output == "" for t in result.tests)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_passed_test_that_does_not_pay_says_why_and_scores_0(monkeypatch, lang):
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    plan = track_plan(manifest.DEFAULT_TRACK)
    result = graded(manifest.DEFAULT_TRACK, computes_nothing(plan, public_answers(plan)))
    unpaid = [t for t in result.tests if t.status == "passed" and t.score == 0.0]
    assert unpaid and all(t.public or cases.case(t.name).kind == "property" for t in unpaid)
    note = MESSAGES["grade.unpaid"][lang].split("{")[0]
    for t in unpaid:
        assert note in t.output and cases.case(t.name).function in t.output, t.output


@pytest.mark.parametrize("track", manifest.tracks())
def test_the_tests_scores_add_up_to_the_score(track):
    plan = track_plan(track)
    for overrides in ({}, computes_nothing(plan, public_answers(plan))):
        result = graded(track, overrides)
        assert abs(sum(t.score for t in result.tests) - result.score) < 1e-4
        for module, (score, _) in result.steps.items():
            assert abs(sum(t.score for t in result.tests if t.step == module) - score) < 1e-4


def test_every_function_with_public_cases_has_a_hidden_value_case_on_unseen_inputs():
    """The evidence a public case's points need exists, and a table of the public calls cannot give it:
    a hidden value case on other arguments whose right result is not a constant."""
    for track in manifest.tracks():
        plan = track_plan(track)
        seen = {(p.case.step.module, p.case.function, arguments_key(kwargs))
                for p in plan.cases if p.case.public for kwargs in p.calls}
        for step, function in {(p.case.step.module, p.case.function) for p in plan.cases if p.case.public}:
            unseen = [p.case.name for p in plan.cases if credit.hidden_value(p.case)
                      and (p.case.step.module, p.case.function) == (step, function)
                      and all((step, function, arguments_key(kwargs)) not in seen for kwargs in p.calls)
                      and any(np.unique(v).size > 1 or (np.ndim(v) == 0 and v != 0)
                              for out in p.expected for v in out.values())]
            assert unseen, f"{step}.{function} has public cases but no hidden value case on other inputs"


def _points_rule_tool():
    spec = importlib.util.spec_from_file_location("points_rule", ROOT / "tools" / "points_rule.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_known_mistakes_keep_their_diagnoses_and_move_by_at_most_5_points():
    """Every mistake of the catalogue and every buggy edit of the bench, on both tracks (tools/points_rule.py)."""
    rows = _points_rule_tool().rows()
    assert len(rows) >= 50
    for row in rows:
        assert row.named, row
        assert abs(row.after - row.before) <= 5, row


def test_without_hidden_cases_every_passed_case_pays():
    """An installed kit without autograder/cases/: nothing can show the work, and public_only_notice says so."""
    plan = track_plan(manifest.DEFAULT_TRACK)
    public = [p for p in plan.cases if p.case.public]
    judged = [p for p in graded(manifest.DEFAULT_TRACK, computes_nothing(plan, public_answers(plan))).tests
              if p.public]
    assert credit.paid(public, judged, {}) == [t.status == "passed" for t in judged]
    assert any(t.status == "passed" for t in judged)


def test_a_results_store_graded_under_another_points_rule_is_regraded(tmp_path, monkeypatch):
    """The kit's code, the rule among it, is part of the plan's fingerprint (fingerprint.py: the results store's key), like
    the cases and the rubric."""
    import shutil

    from attnkit import fingerprint

    before = fingerprint.kit_fingerprint(manifest.DEFAULT_TRACK)
    package = shutil.copytree(Path(credit.__file__).parent, tmp_path / "attnkit")
    (package / "credit.py").write_text((package / "credit.py").read_text(encoding="utf-8") + "\n# another rule\n",
                                       encoding="utf-8")
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", package)
    assert fingerprint.kit_fingerprint(manifest.DEFAULT_TRACK) != before
