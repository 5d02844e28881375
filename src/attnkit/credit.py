"""Which passed cases earn their points, for `attnkit grade`: the rule is the learner runtime's
(attnkit_runtime.credit, which the notebook's test cells use too), read here from the grading plan
and the sandbox's results.
"""
from attnkit_runtime import credit
from attnkit_runtime.credit import step_score  # noqa: F401  (grade.py's step points)


def hidden_value(case):
    """Whether `case` compares values on inputs the learner has not seen."""
    return not case.public and case.kind != "property"


def paid(planned, judged, results):
    """[bool] per case: whether it earns its points. `planned`: the plan's cases (`.case`, `.calls`, `.keys`, `.value`);
    `judged`: their results (`.status`, `.diagnosis`), in the same order; `results`: the run's
    {job key: sandbox.CallResult}."""
    return credit.paid([credit.Judged((p.case.step.module, p.case.function), p.case.public, p.value,
                                      t.status, t.diagnosis, p.case.tolerance, _parts(p, results))
                        for p, t in zip(planned, judged)])


def _parts(planned, results):
    """The function giving (call's arguments, a part of its result) for every part of every call of a case."""
    return lambda: [(call, value) for call, key in zip(planned.calls, planned.keys) for value in results[key].parts.values()]
