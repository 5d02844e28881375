"""Read a submission (a folder shaped like exercises/, or an .ipynb) into {filename: source text}.

Everything in a submission is the learner's, so nothing is followed or trusted: each file is opened
without following a symbolic link and without blocking (O_NOFOLLOW | O_NONBLOCK), must then be a
regular file, and is read up to a byte cap whatever its size claims. A step file that breaks a rule
is refused on its own (its step scores 0 with the reason); a submission path that breaks one (a
linked folder, a notebook that is a FIFO…) is refused whole. Hard links are accepted: only someone
already writing on the grader's file system could make one, and uv or `cp -al` make them for honest
files.
"""
import errno
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .. import manifest
from . import step_folder
from .notebook import NotebookError, step_sources

MAX_FILE_BYTES = 2_000_000
MAX_NOTEBOOK_BYTES = 10_000_000
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_KINDS = ((stat.S_ISDIR, "is a folder"), (stat.S_ISFIFO, "is a FIFO"), (stat.S_ISCHR, "is a character device"),
          (stat.S_ISBLK, "is a block device"), (stat.S_ISSOCK, "is a socket"))


@dataclass(frozen=True)
class Submission:
    name: str  # the path as given
    sources: dict  # {"stepN_x.py": text} for each step file it has
    problem: str  # why it could not be read ("" when it could); every test then fails with it
    digest: str  # hash of its contents, to know an edited submission from one already graded
    unreadable: dict = field(default_factory=dict)  # {"stepN_x.py": why it was refused}: that step fails
    found_in: str = ""  # where its step files (or notebook) were, relative to the folder given ("": its top)


class Refused(Exception):
    """A file of the submission that is not read; the message says why, in the learner's terms."""


def read(name):
    """Read the submission at path `name`; FileNotFoundError when there is nothing there (or it is
    neither a folder nor a notebook): that is the instructor's mistake, not the learner's.

    A folder without step files at its top is read from the one folder below that holds them, else
    from the one notebook it holds (step_folder.py); with none or several, it is refused saying what
    it holds, so that no submission scores 0 as "not written" for being packed one folder deeper.
    """
    path = Path(name)
    if not os.path.lexists(path):
        raise FileNotFoundError(f"{name}: no such folder or notebook")
    if path.suffix == ".ipynb":
        return _notebook(name, name)
    if path.is_symlink():  # it may point at anyone's work, solutions/ included: grade the real folder
        return refused(name, f"{name} is a symbolic link: give the folder itself")
    if not path.is_dir():
        raise FileNotFoundError(f"{name}: a submission is a folder of step files or an .ipynb notebook")
    found = step_folder.survey(path)
    where = found.chosen()
    if where is None and found.lone_notebook():
        return _notebook(name, path / found.lone_notebook(), found.lone_notebook().as_posix())
    if where is None:
        return refused(name, found.problem(name))
    try:
        folder = _open_below(path, where)
    except OSError as err:
        return refused(name, f"{name} {_why(err, 'folder')}")
    try:
        raw, refusals = {}, {}
        for step in manifest.steps():
            try:
                raw[step.filename] = _read_capped(step.filename, MAX_FILE_BYTES, folder)
            except FileNotFoundError:
                continue  # a missing step is not written yet
            except (Refused, OSError) as err:
                refusals[step.filename] = f"{step.filename} {_why(err, 'file')}"
    finally:
        os.close(folder)
    sources = {f: data.decode("utf-8", "replace") for f, data in raw.items()}
    found_in = "" if where == PurePosixPath(".") else where.as_posix()
    return _made(name, sources, "", {**raw, **{f: why.encode() for f, why in refusals.items()}}, refusals, found_in)


def _open_below(top, where):
    """An fd of the folder `where` (relative) below the folder `top`, no component followed if a link."""
    fd = os.open(top, _FLAGS | os.O_DIRECTORY)
    for part in where.parts:
        try:
            inner = os.open(part, _FLAGS | os.O_DIRECTORY, dir_fd=fd)
        finally:
            os.close(fd)
        fd = inner
    return fd


def refused(name, why):
    """A submission that is not graded at all, for the reason `why` (every test fails with it)."""
    return _made(name, {}, why, {})


def _notebook(name, path, found_in=""):
    """The submission `name`, read from the notebook at `path` (`found_in`: its path inside the folder `name`)."""
    try:
        data = _read_capped(path, MAX_NOTEBOOK_BYTES)
    except (Refused, OSError) as err:
        return refused(name, f"{path} {_why(err, 'notebook')}")
    try:
        return _made(name, step_sources(data.decode("utf-8", "replace"), Path(path).name), "", {"nb": data},
                     found_in=found_in)
    except NotebookError as err:
        return _made(name, {}, f"{path}: {err}", {"nb": data}, found_in=found_in)


def _read_capped(path, cap, folder=None):
    """The bytes of the regular file `path` (relative to the open folder `folder` if given), never
    following a link nor blocking; Refused when it is anything else or holds more than `cap` bytes."""
    _check_regular(os.stat(path, dir_fd=folder, follow_symlinks=False))  # a device is not even opened
    fd = os.open(path, _FLAGS, dir_fd=folder)
    try:
        _check_regular(os.fstat(fd))  # what was opened, should it have been swapped since
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            raise Refused(f"is larger than {cap} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _check_regular(info):
    if stat.S_ISLNK(info.st_mode):
        raise OSError(errno.ELOOP, "a symbolic link")
    for is_kind, what in _KINDS:
        if is_kind(info.st_mode):
            raise Refused(what)
    if not stat.S_ISREG(info.st_mode):
        raise Refused("is not a regular file")


def _why(err, what):
    """The reason a file was refused, completing a sentence that starts with its name."""
    if isinstance(err, Refused):
        return str(err)
    if err.errno == errno.ELOOP:
        return f"is a symbolic link: submit the {what} itself"
    if err.errno == errno.ENOTDIR:
        return "is not a folder"
    return f"could not be read: {err.strerror or err}"


def _made(name, sources, problem, raw, unreadable=None, found_in=""):
    digest = hashlib.sha256(found_in.encode("utf-8", "surrogateescape") + b"\0")
    for key in sorted(raw):
        digest.update(key.encode() + b"\0" + raw[key] + b"\0")
    return Submission(name, sources, problem, digest.hexdigest()[:24], dict(unreadable or {}), found_in)
