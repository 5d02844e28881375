"""The nbgrader course's kernel: ipykernel inside bubblewrap, only the notebook's own folder writable.

Outside the `nbgrader_course` package on purpose: starting a kernel must not import the course
builder (numpy and the case catalogue, most of a second per notebook). The course builder writes
`<course>/jupyter/kernels/attnkit-barrier/kernel.json` (`kernel_spec`) and its nbgrader_config.py
selects it (`c.Execute.kernel_name`, JUPYTER_PATH). jupyter_client then starts

    python -m attnkit.nbgrader_kernel {resource_dir} -f {connection_file} [ipykernel arguments]

with nbgrader's own Python, in the folder where nbgrader executes the notebook
(`autograded/<student>/<assignment>/`). This launcher, outside the sandbox, first compares every
hidden-test file with the SHA-256 the course was built with (kernel.json's metadata; a changed file:
the kernel does not start, and the message names the file), then replaces itself with bwrap running
ipykernel:

- read-only: the system folders (/usr and the /bin, /lib… beside it), the Python installation
  (sys.prefix and its base), the kernel's connection file and the hidden tests' folder; and, in the
  folder of an assignment of the course, the course's own source/<assignment>/attnkit_runtime/ (the
  checks the notebook imports) mounted over the working folder's attnkit_runtime/, so that neither a
  copy the submission brought nor a cell that rewrites it changes the checks (missing: the kernel
  does not start);
- writable: the working folder only, and a private /tmp; nothing else of the course is there, no
  other student, no home folder; a clean environment (the language variables kept);
- its own PID, IPC and UTS namespaces (a user namespace when the kernel allows one: root without
  CAP_SYS_ADMIN needs it), no capabilities, killed with nbgrader, a new session;
- the network namespace shared: jupyter_client talks to the kernel over TCP on 127.0.0.1.

Fails closed: when bwrap is missing or cannot build the sandbox (tried once with `true` before the
kernel), the launcher prints why and the fix (messages `nbgrader_barrier.*`) and exits 1, so that
nbgrader records an error for that student instead of running the notebook unconfined.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from attnkit_runtime.messages import say

KERNEL_NAME = "attnkit-barrier"
JUPYTER_DIR = "jupyter"  # <course>/jupyter is put on JUPYTER_PATH: kernels/<KERNEL_NAME>/kernel.json below it
SPEC_DIR = Path(JUPYTER_DIR, "kernels", KERNEL_NAME)
HIDDEN_DIGESTS = "attnkit_hidden_tests"  # kernel.json metadata: {path from the course root: SHA-256}
RUNTIMES = "attnkit_runtimes"  # kernel.json metadata: {assignment: its runtime folder's path from the course root}
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
KEPT_ENVIRONMENT = ("ATTNKIT_LANG", "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LC_CTYPE", "TZ")
ISOLATION = ("--unshare-user-try", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
              "--cap-drop", "ALL", "--die-with-parent", "--new-session")


def kernel_spec(hidden_digests, runtimes):
    """kernel.json's content; `hidden_digests`: {a hidden-test file's path from the course root: its SHA-256};
    `runtimes`: {assignment: the path of the runtime folder beside its source notebook, from the course root}."""
    return {"argv": ["python", "-m", "attnkit.nbgrader_kernel", "{resource_dir}", "-f", "{connection_file}"],
            "display_name": "Python 3 (attnkit: notebook sandboxed)",
            "language": "python",
            "interrupt_mode": "message",  # a SIGINT to bwrap would not reach the kernel in its own session
            "metadata": {HIDDEN_DIGESTS: hidden_digests, RUNTIMES: runtimes}}


def changed_hidden_tests(course, digests):
    """The message for the first hidden-test file that is missing or not what the course was built with, else None."""
    for name, digest in sorted(digests.items()):
        path = course / name
        if not path.is_file():
            return say("nbgrader_barrier.hidden_missing", path=path)
        found = hashlib.sha256(path.read_bytes()).hexdigest()
        if found != digest:
            return say("nbgrader_barrier.hidden_changed", path=path, found=found[:12], digest=digest[:12])
    return None


def runtime_mount(course, work_dir, runtimes):
    """(the course's runtime folder, where the notebook imports it from) when `work_dir` is the folder of one
    of the course's assignments (`runtimes`: kernel.json's), else None."""
    if work_dir.name not in runtimes:
        return None
    folder = course / runtimes[work_dir.name]
    return folder, work_dir / folder.name


def missing_runtime(mount):
    """The message when the course's runtime folder to mount is missing, else None."""
    if mount is not None and not mount[0].is_dir():
        return say("nbgrader_barrier.runtime_missing", path=mount[0])
    return None


def _system_mounts():
    args = []
    for folder in SYSTEM_DIRS:
        if os.path.islink(folder):  # merged /usr: /lib -> usr/lib
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    return args


def _python_mounts():
    """The Python installation (a virtualenv and the Python it was made from), where not under /usr."""
    prefixes = (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix)
    folders = dict.fromkeys(os.path.abspath(p) for p in prefixes)
    args = []
    for folder in folders:
        if not any(folder == d or folder.startswith(d + os.sep) for d in SYSTEM_DIRS):
            args += ["--ro-bind", os.path.realpath(folder), folder]
    return args


def _environment():
    # JPY_PARENT_PID 1: ipykernel's own watch on its parent off (bwrap's --die-with-parent does that job;
    # the parent seen inside the PID namespace is bwrap's init), and no console banner in nbgrader's log
    kept = [("PATH", "/usr/bin:/bin"), ("HOME", "/tmp"), ("JPY_PARENT_PID", "1")]
    kept += [(name, os.environ[name]) for name in KEPT_ENVIRONMENT if name in os.environ]
    return ["--clearenv", *[arg for name, value in kept for arg in ("--setenv", name, value)]]


def sandbox_options(work_dir, read_only, connection_file, runtime=None):
    """bwrap's options (before `--` and the command): see the module's docstring. `read_only`: folders to show;
    `runtime`: (folder, where) to show it read-only inside the working folder (`runtime_mount`), or None."""
    over_work_dir = ["--ro-bind", str(runtime[0]), str(runtime[1])] if runtime else []
    return [*ISOLATION, *_system_mounts(), "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            *_python_mounts(), "--ro-bind", connection_file, connection_file,
            *[arg for folder in read_only if folder.is_dir() for arg in ("--ro-bind", str(folder), str(folder))],
            "--bind", str(work_dir), str(work_dir), *over_work_dir,
            "--remount-ro", "/",  # the folders bwrap made to hold those mounts: read-only too
            "--chdir", str(work_dir), *_environment()]


def barrier_problem(bwrap, options):
    """Why bwrap cannot build the sandbox (its own message and the fix), or None when `true` runs in it."""
    if bwrap is None:
        return say("nbgrader_barrier.no_bwrap")
    tried = subprocess.run([bwrap, *options, "--", "true"], capture_output=True, text=True)
    if tried.returncode != 0:
        return say("nbgrader_barrier.failed", said=tried.stderr.strip() or f"exit status {tried.returncode}")
    return None


def _writable_course(work_dir, course):
    """The message when the kernel's own (writable) folder would hold the course itself, else None."""
    if course == work_dir or work_dir in course.parents:
        return say("nbgrader_barrier.course_folder", folder=work_dir)
    return None


def _connection_file(kernel_args):
    return kernel_args[kernel_args.index("-f") + 1]


def main():
    """The kernel spec's command: check the hidden tests, then exec ipykernel inside bwrap (or exit 1 saying why)."""
    resource_dir, *kernel_args = sys.argv[1:]
    spec = json.loads((Path(resource_dir) / "kernel.json").read_text(encoding="utf-8"))
    course = Path(resource_dir).resolve().parents[len(SPEC_DIR.parts) - 1]
    work_dir = Path.cwd().resolve()
    digests = spec["metadata"][HIDDEN_DIGESTS]
    hidden_dirs = sorted({(course / name).parent for name in digests})
    runtime = runtime_mount(course, work_dir, spec["metadata"][RUNTIMES])
    options = sandbox_options(work_dir, hidden_dirs, os.path.realpath(_connection_file(kernel_args)), runtime)
    bwrap = shutil.which("bwrap")
    problem = (changed_hidden_tests(course, digests) or missing_runtime(runtime) or _writable_course(work_dir, course)
               or barrier_problem(bwrap, options))
    if problem:
        print(problem, file=sys.stderr)
        sys.exit(1)
    os.execv(bwrap, [bwrap, *options, "--", sys.executable, "-m", "ipykernel_launcher", *kernel_args,
                     "--HistoryManager.hist_file=:memory:"])


if __name__ == "__main__":
    main()
