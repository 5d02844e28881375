"""What a case's calls must give, in the kit: its stored value, the reference solution's result, or the
gradient of a reference function by finite differences (for a property case, the shapes and dtypes of the
reference's results).

The judging itself (compare, evaluate, the teaching message) is the portable core, `attnkit_runtime.judge`;
this is the one part of it that needs the reference, which neither the release nor the notebook holds.
"""
import numpy as np

from attnkit_runtime.judge import as_array, pick
from .gradients import finite_differences
from .reference import reference_outputs


def expected_outputs(case, calls):
    """What each call must give: a list of {part name: array}, or None for a property case."""
    expect = case.expect
    if "value" in expect:
        label = expect.get("pick", case.returns[0])
        return [{label: as_array(expect["value"], expect.get("dtype"))}]
    if "reference" in expect:
        outputs = reference_outputs(case, calls)
        if "pick" in expect:
            return [{expect["pick"]: pick(out, expect["pick"])} for out in outputs]
        return outputs
    if "finite_differences" in expect:
        return [finite_differences(expect["finite_differences"], kwargs) for kwargs in calls]
    return None


def expected_forms(case, calls):
    """For a property case, what each call's results must look like: a list of {part: (shape, dtype)},
    those of the reference's results on the same calls (their values are never compared); else None."""
    if "property" not in case.expect:
        return None
    return [{part: (np.shape(value), np.asarray(value).dtype) for part, value in out.items()}
            for out in reference_outputs(case, calls)]
