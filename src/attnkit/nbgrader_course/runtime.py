"""What the notebook's test cells run: a step's cases on the learner's functions, judged in the kernel.

The course builder copies this module into a locked cell of the notebook, after the source of the
portable judging core (`attnkit.judge`) whole, so the notebook needs nothing but numpy and its
messages are the kit's. The package import below is the line that copy leaves out; in the package
it keeps this module importable, so the kit's tests can run it directly.

A test cell makes one `StepChecks`, runs the step's public cases with `run`, the hidden ones with
`run_hidden` and ends with `finish`, which raises when anything failed: nbgrader then gives the
cell 0 points. The `run_hidden` line is the same in the released notebook (no hidden-tests block
for nbgrader to strip, so a returned test cell keeps the checksum nbgrader recorded): outside the
course folder it finds no hidden cases and runs none.
"""
import base64
import hashlib
import json
from pathlib import Path

import numpy as np

from .. import i18n
from ..judge import Verdict, build_arg, evaluate_safely, portable_case, run_case, teaching_message

HIDDEN_DIR = "hidden_tests"  # in the course root, beside source/: nbgrader never copies it anywhere
COURSE_CONFIG = "nbgrader_config.py"  # in the course root: where the hidden cases must be found
_COURSE_MARKS = (COURSE_CONFIG, "gradebook.db", HIDDEN_DIR)  # any of them above: a course folder


def decode(spec):
    """An argument or expected value: a catalogue spec, or {"b64", "dtype", "shape"} for a stored array."""
    if isinstance(spec, dict) and "b64" in spec:
        raw = base64.b64decode(spec["b64"])
        return np.frombuffer(raw, dtype=spec["dtype"]).reshape(spec["shape"]).copy()
    return build_arg(spec)


def decode_outputs(outputs):
    """Stored results, one {part: value} per call (None for a property case's expected values)."""
    return None if outputs is None else [{part: decode(value) for part, value in call.items()} for call in outputs]


def build_call(call):
    """The keyword arguments of one call ("*name" keys hold positional arguments, as in the catalogue)."""
    return {arg: [decode(s) for s in spec] if arg.startswith("*") else decode(spec) for arg, spec in call.items()}


def find_hidden(assignment, digest, start=None):
    """The hidden cases, from <an ancestor of the working directory>/hidden_tests/<assignment>.json.

    nbgrader runs the notebook in its own folder (source/…, autograded/<student>/…), below the course
    root. A file whose SHA-256 is not `digest` (a copy a submission brought along) is passed over.
    None when no ancestor is a course folder (one holding a _COURSE_MARKS name): a student's own copy.
    FileNotFoundError in a course folder without the file, so grading never skips them silently.
    """
    here = Path(start or Path.cwd()).resolve()
    in_course = False
    for folder in (here, *here.parents):
        path = folder / HIDDEN_DIR / f"{assignment}.json"
        if path.is_file():
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() == digest:
                return json.loads(data)
        in_course = in_course or any((folder / mark).exists() for mark in _COURSE_MARKS)
    if not in_course:
        return None
    raise FileNotFoundError(
        f"the hidden tests ({HIDDEN_DIR}/{assignment}.json with SHA-256 {digest[:12]}…) were not found "
        f"above {here}: run nbgrader in the course folder that `attnkit nbgrader-course` wrote, and "
        "regenerate the course if you changed that file")


class StepChecks:
    """The checks of one step's test cell."""

    def __init__(self, module, namespace, points, hidden_concepts=None):
        self.module = module
        self.namespace = namespace
        self.points = points
        self.hidden_concepts = hidden_concepts  # {lang: [concept, …]} (attnkit.cases.concepts), or None
        self.counts = {"public": [0, 0], "hidden": [0, 0]}  # [passed, run]
        self.failures = []  # (visibility, text)
        self.not_written = []  # NotImplementedError messages, once each

    def run(self, spec, visibility="public"):
        """Run one case (a dict made by the course builder) on the learner's function and judge it."""
        case = portable_case(self.module, spec)
        calls = [build_call(call) for call in spec["calls"]]
        self.counts[visibility][1] += 1
        judged = self._judge(case, spec, calls)
        if judged is None:
            return
        verdict, diagnosis = judged
        if verdict.passed:
            self.counts[visibility][0] += 1
        else:
            self.failures.append((visibility, teaching_message(case, calls, verdict, diagnosis)))

    def _judge(self, case, spec, calls):
        """(Verdict, text of the known mistake it matches or ""), or None for a function not written yet."""
        fn = self.namespace.get(case.function)
        if not callable(fn):
            return Verdict(False, "missing", f"{case.function}() is not defined: run this step's solution cell "
                                             "first, and keep the function's name and signature"), ""
        try:
            verdict, results = run_case(fn, case, calls, decode_outputs(spec["expected"]), case.forms)
        except NotImplementedError as err:
            if str(err) not in self.not_written:
                self.not_written.append(str(err))
            return None
        except Exception as err:  # the learner's exception is the verdict; anything worse stops the cell
            name, text = type(err).__name__, str(err)
            diagnosis = next((i18n.pick(m["text"]) for m in spec["mistakes"] if "error" in m and m["error"][0] == name
                              and m["error"][1] and m["error"][1] in text), "")
            return Verdict(False, "exception", f"raised {name}: {text}"), diagnosis
        if verdict.passed or results is None:
            return verdict, ""
        with np.errstate(all="ignore"):
            diagnosis = next((i18n.pick(m["text"]) for m in spec["mistakes"] if "outputs" in m
                              and evaluate_safely(case, calls, results, decode_outputs(m["outputs"]), None).passed), "")
        return verdict, diagnosis

    def run_hidden(self, assignment, digest):
        """Run the step's hidden cases in the course folder (source/, autograded/); elsewhere none."""
        hidden = find_hidden(assignment, digest)
        for spec in hidden["steps"][self.module] if hidden else ():
            self.run(spec, "hidden")

    def finish(self):
        """Print the outcome; raise if any check failed (the cell then earns no points)."""
        (public_ok, public_run), (hidden_ok, hidden_run) = self.counts["public"], self.counts["hidden"]
        lines = [f"{self.module}: {public_ok} of {public_run} public checks passed"
                 + (f", {hidden_ok} of {hidden_run} hidden checks passed" if hidden_run else "")]
        failed = public_run + hidden_run - public_ok - hidden_ok
        concepts = i18n.pick(self.hidden_concepts) if self.hidden_concepts else []
        if not failed and not hidden_run and concepts:
            lines.append("The hidden tests run at grading also check: " + "; ".join(concepts) + ".")
        own = sorted(self.not_written, key=lambda text: f"({self.module}." not in text)  # this step's first
        for text in own:
            lines.append(f"\nnot written yet: {text}")
        for visibility, text in self.failures:
            lines.append(f"\nFAILED ({visibility} check): {text}")
        print("\n".join(lines))
        if self.not_written and len(self.failures) == 0:
            raise NotImplementedError("\n".join(own))
        if failed:
            raise AssertionError(f"{self.module}: {failed} check(s) failed, see above. This cell earns its "
                                 f"{self.points} points only when every check passes.")
