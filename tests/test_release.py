"""`attnkit release OUT`: the student hand-out, its leak check, and the hand-out installed for real.

The fresh-virtualenv test copies nothing of the kit: it writes the release into a temporary folder,
makes a virtualenv there with the system's python3 (no attnkit in it), installs the release's own
runtime with pip, and runs `pytest exercises` with a bare environment, as a student would.
"""
import ast
import bz2
import gzip
import io
import json
import lzma
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import numpy as np
import pytest

from attnkit import checks, cli, lessons, manifest, mistakes, stubs
from attnkit.cases import cases_for, hidden_concepts
from attnkit.paths import HIDDEN_CASES_DIR, LESSONS_DIR, SOLUTIONS_DIR
from attnkit.release import leaks, members, release_files, runtime_sources
from attnkit_runtime import kept_inputs
from test_case_meaning import WARNING, hiding_softmax_source

N_PUBLIC = len(cases_for(visibility="public"))
SYSTEM_PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("handout") / "attention-exercises"
    assert cli.main(["release", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def secrets():
    return leaks.secrets()


def test_release_holds_stubs_public_tests_runtime_and_no_solutions(release_dir):
    names = {p.relative_to(release_dir).as_posix() for p in release_dir.rglob("*") if p.is_file()}
    for step in manifest.steps():
        assert f"exercises/{step.filename}" in names and f"exercises/test_{step.filename}" in names
    assert {"README.md", "pyproject.toml", ".gitignore", "exercises/conftest.py", "exercises/shape_checks.py",
            "runtime/attnkit_runtime/judge.py", "runtime/attnkit_runtime/data/snapshot.npz"} <= names
    assert not [n for n in names if n.startswith(("solutions", "autograder")) or n.endswith(".yaml")]
    stub = (release_dir / "exercises/step4_softmax.py").read_text(encoding="utf-8")
    assert stub == stubs.generated_files()["step4_softmax.py"]


def test_release_md_lists_every_file_of_the_release(release_dir):
    """docs/RELEASE.md's "What it contains": each line's path patterns match files, and every file is matched."""
    from fnmatch import fnmatchcase
    from attnkit.paths import ROOT

    text = (ROOT / "docs" / "RELEASE.md").read_text(encoding="utf-8")
    block = text.split("## What it contains", 1)[1].split("```\n", 2)[1]
    patterns = [p for line in block.splitlines() if line and not line.startswith(" ")
                for p in re.split(r",\s*", line.split("  ", 1)[0].strip())]
    names = [p.relative_to(release_dir).as_posix() for p in release_dir.rglob("*") if p.is_file()]
    assert not [p for p in patterns if not any(fnmatchcase(n, p) for n in names)]  # a line for no file
    assert not [n for n in names if not any(fnmatchcase(n, p) for p in patterns)]  # a file on no line


READ_LINK = re.compile(r"lessons/(en|zh)/([a-z0-9_]+)\.md(?:#([a-z0-9-]+))?")
ANCHOR = re.compile(r'<a id="([a-z0-9-]+)"></a>')


def _course(release_dir):
    return json.loads((release_dir / "runtime/attnkit_runtime/data/course.json").read_text(encoding="utf-8"))


def _read_texts(release_dir):
    """Every "where to read" the release shows, in each language: each case's `read`, each step's, each
    known mistake's."""
    course = _course(release_dir)
    cases = [case for found in course["cases"].values() for case in found]
    texts = [link for step in course["steps"] for link in step["read"].values()]
    texts += [READ_LINK.search(text)[0] for case in cases for m in case["mistakes"] for text in m["text"].values()]
    texts += [link for case in cases for link in case["read"].values()]
    return texts


def test_every_read_link_of_the_release_opens_a_lesson_section_in_it(release_dir):
    texts = _read_texts(release_dir)
    assert len(texts) > N_PUBLIC + len(manifest.steps())
    links = set()
    for text in texts:
        match = READ_LINK.fullmatch(text)
        assert match, f"not a lesson link: {text!r}"
        links.add((match[2], match[3] or ""))
    for rel in ("exercises/step2_scores.py", "README.md"):  # links written into text: stubs, the README
        links |= {m[1:] for m in READ_LINK.findall((release_dir / rel).read_text(encoding="utf-8"))}
    for lesson, anchor in sorted(links, key=str):
        for lang in lessons.LANGUAGES:
            path = release_dir / "lessons" / lang / f"{lesson}.md"
            assert path.is_file(), f"lessons/{lang}/{lesson}.md is not in the release"
            assert not anchor or anchor in ANCHOR.findall(path.read_text(encoding="utf-8")), (lang, lesson, anchor)


def test_course_json_holds_every_learner_text_in_both_languages(release_dir):
    course = _course(release_dir)
    texts = [step["title"] for step in course["steps"]] + [step["read"] for step in course["steps"]]
    texts += [m["text"] for found in course["cases"].values() for case in found for m in case["mistakes"]]
    assert texts and all(set(text) == set(lessons.LANGUAGES) and all(text.values()) for text in texts)
    assert course["hidden_concepts"] == {s.module: hidden_concepts(s.module) for s in manifest.steps()}
    assert all(set(concepts) == set(lessons.LANGUAGES) for concepts in course["hidden_concepts"].values())


def test_release_ships_the_lessons_of_both_languages_as_they_are(release_dir):
    kit = {p.relative_to(LESSONS_DIR).as_posix(): p.read_bytes() for p in LESSONS_DIR.rglob("*") if p.is_file()}
    shipped = {p.relative_to(release_dir / "lessons").as_posix(): p.read_bytes()
               for p in (release_dir / "lessons").rglob("*") if p.is_file()}
    assert shipped == kit
    assert {name.split("/")[0] for name in kit} >= set(lessons.LANGUAGES)


def test_the_readmes_name_each_optional_track_by_its_steps_and_title(release_dir):
    readmes = {"en": (release_dir / "README.md").read_text(encoding="utf-8"),
               "zh": (release_dir / "README.zh.md").read_text(encoding="utf-8")}
    rows = {"en": "- steps {first}–{last}: {title}\n", "zh": "- 第 {first}–{last} 步：{title}\n"}
    for track in manifest.tracks()[1:]:
        steps = manifest.steps(track)
        for lang, text in readmes.items():
            row = rows[lang].format(first=steps[0].number, last=steps[-1].number, title=manifest.track_title(track)[lang])
            assert row in text, (lang, row)
    assert "Steps 1–6 are the core." in readmes["en"] and "第 1–6 步是核心。" in readmes["zh"]


def test_release_refuses_a_kit_without_its_lessons(tmp_path):
    """Its "read:" links would point nowhere: a kit root holding solutions/ but no lessons/ writes nothing."""
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")
    env = {**os.environ, "ATTNKIT_ROOT": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "attnkit.cli", "release", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 2 and "lessons" in done.stderr, done.stdout + done.stderr
    assert not (tmp_path / "out").exists()


def test_release_refuses_a_folder_that_is_not_empty(release_dir, capsys):
    assert cli.main(["release", str(release_dir)]) == 1
    assert "is not empty" in capsys.readouterr().err


def test_public_tests_run_the_stored_cases(release_dir):
    """A test file is one line per function; its cases are stored in course.json in the one stored form
    (recipes as the catalogue writes them, small values written out, large ones in snapshot.npz)."""
    text = (release_dir / "exercises/test_step4_softmax.py").read_text(encoding="utf-8")
    assert "test_softmax = case_test('step4_softmax', 'softmax')" in text
    assert "yaml" not in text and "attnkit.cases" not in text
    cases = _course(release_dir)["cases"]
    assert [c["name"] for c in cases["step4_softmax"]] == [c.name for c in cases_for("step4_softmax", "public")]
    head = {c["name"]: c for c in cases["step6_head"]}["attention_twelve_heads"]
    assert head["calls"][0]["Q"] == {"normal": [12, 4, 64], "seed": 644}  # a generated input: its recipe
    assert head["expected"][0]["O"] == {"stored": "attention_twelve_heads/expected/0/O"}  # a large value: the snapshot
    with np.load(release_dir / "runtime/attnkit_runtime/data/snapshot.npz") as snapshot:
        assert snapshot["attention_twelve_heads/expected/0/O"].shape == (12, 4, 64)


def test_leak_check_finds_nothing_in_a_release(release_dir, secrets):
    assert leaks.scan(release_dir, secrets) == []
    assert cli.main(["release", "--check", str(release_dir)]) == 0


def _float64_result(visibility):
    """A float64 array a case of `visibility` gives, of 4 values or more, all finite."""
    for case in cases_for(visibility=visibility):
        calls = case.build_calls()
        for out in checks.expected_outputs(case, calls) or []:
            for value in out.values():
                arr = np.asarray(value)
                if arr.dtype == np.float64 and arr.size >= 4 and np.isfinite(arr).all():
                    return case, arr
    raise AssertionError(f"no {visibility} case with a float64 result")


def _hidden_array():
    """A float64 array of a hidden case, with values no public case holds."""
    return _float64_result("hidden")


def _hidden_float32_input():
    """A float32 input of a hidden case."""
    for case in cases_for(visibility="hidden"):
        for kwargs in case.build_calls():
            for arg, value in kwargs.items():
                if not arg.startswith("*") and np.asarray(value).dtype == np.float32 and np.size(value) >= 4:
                    return np.asarray(value)
    raise AssertionError("no hidden case with a float32 input")


def _hidden_run(secrets, arr, n=6):
    """`n` neighbouring values of the hidden array `arr` (of its dtype), each one hidden and not public."""
    flat = arr.ravel()
    hidden = [secrets.hidden_number(repr(x).encode()) for x in flat.tolist()]
    start = next(i for i in range(flat.size - n) if all(hidden[i:i + n]))
    return flat[start:start + n]


def _sparse_hidden_text(digits=6):
    """The float64 hidden value of largest magnitude (where hidden values are few) rounded to `digits`
    significant digits, among those that are not whole numbers (a whole number such as RoPE's base 500000
    prints without a point, and no printed integer is taken for a leak)."""
    values = []
    for case in cases_for(visibility="hidden"):
        calls = case.build_calls()
        values += [v for kwargs in calls for name, arg in kwargs.items()  # "*visibles": tables of any shapes
                   for v in (arg if name.startswith("*") else [arg])]
        values += [v for out in checks.expected_outputs(case, calls) or [] for v in out.values()]
    flat = np.concatenate([a.ravel() for a in map(np.asarray, values) if a.dtype == np.float64])
    flat = flat[np.isfinite(flat) & (flat != np.round(flat))]
    return "%.*g" % (digits, flat[np.argmax(np.abs(flat))])


def _solution_line(secrets):
    return sorted(secrets.lines)[0]


def _solution_source(secrets):
    return f"def f():\n    {_solution_line(secrets)}\n"


def _solution_file():
    """A solution file's text, as bytes: long enough that a compressor does not store it as it is."""
    return (SOLUTIONS_DIR / manifest.steps()[0].filename).read_bytes()


def _tar(path, mode, files):
    """A tar archive at `path` (mode "w", "w:gz", "w:xz") holding `files` {name: bytes}."""
    with tarfile.open(path, mode) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def _zip_bytes(files):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def _highlighted_html(source):
    """`source` as pygments writes it in HTML (what nbconvert's and Sphinx's HTML exports hold)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer
    return highlight(source, PythonLexer(), HtmlFormatter())


def _notebook_html(source):
    """A notebook holding `source` in a code cell, exported by nbconvert to HTML."""
    import nbformat
    from nbconvert import HTMLExporter
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    return HTMLExporter().from_notebook_node(notebook)[0]


LINE, NAME, VALUE, BYTES, LINK = "solution line", "hidden case name", "hidden value", "hidden value bytes", "symbolic link"


def _plant(kind, folder, secrets):
    """Plant one leak of `kind` (a key of PLANTED) in `folder`."""
    case, arr = _hidden_array()
    hidden_value = next(x for x in arr.ravel().tolist() if secrets.hidden_number(repr(x).encode()))
    name = f"see {case.name}\n".encode()
    step = manifest.steps()[0]
    plants = {
        "name in a text file": lambda: (folder / "notes.md").write_bytes(name),
        "name in a .pyc": lambda: _pyc(folder, case.name),
        "value as text in a notebook": lambda: (folder / "work.ipynb").write_text(
            '{"cells": [{"source": ["x = %r"]}]}' % hidden_value),
        "raw float bytes in an .npz": lambda: np.savez_compressed(folder / "cache.npz",
                                                                  a=np.concatenate([[1.0], arr.ravel()])),
        "float32 bytes at an odd offset": lambda: (folder / "blob.bin").write_bytes(
            b"\x00\x01\x02" + _hidden_float32_input().tobytes()),
        "solution line in a wheel": lambda: (folder / "extra-0.1-py3-none-any.whl").write_bytes(
            _zip_bytes({"extra/code.py": _solution_source(secrets)})),
        "link to a solution file": lambda: os.symlink(SOLUTIONS_DIR / step.filename, folder / "reference.py"),
        "link to a hidden case file": lambda: os.symlink(HIDDEN_CASES_DIR / f"{step.module}.yaml", folder / "cases.yaml"),
        "link to the solutions folder": lambda: os.symlink(SOLUTIONS_DIR, folder / "more"),
        "name in a .gz": lambda: (folder / "notes.md.gz").write_bytes(gzip.compress(name)),
        "raw float bytes in a .bz2": lambda: (folder / "cache.bin.bz2").write_bytes(bz2.compress(arr.tobytes())),
        "solution line in an .xz": lambda: (folder / "code.py.xz").write_bytes(
            lzma.compress(_solution_file())),
        "name in a .tar": lambda: _tar(folder / "notes.tar", "w", {"notes.md": name}),
        "solution line in a .tar.gz": lambda: _tar(folder / "code.tar.gz", "w:gz",
                                                   {"code.py": _solution_file()}),
        "name in a .tar.xz": lambda: _tar(folder / "notes.tar.xz", "w:xz", {"notes.md": name}),
        "solution line in a wheel in a .tar.xz": lambda: _tar(folder / "dist.tar.xz", "w:xz", {
            "dist/extra-0.1-py3-none-any.whl": _zip_bytes({"extra/code.py": _solution_file()})}),
        "values as numpy prints them (8 digits)": lambda: (folder / "out.txt").write_text(
            str(_hidden_run(secrets, arr))),
        "values at %.6g": lambda: (folder / "out.txt").write_text(
            " ".join("%.6g" % x for x in _hidden_run(secrets, arr))),
        "values rounded to 5 digits": lambda: (folder / "out.txt").write_text(
            repr([float(f"{x:.5g}") for x in _hidden_run(secrets, arr)])),
        "a lone value at %.6g where hidden values are sparse": lambda: (folder / "out.txt").write_text(
            f"loss {_sparse_hidden_text()}\n"),
        "float32 values as numpy prints them": lambda: (folder / "out.txt").write_text(
            str(_hidden_run(secrets, _hidden_float32_input()))),
        "solution line in highlighted HTML": lambda: (folder / "code.html").write_text(
            _highlighted_html(_solution_source(secrets))),
        "solution line in a notebook's HTML export": lambda: (folder / "work.html").write_text(
            _notebook_html(_solution_source(secrets))),
    }
    plants[kind]()


def _pyc(folder, case_name):
    source = folder / "helper.py"
    source.write_text(f"CASE = {case_name!r}\n")
    py_compile.compile(str(source), cfile=str(folder / "helper.cpython-311.pyc"))
    source.unlink()


PLANTED = {"name in a text file": NAME, "name in a .pyc": NAME, "value as text in a notebook": VALUE,
           "raw float bytes in an .npz": BYTES, "float32 bytes at an odd offset": BYTES,
           "solution line in a wheel": LINE, "link to a solution file": LINK, "link to a hidden case file": LINK,
           "link to the solutions folder": LINK, "name in a .gz": NAME, "raw float bytes in a .bz2": BYTES,
           "solution line in an .xz": LINE, "name in a .tar": NAME, "solution line in a .tar.gz": LINE,
           "name in a .tar.xz": NAME, "solution line in a wheel in a .tar.xz": LINE,
           "values as numpy prints them (8 digits)": VALUE, "values at %.6g": VALUE,
           "values rounded to 5 digits": VALUE, "float32 values as numpy prints them": VALUE,
           "a lone value at %.6g where hidden values are sparse": VALUE,
           "solution line in highlighted HTML": LINE, "solution line in a notebook's HTML export": LINE}


@pytest.fixture
def known_secrets(secrets, monkeypatch):
    """The module's secrets, also for `attnkit release --check` (which would build them again, 10 s)."""
    monkeypatch.setattr(leaks, "secrets", lambda: secrets)
    return secrets


@pytest.mark.parametrize("kind", PLANTED)
def test_leak_check_finds_a_planted_leak(kind, known_secrets, tmp_path):
    """One leak planted in a folder of its own (the release itself is clean, see above: each scan of it takes
    seconds)."""
    secrets = known_secrets
    folder = tmp_path / "release"
    (folder / "exercises").mkdir(parents=True)
    _plant(kind, folder / "exercises", secrets)
    found = leaks.scan(folder, secrets)
    assert found and {f.kind for f in found} == {PLANTED[kind]}, [str(f) for f in found]
    assert cli.main(["release", "--check", str(folder)]) == 1


def test_leak_check_says_a_link_is_refused_not_followed(known_secrets, tmp_path, capsys):
    folder = tmp_path / "release"
    folder.mkdir()
    os.symlink("/etc/hostname", folder / "README.txt")
    assert cli.main(["release", "--check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "README.txt: symbolic link: -> /etc/hostname (symbolic links are refused, not followed" in out
    assert "symbolic links are refused" in out


def _bomb(path, depth):
    """A zip holding a zip … `depth` levels deep, the innermost holding one small file."""
    data = b"nothing here\n"
    for level in range(depth):
        data = _zip_bytes({f"level{level}.zip" if level else "notes.md": data})
    path.write_bytes(data)


@pytest.mark.parametrize("plant, why", [
    (lambda folder: (folder / "zeros.gz").write_bytes(gzip.compress(bytes(members.MAX_EXPANDED + 1), 1)),
     "expands to more than"),
    (lambda folder: _bomb(folder / "nested.zip", members.MAX_DEPTH + 2), "nested more than"),
    (lambda folder: (folder / "cut.tar.gz").write_bytes(gzip.compress(np.random.default_rng(0).bytes(10_000))[:100]),
     "damaged"),
])
def test_leak_check_refuses_what_it_cannot_read_whole(plant, why, secrets, tmp_path):
    """A zip bomb, archives nested too deep, a damaged archive: reported (exit 1), never passed or read on."""
    folder = tmp_path / "release"
    folder.mkdir()
    plant(folder)
    found = leaks.scan(folder, secrets)
    assert [f.kind for f in found] == ["not read"] and why in found[0].what, [str(f) for f in found]


def test_leak_check_takes_public_and_common_numbers_at_any_precision_for_what_they_are(secrets, tmp_path):
    """Public values printed as numpy, %.6g or 5 digits do, constants, and numbers drawn at random are no leak."""
    folder = tmp_path / "release"
    folder.mkdir()
    _, public = _float64_result("public")
    draws = np.random.default_rng(16).standard_normal(300) * np.repeat([0.01, 0.1, 1.0], 100)
    constants = [np.pi, np.e, np.sqrt(2), 1 / np.sqrt(2), 1 / np.sqrt(64), np.log(2), 1 / 3, 2 / 3, 0.1, 1e-5]
    texts = [str(public[:50]), " ".join("%.6g" % x for x in public.ravel()[:50]),
             repr([float(f"{x:.5g}") for x in public.ravel()[:50]]), str(public.astype(np.float32)[:50])]
    texts += [" ".join(f"%.{k}g" % x for x in [*constants, *draws]) for k in range(5, 10)]
    (folder / "notes.md").write_text("\n\n".join(texts))
    assert leaks.scan(folder, secrets) == []


def test_a_release_with_a_compressed_copy_of_itself_is_clean(release_dir, secrets, tmp_path):
    """What instructors hand out as archives (zip -r, tar.xz of the release) holds no leak either."""
    folder = tmp_path / "release"
    shutil.copytree(release_dir, folder)
    shutil.make_archive(str(tmp_path / "copy"), "xztar", release_dir)
    shutil.move(tmp_path / "copy.tar.xz", folder / "copy.tar.xz")
    assert leaks.scan(folder, secrets) == []


def test_leak_check_takes_the_hidden_cases_from_the_kit_api(secrets):
    assert secrets.names == {c.name.encode() for c in cases_for(visibility="hidden")}
    assert not secrets.names & {c.name.encode() for c in cases_for(visibility="public")}


@pytest.fixture
def no_hidden_cases(monkeypatch, tmp_path, secrets):
    """The kit as installed without its hidden cases (after the secrets of the one with them were stored)."""
    from attnkit import cases, fingerprint
    for module in (cases, fingerprint):
        monkeypatch.setattr(module, "HIDDEN_CASES_DIR", tmp_path / "no-hidden-cases")
    cases.all_cases.cache_clear()
    yield
    cases.all_cases.cache_clear()


def test_leak_check_refuses_when_the_kit_has_no_hidden_case(no_hidden_cases, release_dir, capsys):
    """A kit installed without its hidden cases has nothing to look for: the check must not pass."""
    with pytest.raises(ValueError, match="no hidden case"):
        leaks.secrets()
    assert cli.main(["release", "--check", str(release_dir)]) == 2
    assert "no hidden case" in capsys.readouterr().err


@pytest.mark.parametrize("what", ["missing", "a-file"])
def test_leak_check_refuses_what_is_not_a_folder(tmp_path, capsys, what):
    """A mistyped path must not be reported clean: there is nothing there to have scanned."""
    target = tmp_path / what
    if what == "a-file":
        target.write_text("x")
    assert cli.main(["release", "--check", str(target)]) == 2
    assert "not a folder" in capsys.readouterr().err


@pytest.mark.parametrize("lang, other", [("zh", "is not written yet"), ("en", "还没有写")])
def test_an_earlier_steps_stub_is_told_in_the_learners_language_only(release_dir, tmp_path, lang, other):
    """Step 6 written over step 5's stub: its tests stop in step 5's stub, whose raise holds both languages;
    the learner reads it in one."""
    folder = tmp_path / "exercises"
    shutil.copytree(release_dir / "exercises", folder)
    for module in ("step1_projection", "step2_scores", "step3_masks", "step4_softmax", "step6_head"):
        shutil.copy(SOLUTIONS_DIR / f"{module}.py", folder)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(folder / "test_step6_head.py")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "ATTNKIT_LANG": lang, "PYTHONPATH": str(release_dir / "runtime")})
    stopped = [line for line in done.stdout.splitlines() if "step5_values.py:" in line and "NotImplementedError" in line]
    assert stopped and not [line for line in stopped if other in line], stopped[:1]


# --- the release installed in a fresh virtualenv, with no kit on disk reachable from it ---

@pytest.fixture(scope="module")
def student_venv(tmp_path_factory):
    """(release folder, its virtualenv's python): `pip install .` run in the release, bare environment."""
    root = tmp_path_factory.mktemp("student")
    handout = root / "handout"
    assert cli.main(["release", str(handout)]) == 0
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root)}
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(root / ".venv")], check=True, cwd=root, env=env)
    python = root / ".venv" / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "."],
                          cwd=handout, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shutil.rmtree(handout / "build", ignore_errors=True)
    return handout, python, env


def student_pytest(student_venv, *args, **extra_env):
    """`pytest -rf ARGS` in the release folder, with the venv's python and a bare environment."""
    handout, python, env = student_venv
    proc = subprocess.run([str(python), "-m", "pytest", "-rf", "-p", "no:cacheprovider", *map(str, args)],
                          cwd=handout, env={**env, "COLUMNS": "400", **extra_env}, capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stdout + proc.stderr


def exercises_with(student_venv, tmp_path, own_steps, edit=None):
    """A copy of the release's exercises/ with the reference files of `own_steps`, then `edit` applied."""
    folder = tmp_path / "exercises"
    shutil.copytree(student_venv[0] / "exercises", folder)
    for module in own_steps:
        shutil.copy(SOLUTIONS_DIR / f"{module}.py", folder / f"{module}.py")
    for module, (old, new) in (edit or {}).items():
        source = (folder / f"{module}.py").read_text(encoding="utf-8")
        assert old in source
        (folder / f"{module}.py").write_text(source.replace(old, new), encoding="utf-8")
    return folder


def test_the_venv_has_no_kit(student_venv):
    handout, python, env = student_venv
    proc = subprocess.run([str(python), "-c", "import attnkit"], cwd=handout, env=env, capture_output=True, text=True)
    assert proc.returncode != 0 and "No module named 'attnkit'" in proc.stderr


def test_stubs_fail_the_core_each_in_one_line_and_skip_the_optional_steps(student_venv):
    code, out = student_pytest(student_venv, student_venv[0] / "exercises")
    assert code == 1, out
    core = sum(len(cases_for(s.module, "public")) for s in manifest.steps("core"))
    failures = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    assert {m for _, m in failures} == {"not written yet"} and f"{core} failed, {N_PUBLIC - core} skipped" in out, out
    for nodeid, line in re.findall(r"^_+ (\S+) _+\n(.*)$", out, flags=re.M):
        own = re.match(r"exercises/(step\d+_\w+)\.py:\d+: NotImplementedError: Step (\d+) \(\1\.", line)
        earlier_first = re.match(r"exercises/step\d+_\w+\.py:\d+: NotImplementedError: step \d+ does not pass its own "
                                 r"tests yet; fix it first", line)
        assert own or earlier_first, (nodeid, line)
    assert "Next: exercises/step1_projection.py" in out
    assert "no function is written yet, so these failures are expected. Start with step 1" in out
    assert not re.search(r"test_step\d+_\w+\.py:\d+: in test_", out), "a traceback shows the test file's frame"
    assert out.rstrip().splitlines()[-1].strip().startswith("Read lessons/en/step1_projection.md"), out


def test_a_finished_core_is_green_in_the_release_with_the_extension_skipped_in_chinese(student_venv, tmp_path):
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps("core")])
    code, out = student_pytest(student_venv, folder, "-rs", ATTNKIT_LANG="zh")
    assert code == 0, out
    optional = [s for s in manifest.steps() if s.track != "core"]
    for step in optional:
        assert (f"第 {step.number} 步是核心部分之后的选做内容，还没有开始，所以跳过它的测试。要开始，就在 exercises/{step.filename} "
                "里写你的代码") in out, out
    assert "核心部分之后的步骤是选做的" in out and "选做，未开始（已跳过）" in out, out
    for track in dict.fromkeys(s.track for s in optional):  # each optional track under its title, worded in Chinese
        assert f"  {manifest.track_title(track)['zh']}（选做，单独按 100 分评分）\n" in out, (track, out)


def test_bare_pytest_at_the_top_of_the_release_runs_the_exercises(student_venv):
    code, out = student_pytest(student_venv)
    assert code == 1 and " failed, " in out and "Next: exercises/step1_projection.py" in out, out


def test_an_endless_loop_fails_its_step_and_names_it_to_step_6(student_venv, tmp_path):
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step4_softmax": ("def softmax(", "def softmax(*a, **k):\n    while True:\n        pass\n\n\n"
                                                              "def _unused(")})
    code, out = student_pytest(student_venv, folder, ATTNKIT_TIME_LIMIT="1")
    failed = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    step4 = [m for n, m in failed if "test_step4_softmax.py" in n]
    assert "step4_softmax.softmax() was stopped after 1 s: an endless loop?" in step4[0], out
    assert all("softmax() was not run again: it was stopped after 1 s" in m for m in step4[1:]), out
    step6 = [m for n, m in failed if "test_step6_head.py" in n]
    assert step6 and all("step 4 does not pass its own tests yet; fix it first" in m for m in step6), out
    assert not [n for n, _ in failed if re.search(r"test_step[1235]_", n)]


def test_a_syntax_error_is_reported_once_per_step(student_venv, tmp_path):
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step3_masks": ("def causal_visible(n_query, n_key=None):", "def causal_visible(n_query:")})
    code, out = student_pytest(student_venv, folder / "test_step3_masks.py")
    failed = [m for n, m in re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)]
    assert "syntax error on line" in failed[0] and len(failed) == len(cases_for("step3_masks", "public")), out
    assert all(m.endswith("step 3 could not be loaded (see the first failure of this step)") for m in failed[1:]), out
    assert "During handling" not in out, out


def test_the_solutions_pass_every_public_test(student_venv, tmp_path):
    """Twice: the first run keeps the GPT-2-sized inputs it draws in the cache folder, the second reads them back."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()])
    kept_dir = student_venv[0].parent / ".cache" / "attnkit" / "inputs-1"  # the bare environment's HOME
    kept = []
    for _ in range(2):
        code, out = student_pytest(student_venv, folder)
        assert code == 0 and f"{N_PUBLIC} passed" in out, out
        assert "That is not full marks yet" in out
        kept.append({p.name: p.stat().st_mtime_ns for p in kept_dir.glob("*.npy")})
    large = {json.dumps(spec, sort_keys=True) for case in cases_for(visibility="public") for call in case.calls
             for arg, given in call.items() for spec in (given if arg.startswith("*") else [given])
             if kept_inputs.is_kept(spec)}
    assert len(kept[0]) == len(large) > 0 and kept[1] == kept[0]  # the extension's large weights, kept once


@pytest.mark.parametrize("slip, named", [
    (("return kq / math.sqrt(d_h)", "return kq / d_h"), "scale_by_d"),
    (("return Q @ np.swapaxes(K, -1, -2)", "return Q @ K.T"), "batch_transpose"),
], ids=["wrong output: scale_by_d", "error raised: batch_transpose"])
def test_a_known_mistake_is_named(student_venv, tmp_path, slip, named):
    """In the words of the checkout's public tests, the notebook and the grader (mistakes.describe)."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()], {"step2_scores": slip})
    code, out = student_pytest(student_venv, folder)
    assert code == 1, out
    assert f"likely mistake: {mistakes.describe(named)}" in out, out
    assert re.search(r"^FAILED \S+test_step2_scores\.py", out, flags=re.M)


SPLIT_HEADS = ("    heads = X.reshape(*X.shape[:-2], T, n_head, D // n_head)  # [..., T, n_head, D_h]\n"
               "    return np.swapaxes(heads, -3, -2)  # [..., n_head, T, D_h]\n",
               "    return X.reshape(*X.shape[:-2], n_head, T, D // n_head)\n")


def test_an_earlier_step_is_blamed_only_where_it_was_called(student_venv, tmp_path):
    """Step 1 wrong (no bias), step 7's split_heads a reshape without the transpose: split_heads calls
    nothing of step 1, so its failures name their own mistake and blame no earlier step; split_qkv
    calls step 1's project, so its failures say to fix step 1 first, the likely mistake kept."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step1_projection": ("return Z @ W + b", "return Z @ W"), "step7_layer": SPLIT_HEADS})
    code, out = student_pytest(student_venv, folder / "test_step7_layer.py")
    failed = re.findall(r"^FAILED \S+::test_(\w+)\[\S+\] - (.*)$", out, flags=re.M)
    split = [m for test, m in failed if test == "split_heads"]
    assert len(split) == len(cases_for("step7_layer", "public", "split_heads")), out
    assert not [m for m in split if "does not pass its own tests" in m], out
    assert out.count(f"likely mistake: {mistakes.describe('heads_split_without_transpose')}") == len(split), out
    assert "input: X = [[ 0.,  1.,  2.,  3.]," in out, out  # a failure shows the call's inputs
    qkv = [m for test, m in failed if test == "split_qkv"]
    assert qkv and all(m.startswith("Failed: step 1 does not pass its own tests yet; fix it first") for m in qkv), out


def test_an_argument_changed_in_place_fails_in_the_release(student_venv, tmp_path):
    """The harness watches the arguments: a scale_scores that divides kq in place fails, its value right."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step2_scores": ("    return kq / math.sqrt(d_h)", "    kq /= math.sqrt(d_h)\n    return kq")})
    code, out = student_pytest(student_venv, folder / "test_step2_scores.py")
    failed = re.findall(r"^FAILED \S+::test_(\w+)\[\S+\] - (.*)$", out, flags=re.M)
    assert failed and {test for test, _ in failed} == {"scale_scores"}, out
    assert "scale_scores() changed its argument kq in place" in out, out


def test_a_known_mistake_is_explained_in_chinese_with_the_chinese_lessons(student_venv, tmp_path):
    """The release follows the learner's ATTNKIT_LANG (or the locale) at run time, and `--lang` over it:
    the kit's wording, the case's concept and the mistake's advice all in Chinese, with lessons/zh/."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step2_scores": ("return kq / math.sqrt(d_h)", "return kq / d_h")})
    scale_by_d = mistakes.catalogue()["scale_by_d"]
    for options, env in (([], {"ATTNKIT_LANG": "zh"}), (["--lang", "zh"], {"LANG": "en_US.UTF-8"})):
        code, out = student_pytest(student_venv, folder / "test_step2_scores.py", *options, **env)
        assert code == 1 and f"可能的错误：{mistakes.describe('scale_by_d', 'zh')}" in out, out
        assert "阅读：lessons/zh/step2_scores.md" in out, out
        assert scale_by_d.summary["zh"] in out and scale_by_d.advice["zh"] in out, out
        assert "GPT-2 Small：D_h = 64，所以缩放系数是 1/8" in out and "分数：kq = Q Kᵀ 与 1/sqrt(D_h) 缩放" in out, out
        assert "lessons/zh/step2_scores.md#scale" in out and "下一步：exercises/step2_scores.py" in out, out
        assert "read: " not in out and "likely mistake" not in out and "lessons/en/" not in out, out
        assert "divided by D_h instead" not in out, out


def _failure_section(out, test_id):
    """The failure text pytest printed for the test whose id ends with `[test_id]`."""
    start = out.index(f"[{test_id}] _")
    return out[start:out.index("\n____", start + 1) if "\n____" in out[start + 1:] else None]


def test_a_constant_of_the_wrong_shape_fails_the_property_case(student_venv, tmp_path):
    """Class 7 in the release: the stored result forms are checked before the property."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step6_head": ("    return O, P\n", "    return np.zeros((2, 2)), np.zeros((2, 2))\n")})
    code, out = student_pytest(student_venv, folder)
    assert code == 1, out
    section = _failure_section(out, "attention_future_value_never_changes_past")
    assert "O (call 1): expected shape (3, 4), got (2, 2)" in section, section


def test_a_broken_step_4_makes_step_6_say_fix_step_4_first(student_venv, tmp_path):
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()],
                            {"step4_softmax": ("axis=-1", "axis=-2")})
    code, out = student_pytest(student_venv, folder)
    failed = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    step6 = [message for nodeid, message in failed if "test_step6_head.py" in nodeid]
    assert step6 and all("step 4 does not pass its own tests yet; fix it first" in m for m in step6), out
    assert [n for n, _ in failed if "test_step4_softmax.py" in n]
    assert not [n for n, _ in failed if re.search(r"test_step[1235]_", n)]
    assert f"likely mistake: {mistakes.describe('softmax_wrong_axis')}" in out


def test_a_softmax_that_hides_its_nan_fails_in_the_release(student_venv, tmp_path):
    """The release judges with the kit's harness: right values reached through a warning fail."""
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()])
    (folder / "step4_softmax.py").write_text(hiding_softmax_source(), encoding="utf-8")
    code, out = student_pytest(student_venv, folder)
    assert code == 1, out
    assert re.findall(r"^FAILED \S+test_step4_softmax\.py::\S+\[(\S+)\]", out, flags=re.M) == [
        "softmax_fully_masked_row_is_zero"], out
    assert WARNING in out and "step4_softmax.py, line" in out, out


def test_attnkit_show_prints_the_learners_own_result_as_grids(student_venv, tmp_path):
    """The release's `attnkit-show FUNCTION ARG…` (show.py, show_call.py and show_tool.py shipped as they are)."""
    exercises_with(student_venv, tmp_path, ["step3_masks"])
    show = student_venv[1].parent / "attnkit-show"

    def run(*args):
        return subprocess.run([str(show), *args], cwd=tmp_path, env=student_venv[2], capture_output=True, text=True)

    done = run("causal_visible", "2", "5")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("causal_visible(2, 5)\n\nyours: visible"), done.stdout
    assert "visible: matches the expected one" in done.stdout, done.stdout
    stub = run("softmax", "0,1")
    assert stub.returncode == 1 and "Step 4 (step4_softmax.softmax) is not written yet" in stub.stderr, stub.stderr
    assert "还没有写" not in stub.stderr  # the learner's language only
    wrong = run("no_such_function")
    assert wrong.returncode == 2 and "FUNCTION is one of: project, project_qkv," in wrong.stderr, wrong.stderr


def test_attnkit_show_stops_an_endless_loop_at_the_public_tests_time_limit(student_venv, tmp_path):
    exercises_with(student_venv, tmp_path, [], {"step3_masks": ("    raise NotImplementedError", "    while True:\n        pass\n    raise NotImplementedError")})
    run = subprocess.run([str(student_venv[1].parent / "attnkit-show"), "causal_visible", "2", "5"], cwd=tmp_path,
                         env={**student_venv[2], "ATTNKIT_TIME_LIMIT": "1"}, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and "causal_visible() was stopped after 1 s: an endless loop?" in run.stderr, run.stderr


@pytest.mark.parametrize("path", runtime_sources(), ids=lambda p: p.name)
def test_the_learner_runtime_needs_only_the_standard_library_numpy_and_itself(path):
    """src/attnkit_runtime/ is what a learner receives (the release ships it as it is, the notebook imports
    it): it never imports the instructor's side (`attnkit`), only the standard library, numpy, pytest
    (the release's plugin) and its own modules."""
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 1, ast.dump(node)  # its own modules only
    assert imported <= set(sys.stdlib_module_names) | {"numpy", "pytest"}, imported


def test_the_release_ships_the_runtime_file_for_file(tmp_path):
    """The release's runtime is src/attnkit_runtime/, byte for byte: no copy that could drift."""
    files = release_files()
    for path in runtime_sources():
        assert files[f"runtime/attnkit_runtime/{path.name}"] == path.read_bytes()
    shipped = {name.rsplit("/", 1)[1] for name in files if name.startswith("runtime/attnkit_runtime/") and name.endswith(".py")}
    assert shipped == {path.name for path in runtime_sources()}
