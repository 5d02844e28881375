"""Diagnoses that used to point the wrong way: each mistake, written as a learner writes it, is named for what
happened (issue 18's newcomer): a float64 input cast down, an error printed where the expected value is 0, inf or a
0-d number, and the known mistakes the catalogue now names (see also test_mistakes.py)."""
import numpy as np
import pytest

from attnkit_runtime.i18n import set_language
from attnkit_runtime.judge import compare

TOLERANCE = {"atol": 1e-6, "rtol": 1e-5}


@pytest.fixture(autouse=True)
def english(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "en")


def test_a_float64_input_cast_down_to_float32_is_said_to_be_cast_down():
    verdict = compare(np.zeros(3), np.zeros(3, dtype=np.float32), TOLERANCE, "O")
    assert verdict.problem == "dtype"
    assert "float64 in must give float64 out" in verdict.message and "cast" in verdict.message, verdict.message
    assert "promotes" not in verdict.message and "turns the result into float64" not in verdict.message


def test_a_float32_result_promoted_to_float64_keeps_its_explanation():
    verdict = compare(np.zeros(3, dtype=np.float32), np.zeros(3), TOLERANCE, "O")
    assert "float32 in must give float32 out" in verdict.message, verdict.message


def test_where_the_expected_value_is_0_the_error_is_absolute():
    verdict = compare(np.array([0.0, 1.0]), np.array([0.5, 1.0]), TOLERANCE, "P")
    assert "largest error 0.5 at (0,): expected 0, got 0.5" in verdict.message, verdict.message
    assert "relative" not in verdict.message and "1e+300" not in verdict.message


def test_where_the_expected_value_is_infinite_no_error_is_computed():
    verdict = compare(np.array([-np.inf, 1.0]), np.array([-1e9, 1.0]), TOLERANCE, "S")
    assert "at (0,): expected -inf, got -1e+09" in verdict.message, verdict.message
    assert "relative" not in verdict.message and "nan" not in verdict.message.lower()


def test_a_0d_value_gets_its_relative_error():
    verdict = compare(np.array(2.0), np.array(3.0), TOLERANCE, "x")
    assert "largest error 1 (relative 0.5) at (): expected 2, got 3" in verdict.message, verdict.message


def test_the_chinese_messages_say_the_same(monkeypatch):
    set_language("zh")
    zero = compare(np.array([0.0, 1.0]), np.array([0.5, 1.0]), TOLERANCE, "P").message
    assert "相对误差" not in zero and "应为 0，实际是 0.5" in zero, zero
    narrowed = compare(np.zeros(3), np.zeros(3, dtype=np.float32), TOLERANCE, "O").message
    assert "输入 float64，输出也必须是 float64" in narrowed, narrowed
