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
    # 300,000 replicates of every metric: 10-30 s of work on two cores, far past the interrupt at
    # 1 s, and 0.9 GB of replicate values (3,000,000 would keep 9 GB: a run that large depends on
    # the machine's free memory, and failed once in CI without seeing the interrupt).
    timer = threading.Timer(1.0, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        judgestat.metrics(matrix, replicates=300_000, backend="cpu")
    stopped = time.monotonic() - start
    timer.join()
    assert 1.0 <= stopped < 2.0, f"stopped {stopped:.2f} s after the start, the interrupt came at 1 s"
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
