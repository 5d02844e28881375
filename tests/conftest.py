"""Fixtures for the kit's own tests: the reference step modules and the shared peer data."""
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from attnkit import manifest
from attnkit.paths import ROOT
from attnkit.reference import reference_module

# The kit's own tests read its English messages whatever this machine's locale (a learner's default
# comes from it: attnkit_runtime.i18n); the tests of Chinese output ask for it. Child processes inherit this.
os.environ["ATTNKIT_LANG"] = "en"


def reference_steps():
    """The reference solutions as one namespace: ref.step4_softmax.softmax, ..."""
    return SimpleNamespace(**{s.module: reference_module(s.module) for s in manifest.steps()})


@pytest.fixture(scope="session")
def ref():
    return reference_steps()


@pytest.fixture(scope="session")
def shared_dir():
    """../shared beside the repository (in CI: the copy of shared/ beside the clone); skip if absent."""
    path = Path(ROOT).parent / "shared"
    if not path.is_dir():
        pytest.skip(f"no shared/ folder beside the repository at {path}")
    return path
