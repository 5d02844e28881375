"""Write a file so that a reader (or a kill) never sees it half-written, with the mode a plain write gives it."""
import hashlib
import os
import re
import tempfile
from pathlib import Path

PRIVATE = 0o600  # the results store's mode: it holds the hidden cases' inputs and expected values (docs/SECURITY.md)


def write_text(path, text, private=False):
    """Write `text` to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    The file gets the mode `open()` would give a new file (0666 less the user's umask), or PRIVATE
    when `private`. The temporary file is `.<16 hex digits of the name's SHA-256>.<random>.tmp`: as
    short for a name of 200 bytes as for one of 5 (the file system's limit is on each name), and free
    of glob characters.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = "." + hashlib.sha256(os.fsencode(path.name)).hexdigest()[:16] + "."
    for stale in path.parent.glob(f"{prefix}*.tmp"):  # left by a writer killed mid-write
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)  # made 0600: no reader sees it early
    try:
        os.fchmod(fd, PRIVATE if private else 0o666 & ~umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def umask():
    """The process's umask, read without changing it (os.umask can only swap it, racing other threads' files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            found = re.search(r"^Umask:\s*([0-7]+)", status.read(), re.M)
        if found:
            return int(found.group(1), 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
