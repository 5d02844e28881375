"""How fast the sandbox runs a submission: figures only, no assertions.

Runs the reference solutions (a correct submission) through `run_submission` with the jobs of the
whole case catalogue (public and hidden), N times, serially and with W threads, and prints
submissions per second, the time per submission, and the time of the same calls made in-process
(what isolation costs on top of the learner's own work). Judging is not included.

    python benchmarks/sandbox_overhead.py [N] [W]
"""
import os
import resource
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from attnkit import cases, reference
from attnkit.grader import sandbox
from attnkit.paths import SOLUTIONS_DIR
from attnkit_runtime.harness import Ending


def catalogue_jobs():
    jobs = []
    for case in cases.all_cases():
        for k, kwargs in enumerate(case.build_calls()):
            jobs.append(sandbox.Job(f"{case.name}#{k}", case.step.module, case.function, case.returns, kwargs))
    return jobs


def in_process_seconds(jobs, rounds=20):
    """CPU seconds the calls themselves take when made here (the least any runner could cost)."""
    start = time.process_time()
    for _ in range(rounds):
        for job in jobs:
            args = [v for key, values in job.kwargs.items() if key.startswith("*") for v in values]
            kwargs = {key: v for key, v in job.kwargs.items() if not key.startswith("*")}
            reference.reference_function(job.step, job.function)(*args, **kwargs)
    return (time.process_time() - start) / rounds


def cpu_seconds():
    """CPU time used so far by this process, its zygotes and their (reaped) children. On a busy
    machine wall time says little; CPU time per submission bounds the throughput of 2 cores."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    total = me.ru_utime + me.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    for zygote in sandbox._POOL._idle:
        for pid in _descendants(zygote.proc.pid):
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
    return total


def _descendants(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        kids = [int(k) for k in f.read().split()]
    return [pid] + [d for k in kids for d in _descendants(k)]


def main(n=100, workers=2):
    sources = {p.name: p.read_text(encoding="utf-8") for p in SOLUTIONS_DIR.glob("*.py")}
    jobs = catalogue_jobs()
    steps = len({job.step for job in jobs})
    print(f"barrier: {sandbox.barrier_description()}")
    print(f"one submission = {len(jobs)} jobs over {steps} steps")
    run = sandbox.run_submission(sources, jobs)
    bad = [key for key, result in run.results.items() if result.ending != Ending.RETURNED or result.unnamed]
    print(f"check: {len(jobs) - len(bad)} of {len(jobs)} jobs ok" + (f" (not ok: {bad[:5]})" if bad else ""))
    own = in_process_seconds(jobs)
    print(f"same calls in-process: {own * 1e3:.1f} ms CPU")

    start, cpu = time.perf_counter(), cpu_seconds()
    for _ in range(n):
        sandbox.run_submission(sources, jobs)
    serial, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    print(f"serial, {n} submissions: {n / serial:.1f} submissions/s, {serial / n * 1e3:.1f} ms each (wall)")
    print(f"CPU per submission (grader + zygote + children): {cpu / n * 1e3:.1f} ms, of which sandbox "
          f"overhead {(cpu / n - own) * 1e3:.1f} ms; at most {2 * n / cpu:.0f} submissions/s on 2 idle cores "
          "(running the calls only, no judging)")

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda _: sandbox.run_submission(sources, jobs), range(workers)))  # start zygotes
        start = time.perf_counter()
        list(pool.map(lambda _: sandbox.run_submission(sources, jobs), range(n)))
        parallel = time.perf_counter() - start
    print(f"{workers} threads, {n} submissions: {n / parallel:.1f} submissions/s")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
