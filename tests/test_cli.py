"""The `attnkit` command: each subcommand's module is imported only when it runs (or for the help),
and the table of subcommands names each one as its module registers it."""
import subprocess
import sys

import pytest

from attnkit import cli


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_a_subcommand_alone_is_what_its_module_registers(name):
    parser = cli.build_parser([name])
    assert parser._subparsers._group_actions[0].choices.keys() == {name}


def test_the_help_lists_every_subcommand():
    assert cli.build_parser(["--help"])._subparsers._group_actions[0].choices.keys() == cli.COMMANDS.keys()


def test_the_leak_check_loads_neither_the_grader_nor_pytest():
    code = ("import sys; from attnkit import cli; cli.build_parser(['release', '--check', 'x']); "
            "from attnkit.release import leaks; "
            "print(sorted(m for m in ('attnkit.grader.grade', 'pytest', 'nbgrader') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
