"""Which language the learner gets, and how a two-language text is picked (attnkit_runtime.i18n)."""
import pytest

from attnkit_runtime import i18n

LOCALE = ("ATTNKIT_LANG", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def bare(monkeypatch):
    for variable in LOCALE:
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


@pytest.mark.parametrize("environment, expected", [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "zh_TW.UTF-8"}, "zh"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL overrides LANG
    ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "zh_CN.UTF-8", "ATTNKIT_LANG": "en"}, "en"),  # the kit's own variable wins
    ({"LANG": "en_US.UTF-8", "ATTNKIT_LANG": "zh"}, "zh"),
    ({"LANG": "zh_CN.UTF-8", "ATTNKIT_LANG": "fr"}, "zh"),  # an unknown choice falls back to the locale
])
def test_the_language_comes_from_attnkit_lang_then_the_locale(bare, environment, expected):
    for variable, value in environment.items():
        bare.setenv(variable, value)
    assert i18n.language() == expected


def test_set_language_is_what_a_lang_option_does_and_refuses_unknown_ones(bare):
    i18n.set_language("zh")
    assert i18n.language() == "zh"
    with pytest.raises(ValueError, match="lang must be one of en, zh, got 'fr'"):
        i18n.set_language("fr")
    assert i18n.language() == "zh"


def test_pick_chooses_the_current_language_and_passes_plain_strings_through(bare):
    text = {"en": "divide by sqrt(D_h)", "zh": "除以 sqrt(D_h)"}
    assert i18n.pick(text) == "divide by sqrt(D_h)"
    assert i18n.pick(text, "zh") == "除以 sqrt(D_h)"
    bare.setenv("ATTNKIT_LANG", "zh")
    assert i18n.pick(text) == "除以 sqrt(D_h)"
    assert i18n.pick("kq [T_q, T_k]") == "kq [T_q, T_k]"


def test_missing_lists_the_languages_a_text_lacks():
    assert i18n.missing({"en": "a", "zh": "甲"}) == []
    assert i18n.missing({"en": "a"}) == ["zh"]
    assert i18n.missing({"en": "a", "zh": "  "}) == ["zh"]
    assert i18n.missing("only English") == ["en", "zh"]
