"""Write a file so that a reader (or a kill) never sees it half-written."""
import hashlib
import os
import tempfile
from pathlib import Path


def write_text(path, text):
    """Write `text` to a temporary file beside `path`, flush it to disk, then rename it over `path`.

    The temporary file is `.<16 hex digits of the name's SHA-256>.<random>.tmp`: as short for a name of
    200 bytes as for one of 5 (the file system's limit is on each name), and free of glob characters.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    prefix = "." + hashlib.sha256(os.fsencode(path.name)).hexdigest()[:16] + "."
    for stale in path.parent.glob(f"{prefix}*.tmp"):  # left by a writer killed mid-write
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
