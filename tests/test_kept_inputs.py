"""`kept_inputs.keep`: the public tests' large drawn arguments are kept on disk and read back unchanged."""
import numpy as np
import pytest

from attnkit_runtime import kept_inputs
from attnkit_runtime.judge import build_arg

WEIGHT = {"normal": [256, 512], "seed": 702, "scale": 0.02}  # 131,072 values: kept
MASK = {"random_bool": [512, 256], "seed": 3, "p": 0.3}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The cache folder, in `tmp_path`; the drawn specs are counted in `cache.drawn`."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    drawn = []

    def counted(spec):
        drawn.append(spec)
        return build_arg(spec)

    return type("Cache", (), {"folder": kept_inputs.folder(), "drawn": drawn, "build": staticmethod(
        kept_inputs.keep(counted))})


@pytest.mark.parametrize("spec", [WEIGHT, MASK, {**WEIGHT, "dtype": "float32"}], ids=["normal", "bool", "float32"])
def test_a_kept_argument_is_drawn_once_and_read_back_bit_for_bit(cache, spec):
    first, again = cache.build(spec), cache.build(spec)
    assert cache.drawn == [spec]
    for value in (first, again):
        assert value.dtype == build_arg(spec).dtype and value.tobytes() == build_arg(spec).tobytes()
    assert again is not first and again.flags.writeable  # a fresh array: the learner's code may write into it


@pytest.mark.parametrize("spec", [
    {"normal": [4, 8], "seed": 1},  # small: drawn every time
    {**WEIGHT, "take": "[:, :3]"},  # a modifier: not a plain draw
    {"array": [[1.0, 2.0]]},
    3,
], ids=["small", "modified", "written out", "number"])
def test_other_arguments_are_built_every_time_and_nothing_is_written(cache, spec):
    cache.build(spec), cache.build(spec)
    assert cache.drawn == [spec, spec]
    assert not cache.folder.exists()


@pytest.mark.parametrize("damage", [
    lambda path: path.write_bytes(path.read_bytes()[:1000]),  # cut short
    lambda path: path.write_bytes(b"not an npy file"),
    lambda path: np.save(path, np.zeros((3, 3))),  # another shape
    lambda path: np.save(path, build_arg(WEIGHT).astype(np.float32)),  # another dtype
], ids=["truncated", "garbage", "shape", "dtype"])
def test_a_damaged_file_is_drawn_again_and_replaced(cache, damage):
    cache.build(WEIGHT)
    (path,) = cache.folder.glob("*.npy")
    damage(path)
    assert cache.build(WEIGHT).tobytes() == build_arg(WEIGHT).tobytes()
    assert cache.build(WEIGHT).tobytes() == build_arg(WEIGHT).tobytes()
    assert len(cache.drawn) == 2


def test_a_folder_that_cannot_be_written_draws_every_time(tmp_path, monkeypatch):
    blocked = tmp_path / "a file"
    blocked.write_text("", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # the folder would be inside a file
    build = kept_inputs.keep(build_arg)
    assert build(WEIGHT).tobytes() == build(WEIGHT).tobytes() == build_arg(WEIGHT).tobytes()


def test_files_another_numpy_drew_are_removed(cache):
    cache.folder.mkdir(parents=True)
    stale = cache.folder / "numpy-0.0.1-0123.npy"
    np.save(stale, np.zeros(2))
    cache.build(WEIGHT)
    assert [p.name.startswith(f"numpy-{np.__version__}-") for p in cache.folder.iterdir()] == [True]


def test_the_folder_is_the_users_own(cache):
    cache.build(WEIGHT)
    assert cache.folder.stat().st_mode & 0o777 == 0o700


def test_without_a_home_folder_every_run_draws(monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(kept_inputs.Path, "home", staticmethod(no_home))
    assert kept_inputs.keep(build_arg)(WEIGHT).tobytes() == build_arg(WEIGHT).tobytes()
