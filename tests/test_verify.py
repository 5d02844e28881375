"""`attnkit verify`: solutions 100, stubs 0, every known mistake caught and named, the public/hidden gap."""
from attnkit import mistakes
from grading_support import run_cli


def test_verify_passes_and_lists_every_mistake():
    done = run_cli("verify")
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout
    assert "ok   solutions/ scores 100" in text and "ok   exercises/ scores 0" in text
    for code in mistakes.catalogue():
        assert f"ok   {code} " in text
    assert "public/hidden gap" in text and text.strip().endswith("checks passed")
