"""The kit carries what it cites (issue 19): its contract is docs/CONTRACT.md, which matches the kit; no file
cites the unpublished SPEC; every docs/*.md a file names exists; `gradescope-bundle --help` says what it does."""
import re
import subprocess
import zipfile

from attnkit import manifest, mistakes
from attnkit.paths import ROOT
from grading_support import run_cli

CONTRACT = ROOT / "docs" / "CONTRACT.md"
SPEC_CITATION = re.compile(r"\bSPEC\b")  # SPEC_DIR, SPECIAL and as_spec() are names, not citations
DOC_CITATION = re.compile(r"(?:docs/|\]\()([A-Z][A-Z_]*\.md)\b")


def _tracked_text():
    """{path: text} of every file git tracks in the kit (this file aside), text files only."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    texts = {}
    for name in filter(None, names):
        path = ROOT / name.decode()
        if path.is_file() and path != ROOT / "tests" / "test_contract.py":
            try:
                texts[path] = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # a binary file
    return texts


def _table(section):
    """The first cells (backticks dropped) of the rows of the table under CONTRACT.md's `## section`."""
    text = CONTRACT.read_text(encoding="utf-8").split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [[cell.strip().strip("`") for cell in line.strip("|").split(" | ")]
            for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| module", "| code"))]


def test_no_file_cites_the_unpublished_spec():
    citing = [f"{path.relative_to(ROOT)}:{k}" for path, text in _tracked_text().items()
              for k, line in enumerate(text.splitlines(), 1) if SPEC_CITATION.search(line)]
    assert not citing


def test_every_cited_doc_exists():
    cited = {(path.relative_to(ROOT).as_posix(), name) for path, text in _tracked_text().items()
             for name in DOC_CITATION.findall(text)}
    assert not [(where, name) for where, name in sorted(cited) if not (ROOT / "docs" / name).is_file()]


def test_the_contract_names_every_step_function_of_the_manifest():
    rows, module = [], None
    for cells in _table("The steps"):
        module = cells[0] or module
        rows.append((module, cells[1].split("(", 1)[0]))
    assert rows == [(step.module, f.name) for step in manifest.steps() for f in step.functions]


def test_the_contract_lists_exactly_the_catalogues_diagnosis_codes():
    rows = _table("Diagnosis codes")
    assert sorted(code for code, *_ in rows) == sorted(mistakes.catalogue())
    assert {code: step for code, step, _ in rows} == {code: m.step for code, m in mistakes.catalogue().items()}


def test_gradescope_bundle_takes_its_language_from_attnkit_lang_as_its_help_says(tmp_path, monkeypatch):
    helped = run_cli("gradescope-bundle", "--help")
    assert "default: $ATTNKIT_LANG where the bundle is made" in " ".join(helped.stdout.split())
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    made = run_cli("gradescope-bundle", str(tmp_path / "zh.zip"))
    assert made.returncode == 0, made.stderr
    with zipfile.ZipFile(tmp_path / "zh.zip") as zf:
        assert "export ATTNKIT_LANG=zh" in zf.read("run_autograder").decode()
    monkeypatch.setenv("ATTNKIT_LANG", "fr")
    refused = run_cli("gradescope-bundle", str(tmp_path / "fr.zip"))
    assert refused.returncode == 2 and "lang must be one of en, zh" in refused.stderr
