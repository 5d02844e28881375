"""The results store of a batch: one JSON line per graded submission, appended as each finishes.

A line is keyed by the submission's path, the hash of its contents and the fingerprint of the
cases, so a rerun skips what is already graded and regrades an edited submission (or everything,
when the cases changed). Each line is flushed and fsynced before the next submission is reported,
so a killed grader loses nothing it has reported; a line cut short by the kill is dropped on reopen.
It holds every test's full output, hidden cases' inputs and expected values included, so it is the
grader's alone: mode 0600 (atomic.PRIVATE) whatever the umask, unlike the reports it feeds.
"""
import json
import os
import threading
from pathlib import Path

from .atomic import PRIVATE, write_text


class Journal:
    def __init__(self, path):
        self.path = Path(path)
        self._records = {}
        self._lock = threading.Lock()
        if self.path.exists():
            text = self.path.read_text(encoding="utf-8", errors="replace")
            complete, _, torn = text.rpartition("\n")
            if torn:  # the last write was interrupted
                write_text(self.path, complete + "\n" if complete else "", private=True)
            for line in complete.splitlines():
                try:
                    entry = json.loads(line)
                    self._records[entry["key"]] = entry["record"]
                except (ValueError, KeyError, TypeError):
                    continue

    @staticmethod
    def key(submission, fingerprint):
        return f"{submission.name}|{submission.digest}|{fingerprint}"

    def get(self, key):
        return self._records.get(key)

    def add(self, key, record):
        line = json.dumps({"key": key, "record": record}) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE)
            os.fchmod(fd, PRIVATE)  # a store made by an older kit, or copied, is made private too
            with open(fd, "a", encoding="utf-8") as out:
                out.write(line)
                out.flush()
                os.fsync(out.fileno())
            self._records[key] = record
