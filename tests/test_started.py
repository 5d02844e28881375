"""`started.not_started`: an optional step is not started while its file holds the stub's code."""
import ast

import pytest

from attnkit_runtime.started import Stub, not_started, prints
from attnkit.paths import EXERCISES_DIR


@pytest.fixture(scope="module")
def stub():
    """The text of a stub, as handed out (read when a test runs: collecting needs no exercises/)."""
    return (EXERCISES_DIR / "step8_kv_cache.py").read_text(encoding="utf-8")


def _raise(source):
    return next(line for line in source.splitlines() if "raise NotImplementedError(" in line)


@pytest.mark.parametrize("edit, started", [
    (lambda s: s, False),
    (lambda s: "# my notes\n\n" + s.replace("\n\n\n", "\n\n\n# thinking…\n"), False),  # comments, blank lines
    (lambda s: s.replace(_raise(s), _raise(s).split("raise")[0] + "return None", 1), True),  # one function written
    (lambda s: s.replace(_raise(s), _raise(s).replace("NotImplementedError(", "NotImplementedError('todo', "), 1), True),
    (lambda s: s.replace('"""', '"""My own words. ', 1), True),  # the module's docstring is code
    (lambda s: s + "\ndef broken(:\n", True),  # does not parse: its tests say so
    (lambda s: s.replace("def ", "def\0 ", 1), True),  # a NUL byte: does not parse either
], ids=["as handed out", "comments", "a function written", "another raise", "docstring", "syntax error", "NUL"])
def test_a_step_is_started_by_a_change_of_its_code_only(tmp_path, stub, edit, started):
    path = tmp_path / "step8_kv_cache.py"
    path.write_text(edit(stub), encoding="utf-8")
    for handed_out in (Stub.of_source(stub), Stub.of_prints(prints(stub))):  # the checkout's, the release's
        assert not_started(path, handed_out) is not started


def test_a_missing_file_counts_as_started(tmp_path, stub):
    assert not not_started(tmp_path / "step8_kv_cache.py", Stub.of_source(stub))


def test_the_text_of_an_unchanged_file_is_enough(tmp_path, stub):
    """The syntax tree (milliseconds) is compared only when the text differs."""
    path = tmp_path / "step8_kv_cache.py"
    path.write_text(stub, encoding="utf-8")

    def no_tree():
        raise AssertionError("parsed although the text is the stub's")

    assert not_started(path, Stub(Stub.of_source(stub).text, no_tree))


def test_a_file_that_raises_no_not_implemented_error_is_started_unparsed(tmp_path, stub):
    """Every stub raises NotImplementedError: a finished file, without the word, is not parsed (milliseconds)."""
    path = tmp_path / "step8_kv_cache.py"
    path.write_text(stub.replace("NotImplementedError", "RuntimeError"), encoding="utf-8")

    def no_tree():
        raise AssertionError("parsed although the file raises no NotImplementedError")

    assert not not_started(path, Stub(Stub.of_source(stub).text, no_tree))


def test_the_code_print_is_the_same_on_every_python_the_release_runs_on():
    """The release stores the stub's print made by the kit's Python; a newer one adds empty fields
    (type_params=[] in 3.12) and ast.dump shows some that an older one omits: empty and None fields are left out."""
    from attnkit_runtime.started import _tree_text

    assert _tree_text(ast.parse("def f(x):\n    return x  # mine\n")) == (
        "Module(body=[FunctionDef(name='f', args=arguments(args=[arg(arg='x')]), "
        "body=[Return(value=Name(id='x', ctx=Load()))])])")


def test_a_step_file_is_parsed_once_per_run_whatever_stub_each_test_passes(tmp_path, stub, monkeypatch):
    """Each test of a step asks for its stub anew (the release builds a Stub per test): the file's verdict is
    still worked out once, so a finished step's tests do not parse its file once each."""
    from types import SimpleNamespace

    from attnkit_runtime import pytest_report, started

    path = tmp_path / "step8_kv_cache.py"
    path.write_text(stub.replace(_raise(stub), _raise(stub).split("raise")[0] + "return None", 1), encoding="utf-8")
    handed_out = prints(stub)
    parses = []
    monkeypatch.setattr(started, "code_print", lambda source: parses.append(source) or "mine")
    step = SimpleNamespace(track="extension", number=8, filename=path.name)
    for _ in range(4):
        pytest_report.skip_unstarted(step, tmp_path, lambda: Stub.of_prints(handed_out))
    assert len(parses) == 1
