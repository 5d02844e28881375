"""nbgrader's log without a line per lesson file: nbgrader logs "Copying <file> -> <file>" for every file
beside the notebook, twice per student at autograde, and the kit's lessons are most of those files (72 %
of `nbgrader autograde`'s log). The course's nbgrader_config.py calls `without_lesson_copies()`.

Light on purpose: nbgrader loads the config for every command (no numpy, no case catalogue here).
"""
import logging
import os

APPS = ("NbGraderApp", "GenerateAssignmentApp", "AutogradeApp", "GenerateFeedbackApp", "ReleaseFeedbackApp",
        "ZipCollectApp", "CollectApp")  # nbgrader's commands that copy an assignment's files, by their logger
LESSONS = f"{os.sep}lessons{os.sep}"


class LessonCopies(logging.Filter):
    """Drops nbgrader's "Copying <file> -> <file>" records of files inside a lessons/ folder."""

    def filter(self, record):
        return not (record.msg == "Copying %s -> %s" and record.args and LESSONS in str(record.args[0]))


def without_lesson_copies():
    """Filter the lesson copies out of the log of every nbgrader command that copies files."""
    for name in APPS:
        logging.getLogger(name).addFilter(LessonCopies())
