"""Every command, file or lesson a learner-facing text names exists where that learner is: in the release
folder (README, lessons, stubs) and in the notebook's folder (the notebook, its lessons), or the text says
where it is (the instructor's kit, the folder hand-out)."""
import json
import re
import subprocess
import sys
from pathlib import PurePosixPath

import pytest

from attnkit.nbgrader_course import course_files
from attnkit.release import release_files

ELSEWHERE = ("instructor's kit", "教师端的工具包", "folder hand-out", "文件夹版")  # a text saying where the named thing is
SOURCE_LESSON = re.compile(r"\blessons? \d{3}\b|第 ?\d{3} ?课")  # the source lessons' numbering, never the learner's
KIT_COMMAND = re.compile(r"`attnkit (\w[\w-]*)")
SHOW_COMMAND = re.compile(r"`attnkit-show ([\w-]+)")
NAMED_PATH = re.compile(r"(?<![\w/.-])((?:docs|tests|exercises|runtime|lessons|src|solutions|autograder|attnkit_runtime)"
                        r"/[\w./{}-]*)")


def _paragraphs(text):
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def _missing(paragraphs, folder_files, show_offers):
    """The references of `paragraphs` to what the folder (`folder_files`: its paths) lacks, each unless its
    paragraph says where the thing is."""
    folders = {str(parent) for path in folder_files for parent in PurePosixPath(path).parents}
    found = []
    for where, paragraph in paragraphs:
        elsewhere = any(marker in paragraph for marker in ELSEWHERE)
        found += [f"{where}: {m[0]!r} (the source lessons' numbering)" for m in SOURCE_LESSON.finditer(paragraph)]
        if elsewhere:
            continue
        found += [f"{where}: `attnkit {m[1]}` (no attnkit command here)" for m in KIT_COMMAND.finditer(paragraph)]
        found += [f"{where}: `attnkit-show {m[1]}`" for m in SHOW_COMMAND.finditer(paragraph)
                  if show_offers is None or m[1] not in show_offers]
        for match in NAMED_PATH.finditer(paragraph):
            path = match[1].split("#")[0].rstrip(".,:;)/").replace("{runtime}", "attnkit_runtime")
            if path not in folder_files and path not in folders:
                found.append(f"{where}: {path}")
    return found


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """{path: bytes} of the release, and what its `attnkit-show --help` offers."""
    files = release_files()
    out = tmp_path_factory.mktemp("handout")
    for rel, data in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    shown = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, 'runtime'); "
                            "from attnkit_runtime.show_tool import main; sys.exit(main(['--help']))"],
                           cwd=out, capture_output=True, text=True, timeout=120)
    return files, shown.stdout + shown.stderr


def _release_texts(files):
    return [(f"{path} ¶{k}", paragraph) for path, data in files.items()
            if path.endswith(".md") or (path.startswith("exercises/") and path.endswith(".py"))
            for k, paragraph in enumerate(_paragraphs(data.decode("utf-8")), start=1)]


def test_the_release_names_only_what_the_release_has(release):
    files, show_help = release
    assert "causal_visible" in show_help, show_help
    offers = set(re.findall(r"[\w-]+", show_help))
    missing = _missing(_release_texts(files), set(files), offers)
    assert not missing, "\n".join(missing)


def test_the_notebook_folder_names_only_what_it_has():
    files = {path.as_posix(): data for path, data in course_files().items()}
    folder = "source/attention/"
    here = {path[len(folder):] for path in files if path.startswith(folder)}
    notebook = json.loads(files[f"{folder}attention.ipynb"])
    texts = [(f"attention.ipynb cell {cell['id']} ¶{k}", paragraph) for cell in notebook["cells"]
             for k, paragraph in enumerate(_paragraphs(cell["source"]), start=1)]
    texts += [(f"{path} ¶{k}", paragraph) for path in sorted(here) if path.startswith("lessons/")
              for k, paragraph in enumerate(_paragraphs(files[folder + path]), start=1)]
    missing = _missing(texts, here, show_offers=set())  # no attnkit-show beside a notebook
    assert not missing, "\n".join(missing)


def test_a_reference_to_the_instructors_kit_or_a_source_lesson_is_caught():
    paragraphs = [("a", "run `attnkit gguf` (docs/GGUF.md)"), ("b", "as in lesson 002"),
                  ("c", "in the instructor's kit, `attnkit gguf` (its docs/GGUF.md)"), ("d", "`attnkit-show kv-cache`")]
    assert _missing(paragraphs, {"lessons/en/step1_projection.md"}, {"causal_visible"}) == [
        "a: `attnkit gguf` (no attnkit command here)", "a: docs/GGUF.md",
        "b: 'lesson 002' (the source lessons' numbering)",
        "d: `attnkit-show kv-cache`"]
