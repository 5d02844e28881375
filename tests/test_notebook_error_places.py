"""An error in a notebook graded by `attnkit grade` names the notebook, the step's cell (by the heading
above it) and the line in that cell, not the step module rebuilt from it (step5_values.py, a file the
learner does not have), whether the kit's imports join the cell's first line or sit on lines of their own."""
import json

import pytest

from grading_support import grade_path

HEADING = "## Step 5 · Weighted sum of the values"
SHOWN = 'attention.ipynb, the cell under "Step 5 · Weighted sum of the values"'
DOCSTRING_FIRST = '"""Step 5."""\nimport numpy as np\n\n\ndef weighted_sum(P, V):\n    return P @ v\n'  # line 6
DEF_FIRST = "def weighted_sum(P, V):\n    return P @ v\n"  # line 2; a `def` cannot follow the header's `;`


def _notebook(tmp_path, code, tagged=True):
    meta = {"nbgrader": {"grade_id": "step5_values", "solution": True}} if tagged else {}
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Attention\n"},
             {"cell_type": "code", "metadata": {}, "source": "import numpy as np\n", "outputs": []},
             {"cell_type": "markdown", "metadata": {}, "source": f"{HEADING}\n\nWeigh each value by P.\n"},
             {"cell_type": "code", "metadata": meta, "source": code, "outputs": []}]
    path = tmp_path / "attention.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    return path


def _outputs(graded):
    return "\n".join(t.output for t in graded.tests if t.step == "step5_values")


@pytest.mark.parametrize("code, line", [(DOCSTRING_FIRST, 6), (DEF_FIRST, 2)], ids=["header_joined", "header_above"])
@pytest.mark.parametrize("tagged", [True, False], ids=["tagged", "found_by_its_defs"])
def test_a_traceback_names_the_notebooks_cell_and_its_line(tmp_path, code, line, tagged):
    shown = _outputs(grade_path(_notebook(tmp_path, code, tagged)))
    assert f"{SHOWN}, line {line}, in weighted_sum: return P @ v" in shown, shown
    assert "step5_values.py" not in shown


def test_a_syntax_error_names_the_notebooks_cell_and_its_line(tmp_path):
    shown = _outputs(grade_path(_notebook(tmp_path, DEF_FIRST.replace("return P @ v", "return P @@ V"))))
    assert f"{SHOWN} has a syntax error on line 2" in shown, shown
    assert "step5_values.py" not in shown
