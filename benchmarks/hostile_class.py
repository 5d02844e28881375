"""How long a class with hostile submissions takes to grade: figures only, no assertions.

Builds a class of N submissions (default 200) in a temporary folder: honest ones (the solutions and
correct rewrites of them, `attnkit bench`'s), slow honest ones (Python loops over rows and columns
in steps 1, 2, 4 and 5: bench.SLOW) and a share of hostile ones (default 30 %, in equal parts: every
graded function loops forever, sleeps for an hour, or allocates 1 TB: bench.HOSTILE). Grades them with
`--jobs J` (default: `attnkit grade`'s, the CPU count + 1) through the real pipeline and prints the wall time, the CPU
time of the grader and its sandboxes, the time limits the run used, and each kind's scores and
wall time per submission.

    python benchmarks/hostile_class.py [N] [--hostile 0.3] [--slow 10] [--jobs J] [--track core]
                                       [--reference-factor 20]
"""
import argparse
import resource
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from attnkit import manifest
from attnkit.cmd_grade import DEFAULT_JOBS
from attnkit.grader import batch, bench
from attnkit.grader.plan import Plan
from attnkit.grader.runners import SandboxRunner
from attnkit.grader.sandbox_types import Limits, submission_budget


def make_class(folder, n, hostile_share, n_slow, track):
    """{kind: [paths]} of a class of `n`: honest, slow, and hostile ones of each HOSTILE kind."""
    n_hostile = round(n * hostile_share)
    kinds = defaultdict(list)
    for k in range(n_hostile):
        kind = list(bench.HOSTILE)[k % len(bench.HOSTILE)]
        kinds[kind].append(bench.copy_hostile(Path(folder) / f"{kind}{k:04d}", kind, track))
    for k in range(min(n_slow, n - n_hostile)):
        kinds["slow"].append(bench.copy_slow(Path(folder) / f"slow{k:04d}"))
    for k in range(n - n_hostile - len(kinds["slow"])):
        kinds["honest"].append(bench.copy_solutions(Path(folder) / f"honest{k:04d}",
                                                    bench.REWRITES[k % len(bench.REWRITES)]))
    return kinds


def _cpu():
    """CPU seconds of this process and its children so far (the sandboxes: bench's count)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime + bench.sandbox_cpu()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=200)
    parser.add_argument("--hostile", type=float, default=0.3)
    parser.add_argument("--slow", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=DEFAULT_JOBS)
    parser.add_argument("--track", default=manifest.DEFAULT_TRACK)
    parser.add_argument("--reference-factor", type=float, default=20.0,
                        help="as attnkit grade's (0: off)")
    args = parser.parse_args()
    start = time.perf_counter()
    plan = Plan(args.track)
    limits = Limits(reference_factor=args.reference_factor or None)
    runner = SandboxRunner(limits, allow_no_barrier=True)  # the class is made from the kit's own solutions
    print(f"plan ({args.track}, {len(plan.jobs)} calls) built in {time.perf_counter() - start:.2f} s")
    with tempfile.TemporaryDirectory(prefix="attnkit-hostile-") as folder:
        kinds = make_class(folder, args.n, args.hostile, args.slow, args.track)
        batch.run([bench.copy_solutions(Path(folder) / "warm")], plan, runner, 1)  # starts a sandbox
        names = [name for paths in kinds.values() for name in paths]
        finished = {}
        cpu, start = _cpu(), time.perf_counter()
        done, _ = batch.run(names, plan, runner, args.jobs,
                            on_graded=lambda g, _: finished.setdefault(g.submission, time.perf_counter()))
        wall, cpu = time.perf_counter() - start, _cpu() - cpu
    print(f"limits: {runner.limits}; this run's submission budget: {submission_budget(runner.limits, plan.jobs):.2f} s")
    print(f"graded {len(done)} submissions with --jobs {args.jobs} in {wall:.1f} s (CPU {cpu:.1f} s)")
    for kind, paths in kinds.items():
        scores = [done[p].score for p in paths]
        seconds = [done[p].seconds["run"] + done[p].seconds["judge"] for p in paths]
        print(f"  {kind:9s} {len(paths):4d}: scores {min(scores):g}–{max(scores):g}, "
              f"{sum(seconds) / len(seconds):.2f} s each (wall, in the grader)")


if __name__ == "__main__":
    main()
