"""The one stored case form (attnkit.portable_cases writes it, attnkit_runtime/stored.py reads it): the
release's (large arrays in an .npz), the hidden file's (large arrays as base64) and the notebook's checks
cell's (large mistake outputs sampled) give back the case's arguments and expected values, and name the
mistake the kit's catalogue names."""
import io
import json

import numpy as np
import pytest

from attnkit import checks, mistakes, portable_cases
from attnkit.cases import cases_for
from attnkit_runtime import harness, stored
from attnkit_runtime.judge import named_outputs, portable_case

CASES = {c.name: c for c in cases_for(visibility="public")}


def _stored_form(case, kind):
    """(spec as read back from its JSON, the .npz store or None) of `case` stored the `kind` way."""
    if kind != "npz":
        return json.loads(json.dumps(portable_cases.case_spec(case, sampled=kind == "sampled"))), None
    store = portable_cases.NpzStore()
    spec = json.loads(json.dumps(portable_cases.case_spec(case, store)))
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **store.arrays)
    return spec, np.load(io.BytesIO(buffer.getvalue()))


@pytest.mark.parametrize("kind", ["npz", "base64", "sampled"])
@pytest.mark.parametrize("name, code", [("attention_twelve_heads", "scale_missing"),
                                        ("split_heads_gpt2_small_sizes", "heads_split_without_transpose"),
                                        ("raw_scores_twelve_heads", "batch_transpose")])
def test_a_stored_case_gives_back_its_values_and_names_the_catalogues_mistake(kind, name, code):
    case = CASES[name]
    spec, store = _stored_form(case, kind)
    calls = [stored.call(call, store) for call in spec["calls"]]
    for got, want in zip(calls, case.build_calls()):
        assert got.keys() == want.keys() and all(np.array_equal(got[a], want[a]) for a in want)
    for got, want in zip(stored.outputs(spec["expected"], store), checks.expected_outputs(case, calls)):
        assert all(np.array_equal(got[p], want[p]) for p in want)
    wrong = mistakes.mistaken_function(code, case.step.module, case.function)
    portable = portable_case(case.step.module, spec)
    outcome = harness.call_case(wrong, portable, calls)
    result = harness.judge_outcome(portable, calls, outcome, stored.outputs(spec["expected"], store), portable.forms,
                                   stored.StoredMistakes({name: spec["mistakes"]}, store))
    if outcome.results is not None:
        assert mistakes.diagnose(case, calls, outcome.results) == code
    else:
        assert mistakes.diagnose_exception(case, outcome.error_type, outcome.error) == code
    assert result.diagnosis == code and result.diagnosis_text.startswith(mistakes.describe(code))  # and any alike


def test_every_mistake_that_fails_a_case_is_stored_whatever_its_size():
    case = CASES["attention_twelve_heads"]
    calls = case.build_calls()
    failing = mistakes.failing(case, calls, checks.expected_outputs(case, calls), None)
    spec = portable_cases.case_spec(case)
    assert [m["code"] for m in spec["mistakes"]] == [code for code, _ in failing]
    assert any("b64" in part for m in spec["mistakes"] for out in m.get("outputs", []) for part in out.values())
    sampled = portable_cases.case_spec(case, sampled=True)
    assert [m["code"] for m in sampled["mistakes"]] == [code for code, _ in failing]


def test_a_sampled_mistake_is_not_named_for_a_result_that_departs_from_it_at_one_of_its_cells():
    case = CASES["attention_twelve_heads"]
    spec = portable_cases.case_spec(case, sampled=True)
    calls = [stored.call(call) for call in spec["calls"]]
    portable = portable_case(case.step.module, spec)
    wrong = named_outputs(portable.returns, mistakes.mistaken_function("scale_missing", case.step.module,
                                                                       case.function)(**calls[0]))
    part, kept = next((p, v) for m in spec["mistakes"] if m["code"] == "scale_missing"
                      for p, v in m["outputs"][0].items() if "sample" in v)
    other = {**wrong, part: wrong[part].copy()}
    other[part].reshape(-1)[kept["sample"]["index"][0]] += 1.0  # its other parts are still the mistake's
    diagnosis = stored.StoredMistakes({case.name: spec["mistakes"]})
    assert diagnosis.of_results(portable, calls, [wrong]) == "scale_missing"
    assert diagnosis.of_results(portable, calls, [other]) != "scale_missing"
