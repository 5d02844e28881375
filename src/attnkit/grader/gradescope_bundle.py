"""The Gradescope autograder zip: `setup.sh` and `run_autograder` at its top, then what they need.

    setup.sh, run_autograder          autograder/gradescope/ (Gradescope's entry points)
    attnkit-<version>-py3-none-any.whl  the kit, built here from src/: setup.sh installs it, no download
    autograder/cases/<step>.yaml      the hidden cases
    solutions/<step>.py               the reference solutions

Unzipped into /autograder/source this is an ATTNKIT_ROOT: run_autograder points the kit at it.
"""
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .. import manifest
from ..cases import hidden_cases_available
from attnkit_runtime.i18n import ENVIRONMENT, check_language
from ..paths import HIDDEN_CASES_DIR, ROOT, SOLUTIONS_DIR

ENTRY_POINTS = ROOT / "autograder" / "gradescope"
_KIT_FILES = ("pyproject.toml", "README.md", "src")


def build(zip_path, lang=None, track=manifest.DEFAULT_TRACK):
    """Write the zip at `zip_path`; return the names it holds. ValueError when the kit has no hidden cases
    or no track `track`.

    `lang` (en or zh): the language of the students' feedback, set in run_autograder (the command passes
    --lang, else $ATTNKIT_LANG); None leaves it to the container's locale (English on Gradescope's images).
    `track`: the assignment run_autograder grades (one Gradescope assignment per track), out of its 100 points.
    """
    manifest.steps(track)  # ValueError naming the tracks
    if not hidden_cases_available() or not SOLUTIONS_DIR.is_dir():
        raise ValueError(f"the bundle needs the hidden cases ({HIDDEN_CASES_DIR}) and the solutions "
                         f"({SOLUTIONS_DIR}): run it from a checkout of the kit")
    with tempfile.TemporaryDirectory() as tmp:
        wheel = _build_wheel(Path(tmp))
        entries = [("setup.sh", ENTRY_POINTS / "setup.sh", 0o755),
                   ("run_autograder", _run_autograder(Path(tmp), lang, track), 0o755),
                   (wheel.name, wheel, 0o644)]
        entries += [(f"autograder/cases/{p.name}", p, 0o644) for p in sorted(HIDDEN_CASES_DIR.glob("*.yaml"))]
        entries += [(f"solutions/{p.name}", p, 0o644) for p in sorted(SOLUTIONS_DIR.glob("*.py"))]
        Path(zip_path).parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, path, mode in entries:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = (0o100000 | mode) << 16  # a regular file with its mode, for unzip
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())
    return [name for name, _, _ in entries]


TRACK_VARIABLE = "ATTNKIT_TRACK"  # run_autograder passes it on to gradescope_run


def _run_autograder(tmp, lang, track):
    """run_autograder, with `export ATTNKIT_TRACK=<track>` after its first line, and `export
    ATTNKIT_LANG=<lang>` when `lang` is given."""
    source = ENTRY_POINTS / "run_autograder"
    shebang, rest = source.read_text(encoding="utf-8").split("\n", 1)
    lines = [f"export {TRACK_VARIABLE}={track}  # attnkit gradescope-bundle --track: the assignment graded"]
    if lang is not None:
        lines.append(f"export {ENVIRONMENT}={check_language(lang)}  # attnkit gradescope-bundle: --lang or ${ENVIRONMENT}")
    baked = tmp / "run_autograder"
    baked.write_text("\n".join([shebang, *lines, rest]), encoding="utf-8")
    return baked


def _build_wheel(tmp):
    """Build the kit's wheel from a clean copy of its sources (the checkout keeps no build/ litter)."""
    kit = tmp / "kit"
    for name in _KIT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, kit / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            kit.mkdir(exist_ok=True)
            shutil.copy2(source, kit / name)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "--disable-pip-version-check",
                           "-w", str(tmp / "wheel"), str(kit)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"building the kit's wheel failed:\n{done.stdout}{done.stderr}")
    (wheel,) = (tmp / "wheel").glob("attnkit-*.whl")
    return wheel
