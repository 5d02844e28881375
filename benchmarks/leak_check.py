"""The leak check of a student release: how long `attnkit release --check` takes on a first run (the
secrets built) and on later runs (read back from the cache), wall and CPU time, beside a plain byte scan of
the release (every file read, one name looked for), and the cache's size on disk.

Writes `attnkit release` into a temporary folder and checks it in fresh processes, with a cache folder
($XDG_CACHE_HOME) of its own: one first run, then N later runs. Figures only.

    python benchmarks/leak_check.py [N]
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnkit.release import write

CHECK = "import sys; from attnkit.release import leaks; sys.exit(bool(leaks.scan(sys.argv[1])))"
BYTE_SCAN = ("import os, sys; sys.exit(sum(open(os.path.join(r, f), 'rb').read().count(b'step1_hidden') "
             "for r, _, fs in os.walk(sys.argv[1]) for f in fs))")


def seconds(folder, env, code=CHECK):
    """(wall, CPU) seconds of `code` run on `folder` in a fresh python."""
    cpu = _children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, str(folder)], env=env, check=True)
    return time.perf_counter() - start, _children_cpu() - cpu


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _figures(runs):
    wall, cpu = zip(*runs)
    return f"median {statistics.median(wall):.2f} s wall, {statistics.median(cpu):.2f} s CPU"


def main(runs=5):
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as tmp:
        handout = Path(tmp) / "handout"
        write(handout)
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        first = seconds(handout, env)
        later = [seconds(handout, env) for _ in range(runs)]
        scans = [seconds(handout, env, BYTE_SCAN) for _ in range(runs)]
        size = sum(p.stat().st_size for p in (Path(tmp) / "cache").rglob("*") if p.is_file())
        print(f"first run {first[0]:.1f} s wall, {first[1]:.1f} s CPU; later runs {_figures(later)} "
              f"(CPU fastest {min(c for _, c in later):.2f}, slowest {max(c for _, c in later):.2f}); "
              f"a byte scan {_figures(scans)}; cache {size / 1e6:.0f} MB")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
