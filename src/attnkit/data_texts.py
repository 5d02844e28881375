"""The texts a learner reads that live in the kit's data (cases' concepts and hints, the mistake
catalogue's summaries and advice, the manifest's step titles): each exists in every language.

A loader calls `two_languages` on each such text as it reads it, so a text missing a language is
refused when its catalogue loads; `gaps` lists every missing one at once (tests/test_data_texts.py).
"""
from attnkit_runtime.i18n import LANGUAGES, missing

FORMAT = "{" + ", ".join(f'{lang}: "..."' for lang in LANGUAGES) + "}"  # as YAML spells a two-language text


def gap(where, text):
    """What `text` (read at `where`, e.g. "case 'x': concept") lacks, as one line; None when complete."""
    lacking = missing(text)
    if not lacking:
        return None
    return f"{where}: no {' and no '.join(lacking)} text (write it as {FORMAT})"


def two_languages(where, text):
    """`text` when it has every language; ValueError naming `where` and the missing languages otherwise."""
    problem = gap(where, text)
    if problem:
        raise ValueError(problem)
    return dict(text)


def gaps(texts):
    """One line per (where, text) of `texts` that lacks a language, in order."""
    return [problem for where, text in texts if (problem := gap(where, text))]
