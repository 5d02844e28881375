"""pytest hooks for exercises/ (imported by exercises/conftest.py): the --solutions switch, --lang and
the progress ladder at the end of the run."""
from . import manifest
from attnkit_runtime import ladder
from .cases import hidden_concepts
from .public import SOLUTIONS_OPTION


def pytest_addoption(parser):
    parser.addoption(SOLUTIONS_OPTION, action="store_true", default=False,
                     help="run the public tests against the kit's reference solutions/ instead of exercises/")
    ladder.add_options(parser)


def pytest_configure(config):
    steps = manifest.steps()
    reference = config.getoption(SOLUTIONS_OPTION)
    ladder.register(config, steps, {s.module: hidden_concepts(s.module) for s in steps},
                    "solutions" if reference else "exercises", reference)
