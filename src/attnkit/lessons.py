"""References to the kit's lessons (`lessons/en/`, `lessons/zh/`: same file names, same anchors).

The kit's data (case files, the manifest, the mistake catalogue) names a lesson with one short form,
`<lesson>` or `<lesson>#<anchor>`, e.g. "step2_scores#scale"; `link` renders it as the path a learner
opens, in their language: "lessons/en/step2_scores.md#scale". An anchor is the id of an
`<a id="…"></a>` line placed right before a heading, identical in both languages.
"""
import re

from attnkit_runtime.i18n import LANGUAGES, check_language, language

REFERENCE = re.compile(r"(?P<lesson>[a-z0-9_]+)(?:#(?P<anchor>[a-z0-9-]+))?")


def parse(reference):
    """(lesson, anchor or None) of a reference such as "step3_masks#combine"; ValueError if malformed."""
    match = REFERENCE.fullmatch(reference) if isinstance(reference, str) else None
    if match is None:
        raise ValueError(f"lesson reference must look like 'step3_masks' or 'step3_masks#combine', got {reference!r}")
    return match["lesson"], match["anchor"]


def link(reference, lang=None):
    """The path of `reference` under the kit's root, e.g. "lessons/zh/step3_masks.md#combine".

    `lang` defaults to `i18n.language()`; generated files (stubs, notebook) pass "en" so they do not
    depend on the environment of whoever builds them.
    """
    lesson, anchor = parse(reference)
    lang = check_language(lang or language())
    return f"lessons/{lang}/{lesson}.md" + (f"#{anchor}" if anchor else "")


def links(reference):
    """`reference` as a two-language text {"en": link in English, "zh": …}: what a copy that picks the
    language when it runs (the release) stores."""
    return {lang: link(reference, lang) for lang in LANGUAGES}
