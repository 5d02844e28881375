"""The learner's language, and texts that exist in both of the kit's languages.

A text the kit shows a learner is written twice, once per language, as a mapping
`{"en": "...", "zh": "..."}` (in YAML data: `concept: {en: ..., zh: ...}`). `pick` chooses the one
for the current language. Which language: `set_language` (a `--lang` option), else ATTNKIT_LANG,
else the hand-out's own language (data/language beside this file, written by `attnkit release --lang`
and `attnkit nbgrader-course --lang`), else the locale (LC_ALL, LC_MESSAGES, LANG: "zh_CN.UTF-8" and
the like mean Chinese), else English.

This module is part of the portable core that `attnkit release` copies as is: standard library only.
"""
import os
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

LANGUAGES = ("en", "zh")
DEFAULT_LANGUAGE = "en"
ENVIRONMENT = "ATTNKIT_LANG"
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")  # in POSIX precedence: the first one set wins
HANDOUT_LANGUAGE = ("data", "language")  # beside this file in a hand-out made in one language: "zh" or "en"


@lru_cache(maxsize=None)
def handout_language():
    """The language a hand-out was made in (`--lang` of attnkit release / nbgrader-course), None when it
    was made in both (the kit's checkout, a hand-out without --lang)."""
    try:
        chosen = Path(__file__).parent.joinpath(*HANDOUT_LANGUAGE).read_text(encoding="utf-8").strip()
    except OSError:
        return None
    return chosen if chosen in LANGUAGES else None


def language():
    """The learner's language, one of LANGUAGES (see the module's docstring for the order)."""
    chosen = os.environ.get(ENVIRONMENT, "")
    if chosen in LANGUAGES:
        return chosen
    if handout_language():
        return handout_language()
    for variable in LOCALE_VARIABLES:
        value = os.environ.get(variable, "")
        if value:
            return "zh" if value.lower().startswith("zh") else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def check_language(lang):
    """`lang` itself when it is one of LANGUAGES; ValueError naming the choices otherwise."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}, got {lang!r}")
    return lang


def set_language(lang):
    """Use `lang` from now on, in this process and the processes it starts (a `--lang` option)."""
    os.environ[ENVIRONMENT] = check_language(lang)


@contextmanager
def speaking(lang):
    """Inside the block, `language()` is `lang`; after it, what the environment said before."""
    before = os.environ.get(ENVIRONMENT)
    set_language(lang)
    try:
        yield
    finally:
        if before is None:
            del os.environ[ENVIRONMENT]
        else:
            os.environ[ENVIRONMENT] = before


def pick(text, lang=None):
    """The `lang` (default: `language()`) version of `text`, a mapping with one entry per language.

    A plain string is returned as is: names, numbers and code read the same in every language.
    """
    if isinstance(text, str):
        return text
    return text[check_language(lang or language())]


def missing(text):
    """The languages that `text` (a mapping, as `pick` takes) lacks or leaves empty, in LANGUAGES order."""
    return [lang for lang in LANGUAGES if not (isinstance(text, dict) and str(text.get(lang, "")).strip())]
