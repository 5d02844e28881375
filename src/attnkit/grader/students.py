"""Whose submission is it: the student's folder name, matched to a row of the roster when there is one.

A submission's folder name is the folder's own name (`submissions/alice/` → `alice`); for a
notebook, the `<student>` of `…/submitted/<student>/<assignment>/<file>.ipynb` (nbgrader's layout),
else the notebook's file name without `.ipynb`.

A roster is a CSV file with a header row, e.g. an LMS's export of the class, with the columns
    student_id  the id the gradebook should carry, e.g. the LMS's (required)
    name        the student's name (optional)
    email       the student's email (optional)
    folder      the submission's folder name as above (optional: needed only when nothing else matches)
(header names compared without case and surrounding spaces; other columns are ignored). A
submission's folder name is matched to a row by the first rule, in this order, that gives any row:
the row's folder, its student_id, its email, its email's local part (before the `@`; without case),
its name (without case, spaces or punctuation: `alice_liddell` is `Alice Liddell`). A rule that gives
two rows leaves the submission unmatched (`ambiguous`); two submissions matched to one row are both
marked `duplicate`. Each Student says how it was matched (`Match`).
"""
import csv
import re
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

COLUMNS = ("student_id", "name", "email", "folder")
REQUIRED = ("student_id",)


class Match(str, Enum):
    """How a submission was matched to a roster row: the gradebook's `roster` column."""

    FOLDER = "folder"
    ID = "id"
    EMAIL = "email"
    EMAIL_LOCAL = "email_local"
    NAME = "name"
    UNROSTERED = "unrostered"  # no row matched: graded under its folder name
    AMBIGUOUS = "ambiguous"  # one rule matched several rows: graded under its folder name
    DUPLICATE = "duplicate"  # matched to a row another submission of the run matched too

    def __str__(self):
        return self.value


@dataclass(frozen=True)
class RosterRow:
    student_id: str
    name: str = ""
    email: str = ""
    folder: str = ""
    line: int = 0  # its line in the roster file


@dataclass(frozen=True)
class Student:
    id: str  # the roster's student_id, else the folder name
    name: str  # the roster's name, else ""
    in_roster: bool
    email: str = ""
    match: Match | None = None  # None without a roster
    candidates: tuple = ()  # the RosterRows an ambiguous match hesitated between


def folder_name(submission):
    """The folder name of the submission at path `submission` (see the module's docstring)."""
    path = Path(submission)
    if path.suffix != ".ipynb":
        return path.name or path.resolve().name
    parts = path.parts
    if "submitted" in parts[:-1]:
        at = len(parts) - 1 - parts[::-1].index("submitted")
        if at + 1 < len(parts) - 1:
            return parts[at + 1]
    return path.stem


def _loose(text):
    """`text` without case, spaces or punctuation: how a folder name is compared with a name."""
    return re.sub(r"[\W_]+", "", text).casefold()


def _local(email):
    return email.partition("@")[0].casefold() if "@" in email else ""


# each rule: (Match, the row's key, the folder name's key); an empty key never matches
_RULES = ((Match.FOLDER, lambda r: r.folder, str), (Match.ID, lambda r: r.student_id, str),
          (Match.EMAIL, lambda r: r.email.casefold(), str.casefold),
          (Match.EMAIL_LOCAL, lambda r: _local(r.email), str.casefold),
          (Match.NAME, lambda r: _loose(r.name), _loose))


class Roster:
    """The rows of a roster file, in its order, and the matching of folder names to them."""

    def __init__(self, rows):
        self.rows = list(rows)
        self._index = [(match, _by(self.rows, row_key), key) for match, row_key, key in _RULES]

    def match(self, folder):
        """(Match, [rows]) for the folder name `folder`: one row when matched, several when ambiguous, none else."""
        for match, index, key in self._index:
            rows = index.get(key(folder), []) if key(folder) else []
            if len(rows) == 1:
                return match, rows
            if rows:
                return Match.AMBIGUOUS, rows
        return Match.UNROSTERED, []


def _by(rows, row_key):
    index = {}
    for row in rows:
        if row_key(row):
            index.setdefault(row_key(row), []).append(row)
    return index


def read_roster(path):
    """The Roster of a roster CSV; ValueError naming the file and what is wrong."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.reader(f)
        header = [h.strip().casefold() for h in next(reader, [])]
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise ValueError(f"{path}: the roster needs the column {', '.join(REQUIRED)} (and optionally "
                             f"{', '.join(c for c in COLUMNS if c not in REQUIRED)}); its header is "
                             f"{', '.join(header) or 'empty'}")
        at = {c: header.index(c) for c in COLUMNS if c in header}
        rows, seen = [], {"student_id": {}, "folder": {}}
        for line, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue  # a blank line, as exports often end
            row = RosterRow(**{c: cells[k].strip() if k < len(cells) else "" for c, k in at.items()}, line=line)
            if not row.student_id:
                raise ValueError(f"{path}, line {line}: student_id must be filled in")
            for column in seen:
                value = getattr(row, column)
                if value and value in seen[column]:
                    raise ValueError(f"{path}, line {line}: {column} {value!r} is also on line {seen[column][value]}")
                seen[column].setdefault(value, line)
            rows.append(row)
    return Roster(rows)


def assign(submissions, roster=None):
    """{submission path: Student} for the submissions at paths `submissions` (see the module's docstring)."""
    if roster is None:
        return {path: Student(folder_name(path), "", False) for path in submissions}
    matched = {path: roster.match(folder_name(path)) for path in dict.fromkeys(submissions)}
    taken = {}
    for path, (match, rows) in matched.items():
        if len(rows) == 1:
            taken.setdefault(rows[0].line, []).append(path)
    students = {}
    for path, (match, rows) in matched.items():
        if len(rows) == 1:
            row = rows[0]
            match = Match.DUPLICATE if len(taken[row.line]) > 1 else match
            students[path] = Student(row.student_id, row.name, True, row.email, match)
        else:
            students[path] = Student(folder_name(path), "", False, "", match, tuple(rows))
    return students


def student(submission, roster=None):
    """The Student of the submission at path `submission`, on its own (no duplicate is seen)."""
    return assign([submission], roster)[submission]
