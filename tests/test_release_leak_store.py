"""The leak check's secrets are built once per kit and read back on later runs (release/stored.py): what
is read back is what was built, a damaged store or a changed kit builds them again, and the store is
private to the user."""
import numpy as np

from attnkit.release import leaks, stored
from attnkit.paths import SOLUTIONS_DIR

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
        assert all(isinstance(a, np.memmap) and not a.flags.writeable for a in arrays.values())
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


def test_the_secrets_read_back_are_the_ones_built(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    made, build = [], leaks._built
    monkeypatch.setattr(leaks, "_built", lambda hidden, folder: made.append(build(hidden, folder)) or made[-1])
    read, again = leaks.secrets(), leaks.secrets()
    assert len(made) == 1
    built = made[0]
    for side in ("hidden", "public"):
        for field in ("flat", "sorted", "places"):
            assert np.array_equal(getattr(getattr(read, side), field), getattr(getattr(built, side), field),
                                  equal_nan=True), (side, field)
    assert np.array_equal(read.raw, built.raw) and np.array_equal(again.raw, built.raw)
    assert (read.names, read.lines) == (built.names, built.lines) and read.lines
    assert [p.name for p in stored.cache_folder(leaks._STORED).iterdir()] == [
        leaks.kit_fingerprint(leaks._STORED, SOLUTIONS_DIR)]
