"""pytest hooks for exercises/ (imported by exercises/conftest.py): the --solutions switch and the
progress ladder at the end of the run."""
from .ladder import StepTally, render
from .public import SOLUTIONS_OPTION


def pytest_addoption(parser):
    parser.addoption(SOLUTIONS_OPTION, action="store_true", default=False,
                     help="run the public tests against the kit's reference solutions/ instead of exercises/")


def pytest_configure(config):
    if config.option.tbstyle == "auto":
        config.option.tbstyle = "short"  # a learner needs the failing line of their file, not whole functions
    config.pluginmanager.register(LadderPlugin(config), "attnkit-ladder")


class LadderPlugin:
    """Counts each step's public test outcomes and prints the ladder after pytest's summary."""

    def __init__(self, config):
        self.config = config
        self.step_of = {}  # test node id -> step module
        self.tallies = {}  # step module -> StepTally

    def pytest_collection_modifyitems(self, items):
        for item in items:
            case = getattr(getattr(item, "callspec", None), "params", {}).get("case")
            if case is not None:
                self.step_of[item.nodeid] = case.step.module

    def pytest_runtest_logreport(self, report):
        step = self.step_of.get(report.nodeid)
        if step is None or not (report.when == "call" or report.failed):
            return
        tally = self.tallies.setdefault(step, StepTally())
        if report.passed:
            tally.passed += 1
        else:
            tally.failed += 1
            tally.not_done += "NotImplementedError" in report.longreprtext
            if not tally.first_failure:
                crash = getattr(report.longrepr, "reprcrash", None)
                message = crash.message if crash is not None else report.longreprtext
                tally.first_failure = f"{report.nodeid.split('::')[-1]}: {message.strip().splitlines()[0][:300]}"

    def pytest_terminal_summary(self, terminalreporter):
        label = "solutions" if self.config.getoption(SOLUTIONS_OPTION) else "exercises"
        terminalreporter.write_line(render(self.tallies, label))
