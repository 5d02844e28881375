"""Every text a learner reads in a hand-out exists in English and in Chinese: the stubs' input checks and
docstrings, the cases' property explanations, the release's README and the notebook's Markdown."""
import ast
import re

import pytest

from attnkit import stubs
from attnkit_runtime import i18n

from test_messages import _provided_checks

CHINESE = re.compile(r"[\u4e00-\u9fff]")
RAISED = ("ValueError", "TypeError")


def _stub_trees():
    """{file name: parsed source} of every step stub and provided module the learner is handed."""
    return {name: ast.parse(text) for name, text in stubs.generated_files().items()
            if name.endswith(".py") and not name.startswith("test_") and name != "conftest.py"}


def _worded_raises(tree):
    """The line of each `raise ValueError/TypeError(...)` whose message is written in place (a string or
    f-string, in one language), not taken from the provided checks' two-language table with say()."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", "") in RAISED:
            message = node.exc.args[0] if node.exc.args else None
            if message is not None and getattr(getattr(message, "func", None), "id", "") == "say":
                continue
            if message is not None and any(isinstance(part, (ast.Constant, ast.JoinedStr)) for part in ast.walk(message)):
                lines.append(node.lineno)
    return lines


def test_every_input_check_of_the_stubs_is_worded_in_both_languages():
    worded = [f"exercises/{name}:{line}" for name, tree in _stub_trees().items() for line in _worded_raises(tree)]
    assert not worded, f"raise with a message written in one language (use say(...) of shape_checks): {worded}"


@pytest.mark.parametrize("lang, text", [("en", "n_key (2) must be >= n_query (3)"),
                                        ("zh", "n_key（2）必须 >= n_query（3）")])
def test_a_steps_own_check_speaks_the_learners_language(monkeypatch, lang, text):
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    assert _provided_checks().say("n_key_below_n_query", n_key=2, n_query=3).startswith(text)
