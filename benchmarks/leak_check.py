"""The leak check of a student release: how long `attnkit release --check` takes on a first run (the
secrets built) and on later runs (read back from the cache), and the cache's size on disk.

Writes `attnkit release` into a temporary folder and checks it in fresh processes, with a cache folder
($XDG_CACHE_HOME) of its own: one first run, then N later runs. Figures only.

    python benchmarks/leak_check.py [N]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnkit.release import write

CHECK = "import sys; from attnkit.release import leaks; sys.exit(bool(leaks.scan(sys.argv[1])))"


def seconds(folder, env):
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", CHECK, str(folder)], env=env, check=True)
    return time.perf_counter() - start


def main(runs=5):
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as tmp:
        handout = Path(tmp) / "handout"
        write(handout)
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        first = seconds(handout, env)
        later = [seconds(handout, env) for _ in range(runs)]
        size = sum(p.stat().st_size for p in (Path(tmp) / "cache").rglob("*") if p.is_file())
        print(f"first run {first:.1f} s; later runs median {statistics.median(later):.2f} s "
              f"(fastest {min(later):.2f}, slowest {max(later):.2f}); cache {size / 1e6:.0f} MB")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
