"""A hash of what the kit computes its answers from: the cases (public and hidden), the manifest (the
points included), the solutions, the kit's own code and the learner runtime's (the judge, the points
rule, the diagnoses, the words of the feedback) and numpy's version. What is stored from them (the
results store, the leak check's secrets) is used again only while the hash is the same."""
import hashlib
from pathlib import Path

import numpy as np

import attnkit_runtime
from .paths import CASES_DIR, DATA_DIR, HIDDEN_CASES_DIR, PACKAGE_DIR, SOLUTIONS_DIR


def kit_fingerprint(salt, solutions_dir=SOLUTIONS_DIR):
    """16 hex digits of that hash, and of `salt` (what the stored thing is: a track, a format's name)."""
    digest = hashlib.sha256(f"{salt}\0{np.__version__}\0".encode())
    files = [*sorted(CASES_DIR.glob("*.yaml")), *sorted(HIDDEN_CASES_DIR.glob("*.yaml")),
             DATA_DIR / "manifest.yaml", *sorted(Path(solutions_dir).glob("*.py")),
             *sorted(PACKAGE_DIR.rglob("*.py")), *sorted(Path(attnkit_runtime.__file__).parent.rglob("*.py"))]
    for path in files:
        digest.update(str(path.relative_to(path.parents[1])).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
