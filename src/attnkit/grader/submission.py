"""Read a submission (a folder shaped like exercises/, or an .ipynb) into {filename: source text}."""
import hashlib
from dataclasses import dataclass
from pathlib import Path

from .. import manifest
from .notebook import NotebookError, step_sources

MAX_FILE_BYTES = 2_000_000


@dataclass(frozen=True)
class Submission:
    name: str  # the path as given
    sources: dict  # {"stepN_x.py": text} for each step file it has
    problem: str  # why it could not be read ("" when it could); every test then fails with it
    digest: str  # hash of its contents, to know an edited submission from one already graded


def read(name):
    """Read the submission at path `name`; FileNotFoundError when there is nothing there."""
    path = Path(name)
    if path.is_dir():
        raw = {}
        for step in manifest.steps():
            file = path / step.filename
            if file.is_file():
                raw[step.filename] = file.read_bytes() if file.stat().st_size <= MAX_FILE_BYTES else None
        too_big = sorted(f for f, data in raw.items() if data is None)
        if too_big:
            return _made(name, {}, f"{', '.join(too_big)} larger than {MAX_FILE_BYTES} bytes", raw)
        return _made(name, {f: data.decode("utf-8", "replace") for f, data in raw.items()}, "", raw)
    if path.is_file() and path.suffix == ".ipynb":
        data = path.read_bytes()
        if len(data) > 20 * MAX_FILE_BYTES:
            return _made(name, {}, f"the notebook is larger than {20 * MAX_FILE_BYTES} bytes", {"nb": data})
        try:
            return _made(name, step_sources(data.decode("utf-8", "replace")), "", {"nb": data})
        except NotebookError as err:
            return _made(name, {}, str(err), {"nb": data})
    if path.exists():
        raise FileNotFoundError(f"{name}: a submission is a folder of step files or an .ipynb notebook")
    raise FileNotFoundError(f"{name}: no such folder or notebook")


def _made(name, sources, problem, raw):
    digest = hashlib.sha256()
    for key in sorted(raw):
        digest.update(key.encode() + b"\0" + (raw[key] or b"") + b"\0")
    return Submission(name, sources, problem, digest.hexdigest()[:24])
