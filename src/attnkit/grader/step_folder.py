"""Where in a submission folder its step files are: at its top, or in the one folder below it that holds them.

Students hand in their whole repository (the step files one level down, in `exercises/`) or a zip
that unpacks into a folder or two (`alice/attention-exercises/exercises/` on Gradescope). `survey`
looks down to DEPTH folders below the top, without following a link and reading at most
MAX_ENTRIES names per folder (a folder is learner input), for the folders that directly hold a step
file (anything named like one of the manifest's: intake refuses a link or a folder so named,
saying so) and for notebooks (regular files). The folder is chosen
here, before anything is read: `submission.read` then reads the chosen folder's files the way it
reads a top folder's, and only their text goes on to the sandbox.
"""
import os
import stat
from dataclasses import dataclass
from pathlib import PurePosixPath

from .. import manifest
from attnkit_runtime.messages import say

DEPTH = 2
MAX_ENTRIES = 1000
SHOWN = 8  # names of a folder's content quoted in a message


@dataclass(frozen=True)
class Survey:
    step_folders: tuple  # the relative paths (PurePosixPath, "." for the top) of folders holding a step file
    notebooks: tuple  # the relative paths of the .ipynb files found
    top: tuple  # the names at the top, sorted (at most MAX_ENTRIES)

    def chosen(self):
        """The relative path of the folder of step files to grade, or None when there is not exactly one."""
        if PurePosixPath(".") in self.step_folders:
            return PurePosixPath(".")
        return self.step_folders[0] if len(self.step_folders) == 1 else None

    def lone_notebook(self):
        """The relative path of the one notebook to grade when there is no step file, else None."""
        return self.notebooks[0] if not self.step_folders and len(self.notebooks) == 1 else None

    def problem(self, name):
        """Why the folder `name` holds no one submission (neither chosen() nor lone_notebook()), saying
        what it holds."""
        if self.step_folders:
            return say("intake.many_step_folders", name=name, count=len(self.step_folders),
                       folders=_listed(f"{p.as_posix()}/" for p in self.step_folders))
        if self.notebooks:
            return say("gradescope.many_notebooks", count=len(self.notebooks),
                       names=_listed(p.as_posix() for p in self.notebooks))
        return say("intake.no_step_files", name=name, depth=DEPTH, found=_listed(self.top) or say("intake.empty"))


def _listed(names):
    """`a, b/, c …`: the first SHOWN of `names`."""
    names = list(names)
    return ", ".join(names[:SHOWN]) + (" …" if len(names) > SHOWN else "")


def survey(top):
    """The Survey of the folder at path `top` (a real folder, not a link: the caller checked)."""
    step_names = {step.filename for step in manifest.steps()}
    folders, notebooks, top_names = [], [], []
    pending = [(PurePosixPath("."), 0)]
    while pending:
        rel, depth = pending.pop(0)
        entries = _entries(os.path.join(top, rel))
        if depth == 0:
            top_names = sorted(e.name + ("/" if _is_folder(e) else "") for e in entries)
        if any(e.name in step_names for e in entries):  # a link or a folder so named too: intake says why it is refused
            folders.append(rel)
            if depth == 0:
                break  # the top is the submission: nothing below is looked at
        notebooks += [rel / e.name for e in entries if e.name.endswith(".ipynb") and _is_file(e)]
        if depth < DEPTH:
            pending += [(rel / e.name, depth + 1) for e in sorted(entries, key=lambda e: e.name) if _is_folder(e)]
    return Survey(tuple(folders), tuple(sorted(notebooks)), tuple(top_names))


def _entries(path):
    try:
        with os.scandir(path) as it:
            entries = []
            for entry in it:
                entries.append(entry)
                if len(entries) >= MAX_ENTRIES:
                    break
            return entries
    except OSError:  # unreadable or gone: nothing to find there
        return []


def _is_file(entry):
    try:
        return stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return False


def _is_folder(entry):
    try:
        return stat.S_ISDIR(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return False
