"""Issue 15: the barrier is an allow-list. Wherever the kit is installed, learner code sees the
interpreter and its standard library, numpy and the sandbox's own files, and nothing of the kit.

Docker's usual layout stands in here: a checkout (with its .git) copied under /usr/src/app in a
private mount namespace (`unshare --mount`, a tmpfs on /usr/src), graded by this python (under
/root: pyenv) from a virtualenv outside the checkout and from one inside it. Learner code with the
barrier on tries to read the hidden cases, the solutions, the kit package, .git and another
student's files, to find git and run `git show HEAD:solutions/step4_softmax.py`, and walks the whole
file system it sees. Run as root and with CAP_SYS_ADMIN dropped (the barrier holds in both).
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attnkit.paths import ROOT
from test_sandbox_fail_closed import AS_ROOT, DROPPED, PRIVILEGES

pytestmark = [AS_ROOT, pytest.mark.skipif(shutil.which("unshare") is None, reason="util-linux unshare is needed")]

APP = "/usr/src/app"
SITE = str(Path(np.__file__).resolve().parents[1])  # this virtualenv's site-packages (outside the copy)
# python's own site-packages, inside its lib folder (pyenv here; Docker's python images too), holding numpy
BASE_HAS_THE_KITS_NEEDS = subprocess.run([os.path.realpath(sys.executable), "-I", "-c", "import numpy, yaml"],
                                         capture_output=True).returncode == 0

LOOK = r"""
import glob, os, shutil
_reference_softmax = softmax

def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read(80).decode(errors="replace")
    except OSError as err:
        return None

def _walk():
    # every file visible but python's own (its executable, standard library without site-packages),
    # numpy's (its package and numpy.libs), shared libraries and the loader's cache
    import numpy, sys
    stdlib, numpy_dir = os.path.dirname(os.__file__), os.path.dirname(numpy.__file__)
    found = []
    for folder, dirs, files in os.walk("/"):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ("/proc", "/dev", "/tmp")]  # the private ones
        for path in (os.path.join(folder, f) for f in files):
            ours = path.startswith((numpy_dir + "/", numpy_dir + ".libs/")) or (
                path.startswith(stdlib + "/") and not path.startswith(stdlib + "/site-packages/"))
            library = ".so" in os.path.basename(path) or path in (sys.executable, "/etc/ld.so.cache")
            if not (ours or library) or "attnkit" in path:
                found.append(path)
    return found

def _git():
    try:
        import subprocess
        done = subprocess.run(["git", "-C", APP, "show", "HEAD:solutions/step4_softmax.py"], capture_output=True)
        return done.stdout.decode(errors="replace")[:80]
    except Exception as err:
        return type(err).__name__

def softmax(S):
    seen = {"read": {p: _read(p) for p in [*glob.glob(APP + "/autograder/cases/*.yaml"),
                                           APP + "/autograder/cases/step4_softmax.yaml",
                                           APP + "/solutions/step4_softmax.py", APP + "/src/attnkit/__init__.py",
                                           APP + "/.git/HEAD", APP + "/submissions/other/step4_softmax.py",
                                           ROOT + "/solutions/step4_softmax.py", "/etc/passwd"]},
            "git binary": [p for p in ("/usr/bin/git", shutil.which("git")) if p and os.path.exists(p)],
            "git show": _git(), "walk": _walk()[:40], "top": sorted(os.listdir("/"))}
    print("SEEN", repr(seen))
    return _reference_softmax(S)
"""

DRIVER = """
import json, sys
from pathlib import Path
from attnkit import paths
from attnkit.grader.sandbox import Job, Limits, run_submission
import numpy as np
folder = Path(sys.argv[-1])
sources = {p.name: p.read_text() for p in folder.glob("*.py")}
run = run_submission(sources, [Job("softmax", "step4_softmax", "softmax", ("P",), {"S": np.zeros((1, 3))})],
                     Limits(call_seconds=60.0, submission_seconds=90.0, output_bytes=100_000, call_cpu_seconds=60.0,
                            call_idle_seconds=60.0, submission_idle_seconds=90.0))  # the walk of / takes its time
print(json.dumps({"root": str(paths.ROOT), "ending": run.results["softmax"].ending, "stdout": run.stdout,
                  "isolation": run.isolation}))
"""

# Inside the private mount namespace: the checkout copied to /usr/src/app with a .git of its own, two
# submissions under it, then (for "inside") a virtualenv in the checkout holding a copy of numpy.
SETUP = """
set -e
mount -t tmpfs -o size=256m tmpfs /usr/src
mkdir -p {app}
tar -C {root} --exclude=./.venv --exclude=./.git --exclude=__pycache__ -cf - . | tar -C {app} -xf -
cd {app}
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm copy
mkdir -p submissions && cp -r solutions submissions/hostile && cp -r solutions submissions/other
cat >> submissions/hostile/step4_softmax.py <<'EOF'
APP, ROOT = {app!r}, {root!r}
{look}
EOF
if [ "$LAYOUT" = inside ]; then
    {base}/bin/python3 -m venv --without-pip .venv
    site=$(echo .venv/lib/python3*/site-packages)
    cp -r {site}/numpy {site}/numpy.libs "$site"/
    echo {app}/src > "$site"/attnkit.pth
    echo {site} > "$site"/zz-outside.pth
    python=.venv/bin/python
elif [ "$LAYOUT" = outside ]; then
    python={venv_python}
else
    python={python}
fi
exec {prefix} $python -I -c "import sys; sys.path.insert(0, '{app}/src'); exec(sys.argv[1])" "$DRIVER" submissions/hostile
"""


def _graded_in_docker_layout(layout, drop):
    script = SETUP.format(app=APP, root=str(ROOT), look=LOOK, site=SITE, base=sys.base_prefix,
                          venv_python=sys.executable,
                          python=os.path.realpath(sys.executable), prefix=" ".join(DROPPED) if drop else "")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                          env={**{k: v for k, v in os.environ.items() if k != "ATTNKIT_ROOT"}, "LAYOUT": layout, "DRIVER": DRIVER}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@PRIVILEGES
@pytest.mark.parametrize("layout", [
    "outside", "inside",
    pytest.param("python", marks=pytest.mark.skipif(not BASE_HAS_THE_KITS_NEEDS, reason="no numpy and PyYAML beside "
                                                    "python's own standard library here"))],
    ids=["venv-outside-checkout", "venv-inside-checkout", "python-own-site-packages"])
def test_in_a_checkout_under_usr_learner_code_reads_nothing_of_the_kit(layout, drop):
    graded = _graded_in_docker_layout(layout, drop)
    assert graded["root"] == APP and graded["ending"] == "returned", graded
    line = next(line for line in graded["stdout"].splitlines() if line.startswith("SEEN "))
    seen = eval(line[5:])  # noqa: S307 - a repr the test's own code printed
    assert seen["read"] and all(text is None for text in seen["read"].values()), seen["read"]
    assert seen["git binary"] == [] and "def softmax" not in seen["git show"], seen
    assert seen["walk"] == [], seen["walk"][:50]
    assert {"tmp", "proc", "dev"} <= set(seen["top"]) and "home" not in seen["top"]
    assert not graded["isolation"].startswith("none"), graded["isolation"]
