"""`attnkit bench` says what it timed: the whole class's rate, and the clean (correct) and the buggy
half's each, timed as batches of their own; `attnkit grade` and the bench grade one more submission at
once than there are CPUs (one per CPU left them idle while a thread judged and its child waited)."""
import os
import re

from attnkit.cmd_grade import DEFAULT_JOBS
from attnkit.grader import bench


def test_the_bench_reports_the_clean_and_the_buggy_rate_beside_the_whole_class(capsys):
    assert bench.run(4, 2, 0)  # correct ones scored 100, buggy ones less
    out = capsys.readouterr().out
    rate = r"(\d+\.\d) submissions/s"
    assert re.search(r"graded 4 submissions \(2 correct, 2 buggy\) with --jobs 2 in [\d.]+ s: " + rate, out)
    assert re.search(r"clean \(correct: .*each must score 100\): 2 in [\d.]+ s, " + rate + r", CPU [\d.]+ ms each", out)
    assert re.search(r"buggy \(.*each must score less\): 2 in [\d.]+ s, " + rate + r", CPU [\d.]+ ms each", out)


def test_grading_keeps_one_submission_more_in_flight_than_there_are_cpus():
    assert DEFAULT_JOBS == (os.cpu_count() or 1) + 1
