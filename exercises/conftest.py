"""pytest setup for the public tests: the --solutions switch, --lang and the progress ladder.

公开测试的 pytest 设置：--solutions 开关、--lang 和进度表。
"""
from attnkit.pytest_plugin import pytest_addoption, pytest_configure  # noqa: F401  (pytest hooks)
