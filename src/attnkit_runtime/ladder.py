"""The progress ladder printed at the end of `pytest exercises` and by `attnkit check`.

Standard library only: the student release ships this file as it is. `steps` are objects with
`number`, `module`, `filename`, `title`, `track`, `track_title` and `read` (where to read): the kit's manifest steps, or
the release's stored copy. `hidden` maps a step module to the concepts only its hidden cases check, as
{lang: [concept, …]} (attnkit.cases.hidden_concepts). Titles, links and concepts may be two-language
texts: the ladder picks the learner's language when it is printed.
"""
from dataclasses import dataclass

from .i18n import LANGUAGES, pick, set_language
from .messages import say
from .text_wrap import wrap

LANG_OPTION = "--lang"

COLUMNS = 100  # the widest line of the hidden concepts' list, in terminal columns
CORE_TRACK = "core"  # manifest.DEFAULT_TRACK: the extension's steps wait until the core is done


NOT_WRITTEN = "attnkit_not_written"  # a test's user property: a stub's NotImplementedError stopped its case


@dataclass
class StepTally:
    passed: int = 0
    failed: int = 0
    not_done: int = 0  # failed with NotImplementedError: the stub is untouched
    skipped: int = 0  # an optional step not started (pytest_report.skip_unstarted)
    first_failure: str = ""  # "test id: first line of its message", for the step to work on next

    @property
    def total(self):
        return self.passed + self.failed

    @property
    def done(self):
        return self.total > 0 and self.failed == 0

    @property
    def unstarted(self):
        """Every test was skipped: an optional step the learner has not started."""
        return self.skipped > 0 and self.total == 0


def render(tallies, steps, hidden, exercises_label="exercises", reference=False):
    """The ladder text for {step module: StepTally} (steps that ran no test are left out; steps of
    another track than the core, which are optional, are shown once every core step that ran is done,
    under their track's title, an unstarted one marked so, with how to start once no step is next).

    `reference`: the tests ran on the kit's reference solutions (--solutions), not a learner's code.
    """
    ran = [s for s in steps if s.module in tallies and tallies[s.module].total]
    unstarted = [s for s in steps if s.module in tallies and tallies[s.module].unstarted]
    if not ran and not unstarted:
        return say("ladder.none_ran")
    core = [s for s in ran if s.track == CORE_TRACK]
    core_done = all(tallies[s.module].done for s in core)
    waiting = [] if core_done else [s for s in steps if s.track != CORE_TRACK and (s in ran or s in unstarted)]
    ran = [s for s in ran if s not in waiting]
    lines = ["", say("ladder.header_reference" if reference else "ladder.header")]
    next_step = next((s for s in ran if not tallies[s.module].done), None)
    shown = [s for s in steps if s in ran or (core_done and s in unstarted)]
    for s in shown:
        if s.track != CORE_TRACK and s is next(o for o in shown if o.track == s.track):
            lines.append("  " + say("ladder.track_heading", title=pick(s.track_title)))
        t = tallies[s.module]
        mark = say("ladder.optional_not_started" if t.unstarted else "ladder.done" if t.done
                   else "ladder.not_started" if t.not_done == t.total else "ladder.in_progress")
        pointer = "   " + say("ladder.next_marker") if s is next_step else ""
        lines.append("  " + say("ladder.step_row", number=s.number, module=s.module, passed=t.passed,
                                total=t.total or t.skipped, mark=mark) + pointer)
    if waiting:
        lines += ["  " + say("ladder.extension_waits"), *("    " + span for span in _spans(waiting))]
    elif unstarted and next_step is None:  # while a step is next, the ladder sends the learner there alone
        lines += ["", say("ladder.optional", label=exercises_label, file=unstarted[0].filename)]
    if not ran:
        return "\n".join(lines)
    if all(tallies[s.module].not_done == tallies[s.module].total for s in ran):
        lines += ["", say("ladder.first_run", step=ran[0].number)]
    if next_step is not None:
        lines += ["", say("ladder.next", label=exercises_label, file=next_step.filename, title=pick(next_step.title),
                          failure=tallies[next_step.module].first_failure, read=pick(next_step.read))]
        return "\n".join(lines)
    passed = sum(tallies[s.module].passed for s in ran)
    scope = say("ladder.of_steps", steps=len(ran)) if len(ran) > 1 else say("ladder.of_step", number=ran[0].number)
    lines += ["", say("ladder.all_pass_reference" if reference else "ladder.all_pass", passed=passed, scope=scope)]
    for s in ran:
        concepts = pick(hidden[s.module]) if s.module in hidden else ()
        if concepts:
            text = say("ladder.hidden_step", number=s.number,
                       concepts=say("ladder.concept_separator").join(concepts))
            lines += _wrapped(text)
    return "\n".join(lines)


def _spans(steps):
    """The tracks of `steps`, each as its span of step numbers and its title: ["steps 7–9: Beyond one
    head: …", "steps 10–13: After GPT-2: …"]."""
    tracks = {}
    for s in steps:
        tracks.setdefault(s.track, []).append(s)
    return [say("ladder.optional_track", first=group[0].number, last=group[-1].number, title=pick(group[0].track_title))
            for group in tracks.values()]


def _wrapped(text, columns=COLUMNS):
    """`text` as indented lines of at most `columns` terminal columns, Chinese cut only where a line may end."""
    return wrap(text, columns, initial_indent="  ", subsequent_indent="          ")


def add_options(parser):
    """From a pytest_addoption hook: --lang, the language of the messages."""
    parser.addoption(LANG_OPTION, choices=LANGUAGES, default=None,
                     help="the language of the messages: en or zh (default: $ATTNKIT_LANG, else the locale)")


UNUSED_PLUGINS = ("hypothesispytest",)  # its end-of-run summary imports all of hypothesis: 0.5 s per run


def register(config, steps, hidden, exercises_label, reference=False):
    """From a pytest_configure hook: the language of --lang (`add_options`), short tracebacks (the
    learner's failing line, not whole functions) and the ladder after pytest's summary.
    `reference`: the run tests the kit's reference solutions (--solutions); the header and the
    ladder say so. Plugins the public tests never use but that slow every run (UNUSED_PLUGINS) are
    left out, as `-p no:NAME` would."""
    for name in UNUSED_PLUGINS:
        config.pluginmanager.set_blocked(name)
    if config.getoption(LANG_OPTION, None):
        set_language(config.getoption(LANG_OPTION))
    if config.option.tbstyle == "auto":
        config.option.tbstyle = "short"
    config.pluginmanager.register(LadderPlugin(steps, hidden, exercises_label, reference), "attnkit-ladder")


class LadderPlugin:
    """pytest plugin: counts each step's public test outcomes and prints the ladder at the very end.

    A public test's parameter `case` tells its step (`case.step.module`).
    """

    def __init__(self, steps, hidden, exercises_label, reference=False):
        self.steps, self.hidden, self.label, self.reference = steps, hidden, exercises_label, reference
        self.step_of = {}  # test node id -> step module
        self.tallies = {}  # step module -> StepTally
        self.text = None  # the ladder, once pytest's summary has begun

    def pytest_sessionstart(self, session):
        """Say at the top of the run, even under -q, when it tests the reference and not the learner."""
        if self.reference:
            session.config.pluginmanager.get_plugin("terminalreporter").write_line(
                say("ladder.solutions_banner", label=self.label))

    def pytest_collection_modifyitems(self, items):
        """Note each public test's step, and run the steps in their order: pytest collects files by name,
        which puts test_step10_… before test_step1_…."""
        for item in items:
            case = getattr(getattr(item, "callspec", None), "params", {}).get("case")
            if case is not None:
                self.step_of[item.nodeid] = case.step.module
        order = {s.module: k for k, s in enumerate(self.steps)}
        items.sort(key=lambda item: order.get(self.step_of.get(item.nodeid), -1))  # stable: a file's own order kept

    def pytest_runtest_logreport(self, report):
        step = self.step_of.get(report.nodeid)
        if step is None or not (report.when == "call" or report.failed):
            return
        tally = self.tallies.setdefault(step, StepTally())
        if report.passed:
            tally.passed += 1
        elif report.skipped:
            tally.skipped += 1
        else:
            tally.failed += 1
            not_written = dict(report.user_properties).get(NOT_WRITTEN, False)
            tally.not_done += not_written
            crash = getattr(report.longrepr, "reprcrash", None)
            if not tally.first_failure:
                message = crash.message if crash is not None and not not_written else report.longreprtext
                tally.first_failure = f"{report.nodeid.split('::')[-1]}: {message.strip().splitlines()[0][:300]}"
            if not_written and crash is not None:  # the failure's own section shows the stub's text, once
                crash.message = say("report.not_written_short")  # what the end-of-run summary shows

    def pytest_terminal_summary(self):
        self.text = render(self.tallies, self.steps, self.hidden, self.label, self.reference)

    def pytest_unconfigure(self, config):
        """The ladder, the last thing on the screen: after pytest's summary and its final line of counts
        (a pytest_terminal_summary hook prints before them)."""
        terminal = config.pluginmanager.get_plugin("terminalreporter")
        if self.text is not None and terminal is not None:
            terminal.write_line(self.text)
