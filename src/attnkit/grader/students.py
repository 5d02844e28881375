"""Whose submission is it: the student's folder name, mapped to an id and a name by a roster.

A submission's folder name is the folder's own name (`submissions/alice/` → `alice`); for a
notebook, the `<student>` of `…/submitted/<student>/<assignment>/<file>.ipynb` (nbgrader's layout),
else the notebook's file name without `.ipynb`.

A roster is a CSV file with a header row and the columns
    folder      the submission's folder name as above (required)
    student_id  the id the gradebook should carry, e.g. the LMS's (required)
    name        the student's name (optional)
Other columns are ignored.
"""
import csv
from dataclasses import dataclass
from pathlib import Path

ROSTER_COLUMNS = ("folder", "student_id")


@dataclass(frozen=True)
class Student:
    id: str  # the roster's student_id, else the folder name
    name: str  # the roster's name, else ""
    in_roster: bool


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


def read_roster(path):
    """{folder: (student_id, name)} from a roster CSV; ValueError naming the file and what is wrong."""
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in ROSTER_COLUMNS if c not in header]
        if missing:
            raise ValueError(f"{path}: the roster needs the columns {', '.join(ROSTER_COLUMNS)} (and optionally name); "
                             f"its header is {', '.join(header) or 'empty'}")
        roster = {}
        for line, row in enumerate(reader, start=2):
            row = {k.strip(): (v or "").strip() for k, v in row.items() if k is not None}
            folder, student_id = row["folder"], row["student_id"]
            if not folder or not student_id:
                raise ValueError(f"{path}, line {line}: folder and student_id must both be filled in")
            if folder in roster:
                raise ValueError(f"{path}, line {line}: folder {folder!r} is listed twice")
            roster[folder] = (student_id, row.get("name", ""))
    return roster


def student(submission, roster=None):
    """The Student of the submission at path `submission`."""
    folder = folder_name(submission)
    if roster and folder in roster:
        student_id, name = roster[folder]
        return Student(student_id, name, True)
    return Student(folder, "", False)


def roster_gaps(submissions, roster):
    """(folder names without a roster row, roster folders without a submission), each sorted."""
    folders = {folder_name(s) for s in submissions}
    return sorted(folders - set(roster)), sorted(set(roster) - folders)
