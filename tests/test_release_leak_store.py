"""The leak check's secrets are built once for what they are made of and read back on later runs
(release/stored.py): what is read back is what was built, the store is small, a damaged store or a changed
case builds them again, two checkouts that differ elsewhere share it, and the store is private to the user."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attnkit.release import leaks, stored
from attnkit.paths import ROOT, SOLUTIONS_DIR

ARRAYS = {"raw": np.arange(5, dtype=np.uint64), "flat": np.array([0.5, np.nan, 2.25])}
TEXTS = {"lines": ["return P @ V"]}


def _builder(made):
    def build():
        made.append(1)
        return dict(ARRAYS), dict(TEXTS)
    return build


def test_a_store_is_read_back_as_built_and_memory_mapped(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    made = []
    for _ in range(2):
        arrays, texts = stored.kept("thing", "key1", _builder(made))
        assert texts == TEXTS and set(arrays) == set(ARRAYS)
        assert all(isinstance(a.base, np.memmap) and not a.flags.writeable for a in arrays.values())  # a view of the mapping
        assert all(np.array_equal(arrays[n], ARRAYS[n], equal_nan=True) for n in ARRAYS)
    assert len(made) == 1
    assert (tmp_path / "attnkit").stat().st_mode & 0o077 == 0
    assert (stored.cache_folder("thing") / "key1").stat().st_mode & 0o077 == 0


def test_a_damaged_store_or_another_key_builds_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    made = []
    stored.kept("thing", "key1", _builder(made))
    raw = stored.cache_folder("thing") / "key1" / "raw.npy"
    raw.write_bytes(raw.read_bytes()[:-8])  # cut short
    arrays, _ = stored.kept("thing", "key1", _builder(made))
    assert len(made) == 2 and np.array_equal(arrays["raw"], ARRAYS["raw"])
    stored.kept("thing", "key2", _builder(made))
    assert len(made) == 3
    assert [p.name for p in stored.cache_folder("thing").iterdir()] == ["key2"]  # the older one is removed


@pytest.fixture(scope="module")
def built_and_read(tmp_path_factory):
    """(the Secrets built, the Secrets read back, the store's folder), in a cache folder of their own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        made, build = [], leaks._built
        patch.setattr(leaks, "_built", lambda folder: made.append(build(folder)) or made[-1])
        read, again = leaks.secrets(), leaks.secrets()
        assert len(made) == 1
        yield made[0], read, again, stored.cache_folder(leaks._STORED)


def _words(secrets):
    """8-byte words to look up: hidden values and pairs of them, public ones, and others."""
    rng = np.random.default_rng(5)
    hidden = rng.choice(secrets.hidden.sorted, 5_000)
    public = rng.choice(secrets.public.sorted, 5_000)
    flat = secrets.hidden.at(np.arange(secrets.hidden.ranks.size))
    pairs = np.lib.stride_tricks.sliding_window_view(flat.astype(np.float32), 2)[::997]
    return np.concatenate([hidden.view(np.uint64), public.view(np.uint64), rng.integers(0, 2**63, 5_000,
                           dtype=np.uint64), np.ascontiguousarray(pairs).view(np.uint64).ravel()])


def test_the_secrets_read_back_are_the_ones_built(built_and_read):
    built, read, again, folder = built_and_read
    for side in ("hidden", "public"):
        for field in ("sorted", "places", "ranks", "float32_starts", "float32_ends"):
            assert np.array_equal(getattr(getattr(read, side), field), getattr(getattr(built, side), field),
                                  equal_nan=True), (side, field)
    words = _words(built)
    assert np.array_equal(read.raw(words), built.raw(words)) and read.raw(words).any()
    assert np.array_equal(again.raw_filter, built.raw_filter)
    assert (read.names, read.lines) == (built.names, built.lines) and read.lines
    assert [p.name for p in folder.iterdir()] == [leaks.secrets_key(SOLUTIONS_DIR)]


def test_the_store_holds_each_value_once_with_its_place(built_and_read):
    """The sorted values (8 bytes each), their places and ranks (4 bytes each), the bitmap and little else: not
    the values a second and third time (as laid out, and as byte patterns)."""
    built, _, _, folder = built_and_read
    values = built.hidden.sorted.size + built.public.sorted.size
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 16 * values + built.raw_filter.nbytes + 2_000_000, size / values


KIT = ("src", "solutions", "autograder/cases")


def _key(root):
    """The stored secrets' key that a checkout at `root` computes, in a process of its own."""
    code = "from attnkit.release import leaks; print(leaks.secrets_key())"
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "ATTNKIT_ROOT": str(root)}
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_key_follows_what_the_secrets_are_made_of(tmp_path):
    """Two checkouts share the secrets while their cases, solutions and the code that builds the secrets are
    the same (whatever else differs, the grader say), and a changed case or a changed case builder builds
    them again."""
    for part in KIT:
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    first = _key(tmp_path)
    assert first == _key(ROOT)
    with (tmp_path / "src/attnkit/grader/plan.py").open("a") as f:
        f.write("# another checkout's grader\n")
    assert _key(tmp_path) == first
    with (tmp_path / "src/attnkit/checks.py").open("a") as f:
        f.write("# the expected values' code\n")
    second = _key(tmp_path)
    assert second != first
    hidden_case_file = sorted((tmp_path / "autograder/cases").glob("*.yaml"))[0]
    hidden_case_file.write_text(hidden_case_file.read_text() + "\n# a changed case\n")
    assert _key(tmp_path) not in (first, second)
