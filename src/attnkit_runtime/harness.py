"""The one learner harness: run a case on the learner's function and say what happened, in every front end.

The checkout's public tests, the release's, the notebook's checks and the grader all go through here,
so the same code gets the same status, diagnosis and words everywhere. It has two halves:

- `call_case` runs where learner code may run (the learner's own process; the grader's sandbox child):
  it calls the function once per call on copies of the arguments, and records what came back, the NumPy
  warnings on the way, the arguments it changed in place, the earlier steps' functions it called
  (`CallLog`), the peak of the memory it allocated when the case asks for it (`judge.measures_peak`),
  and the exception it raised, as an `Outcome` of plain data.
- `judge_outcome` runs where the verdict is decided (the same process at home; the grader's, outside the
  sandbox): it turns an Outcome into a `CaseResult` with a `Status`, the known mistake it matches
  (`diagnose`, the front end's: the mistake catalogue in the kit, stored outputs in the release and the
  notebook) and the teaching message.

An earlier step is blamed only when the failing function called one of its functions during the case
and that step fails its own cases (`earlier_passes`); the likely-mistake line is kept either way.
"""
import copy
import functools
import tracemalloc
from dataclasses import dataclass, field

import numpy as np

from . import inputs, judge
from .i18n import pick
from .loader import TimeLimitExceeded, time_limit
from .messages import say
from .status import Status


class Ending:
    """How a case's calls ended (`Outcome.ending`)."""

    RETURNED = "returned"  # every call returned (its results may still be wrong)
    NOT_WRITTEN = "not_written"  # a stub's NotImplementedError
    RAISED = "raised"  # the learner's code raised another exception
    TIMEOUT = "timeout"  # a call ran past its time limit
    OUT_OF_MEMORY = "out_of_memory"  # a memory case's call ran out of memory: it held too much (the grader caps it)


@dataclass
class Outcome:
    """What a case's calls did, as plain data (the sandbox child sends it to the grader).

    `results`: one {part: value} per call once every call returned and its result could be named;
    `unnamed`: why a result could not be named (a wrong tuple), else "";
    `warnings`: the NumPy RuntimeWarnings on the way, as text; `modified`: the arguments a call changed
    in place; `called`: the earlier steps' modules whose functions the calls used (`CallLog`);
    `error_type`, `error`: the exception (its type's name and text), `exception` the object itself where
    the learner's process is also the judge's (None across the sandbox); `peaks`: for a case that
    measures its memory (`judge.measures_peak`), the peak bytes each call allocated (`peak_of_call`), else ();
    `resident`: for such a case in the grader, how much each call grew the peak resident memory of a process
    that made only that call, read by the kernel outside it (the learner's process could forge `peaks` by
    resetting tracemalloc: not this), else ();
    `earlier_stub`: for a NotImplementedError, the earlier step (module) out of whose function it came
    (`CallLog.stub_of`), "" when it came from the case's own step.
    """

    ending: str
    results: list | None = None
    unnamed: str = ""
    warnings: list = field(default_factory=list)
    modified: list = field(default_factory=list)
    called: tuple = ()
    error_type: str = ""
    error: str = ""
    exception: BaseException | None = None
    peaks: tuple = ()
    resident: tuple = ()
    earlier_stub: str = ""


@dataclass(frozen=True)
class CaseResult:
    """One judged case. `message` is "" when it passed; `diagnosis` the code of the known mistake it
    matches (None if none), `diagnosis_text` its description; `not_written` is True for a stub's
    NotImplementedError of this case's step; `blamed` the earlier steps (modules) the case's calls used
    that fail their own cases; `exception` the learner's exception, for a front end that shows its
    traceback; `diagnoses` the codes of every known mistake the case cannot tell apart, `diagnosis` first
    (`Diagnosis.mistakes_of_…`), which `diagnosis_text` describes."""

    case: object
    status: Status
    message: str = ""
    problem: str = ""
    diagnosis: str | None = None
    diagnosis_text: str = ""
    not_written: bool = False
    blamed: tuple = ()
    exception: BaseException | None = None
    diagnoses: tuple = ()

    @property
    def passed(self):
        return self.status is Status.PASSED


class CallLog:
    """Records which earlier steps' functions a case's calls used.

    `wrap(module, fn)` gives a function that calls `fn` and notes `module` while a `recording()` block
    is open; the front end puts the wrapped functions where the learner's code finds the earlier steps
    (the earlier step's module, or the notebook's namespace). It also notes the earlier step out of whose
    function a NotImplementedError came (`stub_of`): the stub that stopped a case is a field, not words.
    """

    def __init__(self):
        self._open = None
        self._stub = (None, "")  # (the NotImplementedError, the innermost earlier step it came out of)

    def wrap(self, module, fn):
        if getattr(fn, "__attnkit_recorded__", None) is self:
            return fn

        @functools.wraps(fn)
        def recorded(*args, **kwargs):
            __tracebackhide__ = True
            if self._open is not None:
                self._open.setdefault(module)  # a dict: the steps in the order first used
            try:
                return fn(*args, **kwargs)
            except NotImplementedError as err:
                if self._open is not None and self._stub[0] is not err:  # the innermost wrapper sees it first
                    self._stub = (err, module)
                raise

        recorded.__attnkit_recorded__ = self
        return recorded

    def wrap_namespace(self, namespace, functions):
        """Wrap the functions of `functions` ({module: [function names]}) found in `namespace` (a dict), in place."""
        for module, names in functions.items():
            for name in names:
                if callable(namespace.get(name)):
                    namespace[name] = self.wrap(module, namespace[name])

    def recording(self):
        """`with log.recording() as used:` notes in `used` ({module: None}) the earlier steps whose wrapped
        functions are called inside the block (a class's __enter__/__exit__: a generator's context manager
        costs more than the learner's quickest calls)."""
        return self

    def __enter__(self):
        self._open = used = {}
        return used

    def __exit__(self, *exc_info):
        self._open, self._stub = None, (None, "")

    def stub_of(self, err):
        """The earlier step (module) out of whose function `err`, a NotImplementedError raised while recording,
        came (the innermost, when it came out of several); "" when it came out of none (the case's own step)."""
        return self._stub[1] if self._stub[0] is err else ""


_USED_WHEN_STOPPED = {}  # "module.function()" -> the earlier steps it used when its time limit stopped it


def call_case(fn, case, calls, log=None, seconds=None, copied=False, watched=None):
    """Call `fn` once per call of `case` (on copies of `calls`) and return the Outcome.

    `log` (a CallLog) records the earlier steps used; `seconds` is the time limit of each call
    (None: `loader.time_limit`'s default; 0: no limit here, the grader's sandbox keeps its own). A function
    stopped once is not run again (`loader.time_limit`): its Outcome then names the earlier steps it used
    when it was stopped. `copied`: `calls` are already the learner's own copies (the sandbox child's,
    fresh from the wire), handed over as they are. `watched`: with `copied`, each call's `inputs.watch`
    taken beforehand, while no learner code had run yet (the sandbox's zygote takes it once for every child).
    Only a learner's exception is caught: the kit's own errors propagate.
    """
    __tracebackhide__ = True
    log = log or CallLog()
    raw, warned, modified, peaks = [], [], [], []
    what = f"{case.step.module}.{case.function}()"
    measure = judge.measures_peak(case)
    with log.recording() as used:
        try:
            for k, kwargs in enumerate(calls):  # a loop: a comprehension's frame would show in tracebacks
                passed = kwargs if copied else copy.deepcopy(kwargs)
                before = watched[k] if watched is not None else inputs.watch(passed, None if copied else kwargs)
                if seconds == 0:
                    (value, emitted), peak = _made(fn, passed, measure)
                else:
                    with time_limit(what, seconds):
                        (value, emitted), peak = _made(fn, passed, measure)
                raw.append(value)
                peaks.append(peak)
                warned += emitted
                modified += [_argument(name, k, len(calls)) for name in inputs.changed(before)]
        except NotImplementedError as err:
            return Outcome(Ending.NOT_WRITTEN, called=tuple(used), error_type="NotImplementedError",
                           error=str(err), exception=err, earlier_stub=log.stub_of(err))
        except TimeLimitExceeded as err:
            called = _USED_WHEN_STOPPED.setdefault(what, tuple(used)) if used else _USED_WHEN_STOPPED.get(what, ())
            return Outcome(Ending.TIMEOUT, called=called, error_type="TimeLimitExceeded", error=str(err), exception=err)
        except Exception as err:  # noqa: BLE001 - whatever the learner's code raised is the learner's
            ending = Ending.OUT_OF_MEMORY if measure and isinstance(err, MemoryError) else Ending.RAISED
            return Outcome(ending, called=tuple(used), error_type=type(err).__name__, error=str(err), exception=err)
    try:
        results = [judge.named_outputs(case.returns, value) for value in raw]
    except ValueError as err:
        return Outcome(Ending.RETURNED, unnamed=str(err), warnings=warned, modified=modified,
                       called=tuple(used))
    return Outcome(Ending.RETURNED, results, warnings=warned, modified=modified, called=tuple(used),
                   peaks=tuple(peaks) if measure else ())


def _made(fn, passed, measure):
    """(`judge.invoke_watched(fn, passed)`, the call's `peak_of_call` when `measure`, else None)."""
    __tracebackhide__ = True
    if not measure:
        return judge.invoke_watched(fn, passed), None
    return peak_of_call(judge.invoke_watched, fn, passed)


def peak_of_call(call, *args):
    """(`call(*args)`, the peak bytes it held at once beyond what was allocated before it), measured by
    Python's tracemalloc, which sees NumPy's arrays too; the peak is None when the call stopped the tracing
    or cleared it (its traces of what was allocated before are gone): a peak it hid is no peak.

    It runs where learner code runs, as the warnings are recorded (the learner's code could silence those
    too): the judge decides outside what the figure means.
    """
    __tracebackhide__ = True
    ours = not tracemalloc.is_tracing()
    if ours:
        tracemalloc.start()
    try:
        marker = bytearray(64)  # allocated while tracing: its trace is lost if the call restarts or clears it
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        value = call(*args)
        peak = tracemalloc.get_traced_memory()[1]
        kept = tracemalloc.is_tracing() and tracemalloc.get_object_traceback(marker) is not None
        return value, peak - before if kept else None
    finally:
        if ours:
            tracemalloc.stop()


def _argument(name, k, count):
    """How a message names argument `name` of call `k` (from 0) of a case of `count` calls."""
    return name if count == 1 else say("part.of_call", part=name, call=k + 1)


def of_calls(outcomes):
    """The Outcome of a case from the Outcomes of its calls, each made alone by `call_case` (the grader's
    sandbox makes one call per request): the first that did not return, else all their results,
    warnings and changed arguments (named by call), or the first reason a result could not be named."""
    for outcome in outcomes:
        if outcome.ending != Ending.RETURNED:
            return outcome
    unnamed = next((o.unnamed for o in outcomes if o.unnamed), "")
    return Outcome(Ending.RETURNED, None if unnamed else [o.results[0] for o in outcomes], unnamed,
                   [text for o in outcomes for text in o.warnings],
                   [_argument(name, k, len(outcomes)) for k, o in enumerate(outcomes) for name in o.modified],
                   tuple(sorted({module for o in outcomes for module in o.called})),
                   peaks=tuple(peak for o in outcomes for peak in o.peaks),
                   resident=tuple(peak for o in outcomes for peak in o.resident))


def stub_text(number, module, read, error):
    """A stub's NotImplementedError `error` of step `number` (`module`; `read`: its lesson, one link or
    {lang: link}) in the learner's language only: the stub's raise holds every language, for it is one file
    that every learner gets. `error`'s own text when no function raised it."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return str(error)
    return say("stub.not_written", step=number, name=f"{module}.{tb.tb_frame.f_code.co_name}", read=pick(read))


class Diagnosis:
    """What a front end knows of mistakes (the kit's catalogue, or the stored outputs of the release and
    the notebook): `mistakes_of_results(case, calls, results)` and `mistakes_of_error(case, error_type, error)`
    give the codes of the known mistakes that match, as a tuple in diagnosis order (more than one where the
    case cannot tell them apart), `mistakes_of_memory(case, calls)` those that fail a memory case by what they
    hold alone (for a call that ran out of memory), `of_results` and `of_error` the first or None,
    `describe(code)` its text in the learner's language."""

    def mistakes_of_results(self, case, calls, results):
        return ()

    def mistakes_of_error(self, case, error_type, error):
        return ()

    def mistakes_of_memory(self, case, calls):
        return ()

    def of_results(self, case, calls, results):
        return next(iter(self.mistakes_of_results(case, calls, results)), None)

    def of_error(self, case, error_type, error):
        return next(iter(self.mistakes_of_error(case, error_type, error)), None)

    def describe(self, code):
        return code

    def described(self, codes):
        """The likely-mistake text of `codes` (`mistakes_of_…`): the first one's description, then each one the
        case cannot tell apart from it."""
        text = ""
        for code in codes:
            text = say("teach.alike_mistake", first=text, other=self.describe(code)) if text else self.describe(code)
        return text


def judge_outcome(case, calls, outcome, expected, forms, diagnosis=None, earlier_passes=None, full_arrays=None):
    """The CaseResult of `outcome` on `case`.

    `expected`/`forms` as `judge.evaluate` takes them, or functions of no argument (called only when
    a result came back); `diagnosis` a Diagnosis; `earlier_passes(module)` says whether an earlier
    step passes its own cases (None: the earlier steps are the kit's, never to blame); `full_arrays` as
    `judge.teaching_message` takes it (the public tests under pytest -vv).
    """
    diagnosis = diagnosis or Diagnosis()

    def blamed():  # the earlier steps are judged only for a case that failed
        return tuple(m for m in outcome.called if earlier_passes is not None and not earlier_passes(m))

    def found(*args, **kwargs):
        return _found(case, blamed(), *args, **kwargs)

    if outcome.ending == Ending.NOT_WRITTEN:
        failing = blamed()
        own = outcome.earlier_stub in ("", case.step.module) or not failing
        return _found(case, failing, Status.FAILED, outcome.error, "not_written", not_written=own,
                      exception=outcome.exception)
    if outcome.ending == Ending.TIMEOUT:
        return found(Status.TIMEOUT, f"{outcome.error}\n  {say('teach.read', where=pick(case.read))}", "timeout",
                     exception=outcome.exception)  # its first line names the function: a short summary shows it
    if outcome.ending == Ending.RAISED:
        codes = diagnosis.mistakes_of_error(case, outcome.error_type, outcome.error)
        code, text = next(iter(codes), None), diagnosis.described(codes)
        verdict = judge.Verdict(False, "exception", say("teach.raised", error=f"{outcome.error_type}: {outcome.error}"))
        return found(Status.ERROR, judge.teaching_message(case, calls, verdict, text), "exception", code, text,
                     exception=outcome.exception, codes=codes)
    if outcome.ending == Ending.OUT_OF_MEMORY:
        codes = diagnosis.mistakes_of_memory(case, calls)
        code, text = next(iter(codes), None), diagnosis.described(codes)
        verdict = judge.out_of_memory_verdict(case, outcome.error)
        return found(Status.FAILED, judge.teaching_message(case, calls, verdict, text), verdict.problem, code, text,
                     exception=outcome.exception, codes=codes)
    if outcome.results is None:
        return found(Status.FAILED, f"{case.step.module}.{case.function} — {outcome.unnamed}", "result")
    expected, forms = (given() if callable(given) else given for given in (expected, forms))
    with np.errstate(all="ignore"):  # the learner's NaN and inf are reported, not warned about
        verdict = judge.evaluate_safely(case, calls, outcome.results, expected, forms, outcome.peaks, outcome.resident)
    if verdict.passed and outcome.modified:
        verdict = judge.Verdict(False, "modified", say("verdict.modified", function=case.function,
                                                       argument=say("list.separator").join(outcome.modified)))
    elif verdict.passed and outcome.warnings:
        verdict = judge.warning_verdict(case.function, outcome.warnings)
    if verdict.passed:
        return CaseResult(case, Status.PASSED)
    codes = ()
    if verdict.problem not in ("modified", "warning"):
        with np.errstate(all="ignore"):
            codes = diagnosis.mistakes_of_results(case, calls, outcome.results)
    code, text = next(iter(codes), None), diagnosis.described(codes)
    return found(Status.FAILED, judge.teaching_message(case, calls, verdict, text, full_arrays), verdict.problem,
                 code, text, codes=codes)


def _found(case, blamed, status, message, problem, code=None, text="", not_written=False, exception=None, codes=()):
    return CaseResult(case, status, message, problem, code, text, not_written, blamed, exception, tuple(codes))
