"""How a call's sleep is counted from the scheduler's times (sandbox_meter.Meter): a CPU-bound call whose
virtual CPU the host took away (steal time, on a VM) neither ran nor waited for a CPU in the guest's
counters, and must not be counted as asleep."""
from attnkit.grader.sandbox_child import probe
from attnkit.grader.sandbox_meter import Meter
import os


def sample(at, ran, queued=0.0, stolen=0.0):
    return {"at": at, "cpu": ran, "ran": ran, "queued": queued, "stolen": stolen}


def test_time_the_host_stole_is_not_sleep():
    meter = Meter(0.0)
    meter.add(sample(0.1, 0.1), 0.0, False)
    assert meter.add(sample(1.1, 0.4, stolen=0.7), 0.0, False) == 0.0  # ran 0.3 s; 0.7 s taken by the host


def test_a_call_that_sleeps_is_still_counted_asleep_beside_steal():
    meter = Meter(0.0)
    meter.add(sample(0.1, 0.1), 0.0, False)
    assert abs(meter.add(sample(1.1, 0.2, queued=0.1, stolen=0.2), 0.0, False) - 0.6) < 1e-9


def test_a_probe_says_how_much_the_host_has_stolen():
    got = probe(os.getpid())
    assert got["stolen"] >= 0.0 and set(got) == {"at", "cpu", "ran", "queued", "stolen"}
