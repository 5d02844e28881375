"""How long a learner waits for feedback: figures only, no assertions.

Times `python -m pytest exercises` (what a learner runs after each edit, a fresh interpreter every
time) and `attnkit check`, on the untouched stubs and on the reference solutions (`--solutions`),
N runs each, and prints the median and the slowest run in seconds. Run it with the learner's
interpreter: other pytest plugins installed beside the kit (hypothesis's loads at every run) add
their own start-up time.

    python benchmarks/feedback_loop.py [N]
"""
import statistics
import subprocess
import sys
import time

from attnkit.paths import EXERCISES_DIR, ROOT

COMMANDS = {
    "pytest exercises (stubs)": [sys.executable, "-m", "pytest", str(EXERCISES_DIR), "-q", "-p", "no:cacheprovider"],
    "pytest exercises --solutions": [sys.executable, "-m", "pytest", str(EXERCISES_DIR), "-q", "-p",
                                     "no:cacheprovider", "--solutions"],
    "attnkit check (stubs)": [sys.executable, "-m", "attnkit.cli", "check"],
}


def seconds(command, cwd=ROOT, env=None):
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def report(commands, runs, cwd=ROOT, env=None):
    """Print the median and slowest wall-clock time of each {label: command}."""
    for label, command in commands.items():
        times = [seconds(command, cwd, env) for _ in range(runs)]
        print(f"{label:<32} median {statistics.median(times):.2f} s, slowest {max(times):.2f} s ({runs} runs)")


def main(runs=5):
    report(COMMANDS, runs)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
