"""Arrays the leak check builds once and reads back on later runs: the secrets take seconds to build (the
expected outputs of the GPT-2-sized hidden cases, sorted and indexed), a scan only milliseconds per file.

They are kept in the user's cache folder ($XDG_CACHE_HOME, else ~/.cache: attnkit/NAME/KEY/, private to the
user, as the hidden cases they come from), one `.npy` per array and the texts as JSON, and read back
memory-mapped, so a scan reads only the pages it looks at. KEY is the caller's (the leak check's is
fingerprint.made_of): a kit whose cases, solutions or the code that builds them changed builds them again
(the older folders are removed). A folder that cannot be
read back whole is built again; one that cannot be written leaves the check only slower.
"""
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from attnkit_runtime.kept_inputs import cache_folder

_TEXTS = "texts.json"


def kept(name, key, build):
    """(arrays, texts) that `build()` gives ({name: ndarray}, a JSON-able dict), read back from the cache
    folder when a run with the same `key` stored them (arrays memory-mapped, read-only)."""
    folder = cache_folder(name) / key
    try:
        return _read(folder)
    except (OSError, ValueError, KeyError):
        pass
    arrays, texts = build()
    try:
        _write(folder, arrays, texts)
    except OSError:
        return arrays, texts
    return _read(folder)


def _read(folder):
    texts = json.loads((folder / _TEXTS).read_text(encoding="utf-8"))
    # plain arrays over the mapped pages: numpy's memmap class costs tens of microseconds an indexing
    return {name: np.asarray(np.load(folder / f"{name}.npy", mmap_mode="r")) for name in texts["arrays"]}, texts["texts"]


def _write(folder, arrays, texts):
    """Write into a new folder beside `folder`, then rename it: a reader never sees half of one."""
    folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder.parent.parent, 0o700)
    for old in folder.parent.iterdir():
        shutil.rmtree(old, ignore_errors=True)
    fresh = Path(tempfile.mkdtemp(prefix=f"{folder.name}.", dir=folder.parent))
    for name, array in arrays.items():
        np.save(fresh / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
    (fresh / _TEXTS).write_text(json.dumps({"arrays": sorted(arrays), "texts": texts}), encoding="utf-8")
    try:
        fresh.rename(folder)
    except OSError:  # another run stored the same meanwhile
        shutil.rmtree(fresh, ignore_errors=True)
