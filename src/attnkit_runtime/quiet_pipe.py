"""A command's end when the reader of its output went away (`attnkit-show | head -3`): quiet, as a Unix tool's.

Standard library only: the student release ships this file as it is.
"""
import os
import sys


def reader_gone():
    """After a BrokenPipeError on stdout: point stdout at /dev/null, so that Python's last flush at exit finds no
    closed pipe either (it would print "Exception ignored … BrokenPipeError")."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
