"""Ctrl-C during a long CPU run stops it within about a second (the progress hook checks for
signals after each chunk), and the module works normally afterwards."""
import _thread
import threading
import time

import pytest

from conftest import JUDGEBENCH

judgestat = pytest.importorskip("judgestat")


def test_keyboard_interrupt_stops_a_long_run_promptly():
    matrix = judgestat.load(JUDGEBENCH)
    # The interrupt (what Ctrl-C does: the main thread's signal flag set) comes at the run's first
    # progress report, so it lands mid-run however fast the machine is (a timer at 1 s once came after
    # a run had finished, and the test saw no interrupt). 300,000 replicates of every metric: many
    # chunks, and 0.9 GB of replicate values.
    interrupted = []

    def interrupt_once(done, total):
        if not interrupted:
            interrupted.append((time.monotonic(), done, total))
            _thread.interrupt_main()

    with pytest.raises(KeyboardInterrupt):
        judgestat.metrics(matrix, replicates=300_000, backend="cpu", progress=interrupt_once)
    stopped = time.monotonic()
    assert interrupted, "the run reported no progress"
    at, done, total = interrupted[0]
    assert done < total, f"the first progress report came at the end ({done} of {total})"
    assert stopped - at < 1.0, f"stopped {stopped - at:.2f} s after the interrupt"
    # Nothing was left half-done: the next run gives the usual result.
    again = judgestat.metrics(matrix, replicates=200, judges=["o1-mini-2024-09-12"], backend="cpu")
    assert len(again.statistics) > 0


def test_the_gil_is_released_while_the_engine_runs():
    # A Python thread keeps counting while the engine runs on the main thread; with the GIL
    # held it would count only in the instants the progress hook holds it.
    stop = threading.Event()
    ticks = [0]

    def count():
        while not stop.is_set():
            ticks[0] += 1

    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.05)
    before, start = ticks[0], time.monotonic()
    judgestat.metrics(JUDGEBENCH, replicates=40000, backend="cpu", threads=1)
    during, seconds = ticks[0] - before, time.monotonic() - start
    stop.set()
    thread.join()
    assert seconds > 0.3
    assert during / seconds > 100_000, f"{during} counts in {seconds:.2f} s"
