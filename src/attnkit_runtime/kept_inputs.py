"""The large drawn arguments of the public tests, kept on disk between runs.

A GPT-2-sized weight (`{"normal": [768, 2304], "seed": 702, "scale": 0.02}`) takes tens of milliseconds
to draw and a few to read back, and a learner runs the tests after every edit: the first run that needs
one saves it as an .npy file in the user's cache folder (`folder()`), named by the recipe and by numpy's
version (whose generator drew it), and later runs read it back, the same values bit for bit. A file that
is missing, damaged or not the recipe's shape and dtype is drawn again; when the folder cannot be
written, every run draws.

Only the learner's own test runs use it (the release's exercise.py, the checkout's public tests), where
the learner's code can reach nothing but that learner's own tests: the grader, nbgrader's autograde and
the notebook draw every argument anew, so nothing a submission leaves in a cache folder reaches another.

Standard library and numpy only.
"""
import contextlib
import hashlib
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

KEPT_FROM = 1 << 16  # values: a smaller argument is drawn every time (about as quick as reading it)
_PLAIN = {"normal": {"normal", "seed", "scale", "dtype"}, "random_bool": {"random_bool", "seed", "p"}}


def cache_folder(name):
    """The kit's cache folder `name`: $XDG_CACHE_HOME/attnkit/NAME, by default ~/.cache/attnkit/NAME."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attnkit" / name


def folder():
    """Where kept arguments are: cache_folder("inputs-1")."""
    return cache_folder("inputs-1")


def _drawn(spec):
    """(shape, dtype) of the array a plain generator recipe draws (no modifier but its seed, scale, dtype or
    p), or None for any other spec."""
    kind = next((k for k in _PLAIN if k in spec), None) if isinstance(spec, dict) else None
    if kind is None or not set(spec) <= _PLAIN[kind]:
        return None
    return tuple(spec[kind]), np.dtype(spec.get("dtype", "float64") if kind == "normal" else bool)


def is_kept(spec):
    """Whether `keep` keeps the argument `spec` makes: a plain draw of at least KEPT_FROM values."""
    drawn = _drawn(spec)
    return drawn is not None and math.prod(drawn[0]) >= KEPT_FROM


def _path(spec):
    recipe = json.dumps(spec, sort_keys=True).encode("utf-8")
    return folder() / f"numpy-{np.__version__}-{hashlib.sha256(recipe).hexdigest()[:32]}.npy"


def _read(path, shape, dtype):
    try:
        value = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):  # missing, or not a whole .npy file
        return None
    return value if value.shape == shape and value.dtype == dtype else None


def _save(path, value):
    """Write `value` to `path` whole or not at all (another run may read it meanwhile); remove the files
    another numpy version drew."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        part = tempfile.NamedTemporaryFile(dir=path.parent, suffix=".part", delete=False)
    except OSError:  # a folder that cannot be written: every run draws
        return
    try:
        with part:
            np.save(part, value)
        os.replace(part.name, path)
    except OSError:
        Path(part.name).unlink(missing_ok=True)
        return
    for old in path.parent.glob("numpy-*.npy"):
        if not old.name.startswith(f"numpy-{np.__version__}-"):
            with contextlib.suppress(OSError):
                old.unlink()


def keep(build):
    """`build` (argument spec -> value, `judge.build_arg`'s contract) with the plain generator recipes of
    at least KEPT_FROM values read from and saved to `folder()`; every value is a fresh array."""

    def kept(spec):
        if not is_kept(spec):
            return build(spec)
        try:
            path = _path(spec)
        except RuntimeError:  # no home folder to keep it in
            return build(spec)
        value = _read(path, *_drawn(spec))
        if value is None:
            value = build(spec)
            _save(path, value)
        return value

    return kept
