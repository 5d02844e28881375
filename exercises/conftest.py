"""pytest setup for the public tests: the --solutions switch, --lang and the progress ladder."""
from attnkit.pytest_plugin import pytest_addoption, pytest_configure  # noqa: F401  (pytest hooks)
