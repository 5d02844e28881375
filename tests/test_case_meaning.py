"""Cases that mean what they say (issue 9 point 5): each input a case names can change its answer."""
import numpy as np

from attnkit.cases import cases_for
from attnkit.reference import reference_function


def test_every_table_of_the_three_table_combine_case_matters():
    combine = reference_function("step3_masks", "combine_visible")
    (case,) = [c for c in cases_for("step3_masks", "hidden", "combine_visible") if c.name == "combine_visible_three_tables"]
    (call,) = case.build_calls()
    tables = call["*visibles"]
    assert len(tables) == 3
    everything = combine(*tables)
    for k in range(3):
        without = combine(*(t for j, t in enumerate(tables) if j != k))
        assert not np.array_equal(without, everything), f"table {k} never hides a cell the others allow"
